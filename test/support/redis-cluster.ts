// A real Redis Cluster for tests: three redis-server processes on free loopback ports, each with
// its cluster state in a temporary folder, joined by `redis-cli --cluster create` (no replicas),
// ready once every node reports cluster_state:ok. Stopped by their pids, the folder removed.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { stopChildren, until } from './processes.js';

const run = promisify(execFile);

export interface RedisCluster {
  ports: number[];
  url: string;
  stop(): Promise<void>;
}

export async function startRedisCluster(nodes = 3): Promise<RedisCluster> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-redis-cluster-'));
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  const stop = () => stopChildren(children, dir);
  try {
    for (let i = 0; i < nodes; i++) {
      const port = await freePort();
      ports.push(port);
      children.push(
        spawn(
          'redis-server',
          [
            '--bind',
            '127.0.0.1',
            '--port',
            String(port),
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            path.join(dir, `nodes-${port}.conf`),
            '--cluster-node-timeout',
            '2000',
            '--dir',
            dir,
            '--save',
            '',
            '--appendonly',
            'no',
            '--dbfilename',
            `dump-${port}.rdb`,
          ],
          { stdio: 'ignore' },
        ),
      );
    }
    for (const port of ports) {
      await until(
        `redis-server on :${port}`,
        async () => ((await run('redis-cli', ['-p', String(port), 'ping'])).stdout.trim() === 'PONG' ? true : undefined),
        10_000,
      );
    }
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      timeout: 30_000,
    });
    for (const port of ports) {
      await until(
        `cluster_state:ok on :${port}`,
        async () =>
          (await run('redis-cli', ['-p', String(port), 'cluster', 'info'])).stdout.includes('cluster_state:ok') ? true : undefined,
        20_000,
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { ports, url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, stop };
}
