// A real PgBouncer (Debian's package) in transaction mode in front of the test Postgres, on a
// free loopback port, trusting the test role; its admin console answers SHOW STATS. PgBouncer
// refuses to run as root, so under root it runs as `nobody`. Stopped by its pid.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';
import { until } from './processes.js';

const run = promisify(execFile);

export interface PgBouncer {
  // DATABASE_URL through PgBouncer for the given direct URL.
  url(direct: string): string;
  stop(): Promise<void>;
}

export async function pgbouncerAvailable(): Promise<boolean> {
  return run('pgbouncer', ['--version']).then(
    () => true,
    () => false,
  );
}

export async function startPgBouncer(direct: string): Promise<PgBouncer> {
  const target = new URL(direct);
  const user = decodeURIComponent(target.username);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-pgbouncer-'));
  fs.writeFileSync(path.join(dir, 'users.txt'), `"${user}" ""\n`);
  fs.writeFileSync(
    path.join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `admin_users = ${user}`,
      'pool_mode = transaction',
      'max_client_conn = 200',
      'default_pool_size = 8',
      `logfile = ${path.join(dir, 'pgbouncer.log')}`,
    ].join('\n'),
  );
  // Under root PgBouncer runs as nobody, which must write its log here.
  fs.chmodSync(dir, 0o777);
  const asRoot = process.getuid?.() === 0;
  const child = spawn(
    asRoot ? 'runuser' : 'pgbouncer',
    [...(asRoot ? ['-u', 'nobody', '--', 'pgbouncer'] : []), path.join(dir, 'pgbouncer.ini')],
    { stdio: 'ignore' },
  );
  const url = (d: string) => {
    const u = new URL(d);
    u.hostname = '127.0.0.1';
    u.port = String(port);
    return u.toString();
  };
  await until(
    `pgbouncer on :${port}`,
    async () => ((await run('psql', [url(direct), '-Atc', 'SELECT 1'])).stdout.trim() === '1' ? true : undefined),
    15_000,
  );
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(child.pid!, 'SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Transactions PgBouncer has carried for a database (its admin console's SHOW STATS).
export async function transactionsThrough(bouncer: PgBouncer, direct: string, database: string): Promise<number> {
  const admin = new URL(bouncer.url(direct));
  admin.pathname = '/pgbouncer';
  const { stdout } = await run('psql', [admin.toString(), '-AtF', '\t', '-c', 'SHOW STATS']);
  const row = stdout
    .split('\n')
    .map((l) => l.split('\t'))
    .find((cols) => cols[0] === database);
  return Number(row?.[1] ?? 0);
}
