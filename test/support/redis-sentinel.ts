// A real Sentinel setup for tests: one redis-server primary and one Sentinel watching it (as
// `mymaster`), on free loopback ports; stopped by their pids, the folder removed.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { stopChildren, until } from './processes.js';

const run = promisify(execFile);

export async function startRedisSentinel(): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-redis-sentinel-'));
  const [primary, sentinel] = [await freePort(), await freePort()];
  const conf = path.join(dir, 'sentinel.conf');
  // Sentinel rewrites its own file, so it gets one of its own.
  fs.writeFileSync(
    conf,
    [
      `port ${sentinel}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor mymaster 127.0.0.1 ${primary} 1`,
      'sentinel down-after-milliseconds mymaster 2000',
    ].join('\n'),
  );
  const children: ChildProcess[] = [
    spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(primary), '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    }),
    spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' }),
  ];
  const stop = () => stopChildren(children, dir);
  try {
    await until(
      'the sentinel to know its primary',
      async () => {
        const { stdout } = await run('redis-cli', ['-p', String(sentinel), 'sentinel', 'get-master-addr-by-name', 'mymaster']);
        return stdout.includes(String(primary)) ? true : undefined;
      },
      20_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `redis+sentinel://127.0.0.1:${sentinel}/mymaster/0`, stop };
}
