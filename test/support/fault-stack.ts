// Doorman behind a real TCP fault proxy: a toxiproxy server of our own (built by
// scripts/toxiproxy.sh), one proxy per store, and Doorman processes whose store URLs point at
// the proxies. Faults are toxics on a proxy (latency, reset, stall) or the proxy disabled
// (down); heal() removes them all. The test process itself reaches the stores directly.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Toxiproxy, type Proxy } from 'toxiproxy-node-client';
import { repoDir } from '../../src/config.js';
import { testEnv } from './test-deps.js';
import { freePort, startServer, startWorker, until, type Child } from './processes.js';

export type Store = 'postgres' | 'neo4j' | 'redis';

export interface FaultStack {
  // Store URLs through the proxies, for Doorman processes.
  env: Record<string, string>;
  logDir: string;
  // Every response slower by `ms` (server to client), or every request ('upstream').
  latency(store: Store, ms: number, stream?: 'upstream' | 'downstream'): Promise<void>;
  // Every connection reset (TCP RST) as soon as data flows, new ones included. The responses'
  // side is reset first: adding a toxic makes a latency toxic let go of what it holds at once
  // (toxiproxy drops no data), and a response let go before its reset is in place escapes it.
  reset(store: Store): Promise<void>;
  // Data stops both ways; connections stay open, nothing is answered.
  stall(store: Store): Promise<void>;
  // The store is gone: connections closed, new ones refused.
  down(store: Store): Promise<void>;
  up(store: Store): Promise<void>;
  // Removes every fault.
  heal(): Promise<void>;
  startApi(env?: Record<string, string>): Promise<Child>;
  // Resolves once the worker says its job workers run (its first start can take seconds).
  startWorker(env?: Record<string, string>): Promise<Child>;
  close(): Promise<void>;
}

const hostPort = (url: string, fallbackPort: string) => {
  const u = new URL(url);
  return { host: u.hostname === 'localhost' ? '127.0.0.1' : u.hostname, port: u.port || fallbackPort };
};

function toxiproxyBinary(): string {
  return process.env.TOXIPROXY_BIN ?? execFileSync('bash', [path.join(repoDir, 'scripts/toxiproxy.sh')], { encoding: 'utf8' }).trim();
}

export async function startFaultStack(name: string): Promise<FaultStack> {
  const logDir = path.join(repoDir, '.stack', 'faults', name);
  fs.mkdirSync(logDir, { recursive: true });
  const apiPort = await freePort();
  const server = spawn(toxiproxyBinary(), ['-host', '127.0.0.1', '-port', String(apiPort)], {
    stdio: ['ignore', 'ignore', fs.openSync(path.join(logDir, 'toxiproxy.log'), 'w')],
  });
  const toxiproxy = new Toxiproxy(`http://127.0.0.1:${apiPort}`);
  await until(
    'toxiproxy',
    () =>
      toxiproxy.getVersion().then(
        () => true,
        () => undefined,
      ),
    15_000,
  );

  const upstreams: Record<Store, { host: string; port: string }> = {
    postgres: hostPort(testEnv.DATABASE_URL!, '5432'),
    neo4j: hostPort(testEnv.NEO4J_URI ?? 'bolt://127.0.0.1:7687', '7687'),
    redis: hostPort(testEnv.REDIS_URL!, '6379'),
  };
  const proxies = {} as Record<Store, Proxy>;
  for (const store of Object.keys(upstreams) as Store[]) {
    const { host, port } = upstreams[store];
    proxies[store] = await toxiproxy.createProxy({ name: store, listen: '127.0.0.1:0', upstream: `${host}:${port}` });
  }
  const through = (url: string, store: Store) => {
    const u = new URL(url);
    u.host = proxies[store].listen;
    return u.toString();
  };
  const env = {
    DATABASE_URL: through(testEnv.DATABASE_URL!, 'postgres'),
    NEO4J_URI: `bolt://${proxies.neo4j.listen}`,
    REDIS_URL: through(testEnv.REDIS_URL!, 'redis'),
  };
  const children: Child[] = [];
  let serial = 0;
  let processes = 0;
  const toxic = (
    store: Store,
    type: 'latency' | 'reset_peer' | 'timeout',
    attributes: object,
    stream: 'upstream' | 'downstream' = 'downstream',
  ) => proxies[store].addToxic({ name: `${type}-${stream}-${(serial += 1)}`, type, stream, toxicity: 1, attributes }).then(() => undefined);
  const enabled = async (store: Store, on: boolean) => {
    proxies[store] = await proxies[store].update({ enabled: on, listen: proxies[store].listen, upstream: proxies[store].upstream });
  };

  return {
    env,
    logDir,
    latency: (store, ms, stream = 'downstream') => toxic(store, 'latency', { latency: ms, jitter: 0 }, stream),
    reset: async (store) => {
      await toxic(store, 'reset_peer', { timeout: 0 }, 'downstream');
      await toxic(store, 'reset_peer', { timeout: 0 }, 'upstream');
    },
    stall: async (store) => {
      await toxic(store, 'timeout', { timeout: 0 }, 'upstream');
      await toxic(store, 'timeout', { timeout: 0 }, 'downstream');
    },
    down: (store) => enabled(store, false),
    up: (store) => enabled(store, true),
    heal: () => toxiproxy.reset(),
    async startApi(extra = {}) {
      const child = await startServer({ ...env, ...extra }, path.join(logDir, `api-${(processes += 1)}.log`));
      children.push(child);
      return child;
    },
    async startWorker(extra = {}) {
      const logFile = path.join(logDir, `worker-${(processes += 1)}.log`);
      const logged = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
      const before = logged().length;
      const child = startWorker({ ...env, ...extra, LOG_LEVEL: 'info' }, logFile);
      children.push(child);
      await until(
        `worker ${child.pid} started`,
        async () => (logged().slice(before).includes('job workers started') ? true : undefined),
        60_000,
      );
      return child;
    },
    async close() {
      await Promise.all(children.map((child) => child.kill('SIGKILL')));
      server.kill('SIGKILL');
    },
  };
}
