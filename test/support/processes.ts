// Real child processes for tests: a Doorman server or worker, or a private redis-server that a
// test may stop. Each is ended by its own pid when the test run ends.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { testEnv } from './test-deps.js';
import { freePort } from './free-port.js';

const children = new Set<ChildProcess>();
const killAll = () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
};
after(killAll);
// Also when the run ends otherwise: a root hook that fails skips the hooks after it, and mocha's
// --exit ends the process; a server left behind would outlive the run.
process.once('exit', killAll);

export { freePort };

// Ends these children by their pids (SIGTERM) and waits for each to exit, then removes the
// folder they worked in.
export async function stopChildren(children: ChildProcess[], dir: string): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          process.kill(child.pid!, 'SIGTERM');
        }),
    ),
  );
  fs.rmSync(dir, { recursive: true, force: true });
}

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
  // Ends it at once with this signal (by default SIGKILL: no cleanup at all, as on a crash) and
  // waits for the exit.
  kill(signal?: NodeJS.Signals): Promise<void>;
  // The exit code (null after a signal), once the process has exited.
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

function track(child: ChildProcess, port: number): Child {
  children.add(child);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    port,
    pid: child.pid!,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
      children.delete(child);
    },
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      children.delete(child);
    },
  };
}

// Errors go to stderr, or everything (the JSON log on stdout too) to logFile, appended, when given.
function outputTo(logFile?: string): ['ignore', 'ignore' | number, 'inherit' | number] {
  if (!logFile) return ['ignore', 'ignore', 'inherit'];
  const fd = fs.openSync(logFile, 'a');
  return ['ignore', fd, fd];
}

export async function startServer(env: Record<string, string> = {}, logFile?: string, extraArgs: string[] = []): Promise<Child> {
  const port = await freePort();
  const child = spawn('node', ['bin/doorman.js', 'serve', '--no-worker', ...extraArgs], {
    env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'warn', PORT: String(port), ...env },
    stdio: outputTo(logFile),
  });
  const handle = track(child, port);
  await until(`doorman on :${port}`, async () => ((await fetch(`http://127.0.0.1:${port}/health`)).ok ? true : undefined));
  return handle;
}

// `doorman worker`: the job workers only. It has no port; tests see it work by its effects.
export function startWorker(env: Record<string, string> = {}, logFile?: string): Child {
  const child = spawn('node', ['bin/doorman.js', 'worker'], {
    env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', LOG_LEVEL: 'warn', ...env },
    stdio: outputTo(logFile),
  });
  return track(child, 0);
}

// A `doorman worker` process (graph writer and job workers), resolved once it says it runs.
export async function startReadyWorker(env: Record<string, string> = {}): Promise<Child> {
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
      if (seen.includes('job workers started')) {
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
  await until(
    `redis on :${port}`,
    () =>
      new Promise<boolean | undefined>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end();
          resolve(true);
        });
        socket.on('error', () => resolve(undefined));
      }),
  );
  return handle;
}
