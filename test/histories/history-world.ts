// The running fleet a randomized history acts on: two app instances in this process,
// each started as `serve` starts one (key and list memories watched, warmed, the policies
// watched, a graph writer, an HTTP listener on loopback), and optionally a real `doorman worker`
// child. Every fault is injected here and healed here:
//   - each instance reaches Neo4j through a TCP proxy of its own (neo4jSlow: a delay each way,
//     at most 5 s long);
//   - each instance's LISTEN connections (keys, lists, policies) go through a TCP proxy of their
//     own (listenCut: the connections open are cut silently, for good: nothing more either way,
//     no close told either end; new connections pass);
//   - each instance's Postgres connections carry an application_name of their own, so "Postgres
//     restarted, as this instance sees it" is pg_terminate_backend of exactly those (pgRestart),
//     and its graph writer's session (on DATABASE_DIRECT_URL, named apart) can be killed alone
//     (writerKill); writerStop stops the writer in process and starts it again;
//   - workerKill ends the worker child with SIGKILL and starts another.
// The shared Postgres server is never restarted: other suites use it.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { createHttpServer } from '../../src/http/http-server.js';
import { redisReady } from '../../src/redis/redis-ready.js';
import { watchPolicies } from '../../src/policies/documents/policy-registry.js';
import { startReadyWorker, type Child } from '../support/processes.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { ownTestDeps, testDeps, testEnv } from '../support/test-deps.js';
import { standIns } from '../support/verdict-harness.js';
import type { FaultKind, Inst } from './history-ops.js';

export interface Instance {
  name: 'A' | 'B';
  deps: Deps;
  base: string;
  appName: string;
  bolt: TcpFaultProxy;
  listen: TcpFaultProxy;
  writerRunning: boolean;
}

export interface World {
  instances: [Instance, Instance];
  // Whether a worker child runs (HISTORY_WORKER=0: none, and workerKill does nothing).
  worker(): Child | undefined;
  // When a LISTEN connection (of this instance, or of any) was last cut silently (epoch ms; 0: never).
  lastCutAt(inst?: Inst): number;
  inject(fault: FaultKind, inst: Inst, latencyMs: number): Promise<boolean>;
  // pgRestart in the middle of an operation: see restartDuring below.
  restartDuring<T>(inst: Inst, start: () => Promise<T>): Promise<{ work: Promise<T>; terminated: number }>;
  heal(fault: FaultKind, inst: Inst): Promise<void>;
  healAll(): Promise<void>;
  close(): Promise<void>;
}

const withAppName = (url: string, name: string, host?: string) => {
  const u = new URL(url);
  if (host) u.host = host;
  u.searchParams.set('application_name', name);
  return u.toString();
};

async function startInstance(name: 'A' | 'B'): Promise<{ instance: Instance; stop(): Promise<void> }> {
  const { dns, rdap, intelDir } = await standIns();
  const neo4jUri = new URL(testEnv.NEO4J_URI ?? 'bolt://127.0.0.1:7687');
  const bolt = await startTcpFaultProxy(Number(neo4jUri.port || 7687), neo4jUri.hostname);
  const pgUrl = new URL(testEnv.DATABASE_URL!);
  const listen = await startTcpFaultProxy(Number(pgUrl.port || 5432), pgUrl.hostname === 'localhost' ? '127.0.0.1' : pgUrl.hostname);
  const appName = `hist-${name.toLowerCase()}-${process.pid}`;
  const deps = ownTestDeps({
    DATABASE_URL: withAppName(testEnv.DATABASE_URL!, appName),
    DATABASE_DIRECT_URL: withAppName(testEnv.DATABASE_URL!, `${appName}-direct`),
    // As without a direct URL (they default off when one is set, for PgBouncer).
    PG_SERVER_TIMEOUTS: 'true',
    PG_NAMED_STATEMENTS: 'true',
    NEO4J_URI: `bolt://127.0.0.1:${bolt.port}`,
    DNS_SERVERS: dns.server,
    RDAP_BASE_URL: rdap.url,
    INTEL_DIR: intelDir,
    // A generous deadline (a shared, noisy machine); the neo4jSlow fault goes past it on purpose.
    SIGNAL_DEADLINE_MS: '1000',
    PG_QUERY_TIMEOUT_MS: '3000',
    RATE_LIMIT_PER_MINUTE: '1000000',
  });
  // The LISTEN connections (on the direct URL), as serve() opens them, through this instance's
  // listen proxy.
  const watchDeps = {
    ...deps,
    config: {
      ...deps.config,
      databaseDirectUrl: withAppName(deps.config.databaseDirectUrl, `${appName}-listen`, `127.0.0.1:${listen.port}`),
    },
  };
  await redisReady(deps.redis, 3000);
  const keyWatch = deps.keys.watch(watchDeps);
  const listWatch = deps.lists.watch(watchDeps);
  await deps.warmup();
  const server: http.Server = createHttpServer(createApp(deps), deps.config);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await deps.graphWriter.start();
  const policyWatch = watchPolicies({ ...watchDeps, policies: deps.policies });
  const instance: Instance = {
    name,
    deps,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    appName,
    bolt,
    listen,
    writerRunning: true,
  };
  return {
    instance,
    async stop() {
      await Promise.allSettled([keyWatch.close(), listWatch.close(), policyWatch.close()]);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await deps.graphWriter.stop();
      instance.writerRunning = false;
      await Promise.all([bolt.close(), listen.close()]);
    },
  };
}

// The longest a slow Neo4j lasts (it is healed sooner when its operations are done).
const SLOW_BOUND_MS = 5_000;

// What the operations of a history write (a verdict, PATCH, feedback, a retraction, a review's
// resolution or undo, a list change, a key, a policy, the outbox rows that follow them).
const WRITTEN = ['events', 'feedback', 'reviews', 'graph_outbox', 'list_entries', 'api_keys', 'policy_versions'];

// Ends every backend of this database whose application_name matches (an instance's, or its
// writer session's): what its clients see when Postgres restarts.
async function terminate(deps: Deps, pattern: string): Promise<number> {
  const { rows } = await deps.db.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND application_name LIKE $1 AND pid <> pg_backend_pid()`,
    [pattern],
  );
  return rows[0]?.n ?? 0;
}

export async function startWorld(options: { worker: boolean }): Promise<World> {
  const started = [await startInstance('A'), await startInstance('B')];
  const instances = started.map((s) => s.instance) as [Instance, Instance];
  // The test process's own deps (not an instance's) reach Postgres directly for the faults.
  const admin = testDeps();
  let worker = options.worker ? await startReadyWorker() : undefined;
  let workerStarting: Promise<Child> | undefined;
  const active = new Set<string>();
  const cutAt = [0, 0];
  // A slow Neo4j ends by itself after this long, however long its operations take.
  const timers = new Map<string, NodeJS.Timeout>();
  const bounded = (fault: FaultKind, inst: Inst, ms: number) => {
    clearTimeout(timers.get(`${fault}:${inst}`));
    timers.set(
      `${fault}:${inst}`,
      setTimeout(() => void world.heal(fault, inst), ms),
    );
  };

  const world: World = {
    instances,
    worker: () => worker,
    lastCutAt: (inst) => (inst === undefined ? Math.max(...cutAt) : cutAt[inst]!),
    async inject(fault, inst, latencyMs) {
      const i = instances[inst];
      active.add(`${fault}:${inst}`);
      switch (fault) {
        case 'writerStop':
          if (!i.writerRunning) return false;
          await i.deps.graphWriter.stop();
          i.writerRunning = false;
          return true;
        case 'writerKill':
          return (await terminate(admin, `${i.appName}-direct`)) > 0;
        case 'pgRestart':
          return (await terminate(admin, `${i.appName}%`)) > 0;
        case 'listenCut':
          i.listen.blackhole();
          cutAt[inst] = Date.now();
          return true;
        case 'neo4jSlow':
          i.bolt.delay(latencyMs);
          bounded(fault, inst, SLOW_BOUND_MS);
          return true;
        case 'workerKill': {
          if (!worker) return false;
          const killed = worker;
          worker = undefined;
          await killed.kill('SIGKILL');
          // Another starts at once, as a supervisor would restart it (ready a few seconds later).
          workerStarting = startReadyWorker();
          workerStarting
            .then(
              (w) => {
                worker = w;
              },
              () => undefined,
            )
            .finally(() => {
              workerStarting = undefined;
            });
          return true;
        }
      }
    },
    // The tables the operations write are locked first (from this process, not through the
    // instance), the operation started, and the instance's backends terminated once one of them
    // waits on a lock (or after 1.5 s): Postgres restarts while the operation waits to write, as
    // test/faults/postgres.faults.ts does it. The lock is given up at once after.
    async restartDuring(inst, start) {
      const i = instances[inst];
      const lock = await admin.db.connect();
      let locked = false;
      try {
        await lock.query('BEGIN');
        await lock.query("SET LOCAL lock_timeout = '3s'");
        await lock.query(`LOCK TABLE ${WRITTEN.join(', ')} IN ACCESS EXCLUSIVE MODE`);
        locked = true;
      } catch {
        await lock.query('ROLLBACK').catch(() => undefined);
      }
      const work = start();
      try {
        for (const deadline = Date.now() + 1500; locked && Date.now() < deadline; ) {
          const { rows } = await admin.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
              WHERE NOT l.granted AND a.datname = current_database() AND a.application_name LIKE $1`,
            [`${i.appName}%`],
          );
          if (rows[0]!.n > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        return { work, terminated: await terminate(admin, `${i.appName}%`) };
      } finally {
        if (locked) await lock.query('ROLLBACK').catch(() => undefined);
        lock.release();
      }
    },
    async heal(fault, inst) {
      const i = instances[inst];
      active.delete(`${fault}:${inst}`);
      clearTimeout(timers.get(`${fault}:${inst}`));
      timers.delete(`${fault}:${inst}`);
      if (fault === 'writerStop' && !i.writerRunning) {
        await i.deps.graphWriter.start();
        i.writerRunning = true;
      }
      if (fault === 'neo4jSlow') i.bolt.delay(0);
    },
    async healAll() {
      for (const key of [...active]) {
        const [fault, inst] = key.split(':') as [FaultKind, string];
        await world.heal(fault, Number(inst) as Inst);
      }
      if (workerStarting) await workerStarting.catch(() => undefined);
    },
    async close() {
      await world.healAll();
      await Promise.allSettled(started.map((s) => s.stop()));
      await worker?.kill('SIGKILL');
    },
  };
  return world;
}
