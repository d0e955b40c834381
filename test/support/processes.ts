// Real child processes for tests: a Doorman server, or a private redis-server that a test may
// stop. Each is ended by its own pid when the test run ends.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { testEnv } from './test-deps.js';
import { freePort } from './free-port.js';

const children = new Set<ChildProcess>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

export { freePort };

export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
}

export interface Child {
  port: number;
  pid: number;
  // The exit code (null after a signal), once the process has exited.
  exited: Promise<number | null>;
  stop(): Promise<void>;
  // SIGKILL: the process dies mid-whatever, as on a crash.
  kill(): Promise<void>;
}

function track(child: ChildProcess, port: number): Child {
  children.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    port,
    pid: child.pid!,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      children.delete(child);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      children.delete(child);
    },
  };
}

export async function startServer(env: Record<string, string> = {}): Promise<Child> {
  const port = await freePort();
  const child = spawn('node', ['bin/doorman.js', 'serve', '--no-worker'], {
    env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'warn', PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const handle = track(child, port);
  await until(`doorman on :${port}`, async () => ((await fetch(`http://127.0.0.1:${port}/health`)).ok ? true : undefined));
  return handle;
}

// A `doorman worker` process (graph writer and job workers), started when it runs.
export async function startWorker(env: Record<string, string> = {}): Promise<Child> {
  const child = spawn('node', ['bin/doorman.js', 'worker'], {
    env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const handle = track(child, 0);
  // The worker logs one line once its job workers run.
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('doorman worker did not start within 30 s')), 30_000);
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('"workers running"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`doorman worker exited with ${code}`)));
  });
  child.stdout!.resume();
  return handle;
}

export async function startRedis(): Promise<Child> {
  const port = await freePort();
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const handle = track(child, port);
  await until(`redis on :${port}`, () => new Promise<boolean | undefined>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => { socket.end(); resolve(true); });
    socket.on('error', () => resolve(undefined));
  }));
  return handle;
}
