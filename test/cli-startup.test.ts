// What the ops CLI loads and connects to before and while a command runs (CONVENTIONS.md, "A new
// CLI command"; rule 9): help and usage errors load no store client and connect to no store, a
// command that needs no store connects to none, and a command connects only to the stores it
// uses. Each store's URL points at a proxy of this test in front of the real store, which counts
// the connections made to it; report-modules.cjs lists the modules the child process loaded.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LIST_KINDS } from '../src/lists/list-values.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { testDeps, testEnv } from './support/test-deps.js';
import { startTcpFaultProxy, type TcpFaultProxy } from './support/tcp-fault-proxy.js';

const run = promisify(execFile);
// The store clients, by the folder of their package.
const STORE_CLIENTS = ['pg', 'ioredis', 'neo4j-driver', 'pg-boss'];

interface Stores {
  postgres: TcpFaultProxy;
  redis: TcpFaultProxy;
  neo4j: TcpFaultProxy;
}

const counts = (s: Stores) => ({ postgres: s.postgres.accepted, redis: s.redis.accepted, neo4j: s.neo4j.accepted });

describe('the CLI before a command runs', function () {
  this.timeout(60_000);
  let stores: Stores;
  let dir: string;

  beforeEach(async () => {
    const pg = new URL(testEnv.DATABASE_URL!);
    const redis = new URL(testEnv.REDIS_URL!);
    const neo4j = new URL(testEnv.NEO4J_URI ?? 'bolt://127.0.0.1:7687');
    stores = {
      postgres: await startTcpFaultProxy(Number(pg.port || 5432), pg.hostname),
      redis: await startTcpFaultProxy(Number(redis.port || 6379), redis.hostname),
      neo4j: await startTcpFaultProxy(Number(neo4j.port || 7687), neo4j.hostname),
    };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-cli-startup-'));
  });

  afterEach(async () => {
    await Promise.all(Object.values(stores).map((proxy) => proxy.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Runs `doorman ARGS` from the sources with every store behind its proxy; returns what it
  // printed, its status and the store clients it loaded.
  async function doorman(...args: string[]): Promise<{ stdout: string; stderr: string; code: number; clients: string[] }> {
    const file = path.join(dir, `${Date.now()}-${Math.random()}.json`);
    const pg = new URL(testEnv.DATABASE_URL!);
    pg.hostname = '127.0.0.1';
    pg.port = String(stores.postgres.port);
    const redis = new URL(testEnv.REDIS_URL!);
    redis.hostname = '127.0.0.1';
    redis.port = String(stores.redis.port);
    const { OTEL_EXPORTER_OTLP_ENDPOINT: _off, ...env } = testEnv;
    const answer = await run('node', ['bin/doorman.js', ...args], {
      env: {
        ...env,
        DOORMAN_FROM_SOURCE: '1',
        LOG_LEVEL: 'warn',
        DATABASE_URL: pg.href,
        DATABASE_DIRECT_URL: pg.href,
        REDIS_URL: redis.href,
        // bolt: a direct connection (neo4j: would be routed to the address the server names).
        NEO4J_URI: `bolt://127.0.0.1:${stores.neo4j.port}`,
        NODE_OPTIONS: `--require ${path.resolve('test/support/report-modules.cjs')}`,
        REPORT_MODULES_FILE: file,
      },
      timeout: 60_000,
    }).then(
      ({ stdout, stderr }) => ({ stdout, stderr, code: 0 }),
      (err: { stdout: string; stderr: string; code: number }) => ({ stdout: err.stdout, stderr: err.stderr, code: err.code }),
    );
    const loaded = JSON.parse(fs.readFileSync(file, 'utf8')) as string[];
    const clients = STORE_CLIENTS.filter((name) => loaded.some((p) => p.includes(`${path.sep}node_modules${path.sep}${name}${path.sep}`)));
    return { ...answer, clients };
  }

  it('answers help and usage errors without loading a store client or connecting to any store', async () => {
    const cases: [string[], number, RegExp][] = [
      [['--help'], 0, /^Usage: doorman \[options\] \[command\]/],
      [['key', 'create', '--help'], 0, /^Usage: doorman key create \[options\]/],
      [['help', 'policy'], 0, /^Usage: doorman policy \[options\] \[command\]/],
      [['--json', 'nosuch'], 2, /^error: unknown command 'nosuch'/],
      [['--json', 'key', 'create', '--tenant', 'ten_x', '--mode', 'test'], 2, /^error: required option '--kind <kind>' not specified/],
      // The choices offered are the lists room's kinds, every one.
      [
        ['list', 'add', '--tenant', 'ten_x', '--mode', 'live', '--list', 'block', '--kind', 'phone', '--value', 'v'],
        2,
        new RegExp(`^error: option '--kind <kind>' argument 'phone' is invalid\\. Allowed choices are ${LIST_KINDS.join(', ')}\\.`),
      ],
    ];
    for (const [args, code, said] of cases) {
      const r = await doorman(...args);
      const name = args.join(' ');
      expect(r.code, `${name}: ${r.stderr}`).to.equal(code);
      expect(code === 0 ? r.stdout : r.stderr, name).to.match(said);
      expect(r.clients, name).to.deep.equal([]);
      expect(counts(stores), name).to.deep.equal({ postgres: 0, redis: 0, neo4j: 0 });
    }
  });

  it('runs a command that needs no store without connecting to any', async () => {
    const version = await doorman('--json', 'version');
    expect(version.code).to.equal(0);
    expect(JSON.parse(version.stdout)).to.have.keys('doorman', 'node');
    const newKey = await doorman('--json', 'secrets', 'new-key');
    expect(Buffer.from((JSON.parse(newKey.stdout) as { key: string }).key, 'base64')).to.have.length(32);
    // A command run with the parts it names, none here: the configuration is read, no store met.
    const validate = await doorman('--json', 'policy', 'validate', path.join(dir, 'no-such-policy.json'));
    expect(validate.code).to.equal(1);
    expect(validate.stderr).to.match(/no-such-policy\.json cannot be read \(ENOENT\)/);
    for (const r of [version, newKey, validate]) expect(r.clients).to.deep.equal([]);
    expect(counts(stores)).to.deep.equal({ postgres: 0, redis: 0, neo4j: 0 });
  });

  it('creates a key through Postgres alone: no Redis client, Neo4j driver or job queue', async () => {
    const { tenantId } = await createTenant(testDeps().db, 'CLI startup');
    const r = await doorman('--json', 'key', 'create', '--tenant', tenantId, '--kind', 'secret', '--mode', 'test');
    expect(r.code, r.stderr).to.equal(0);
    expect(JSON.parse(r.stdout))
      .to.have.property('key')
      .that.matches(/^sk_test_/);
    expect(r.clients).to.deep.equal(['pg']);
    expect(stores.postgres.accepted).to.be.greaterThan(0);
    expect({ redis: stores.redis.accepted, neo4j: stores.neo4j.accepted }).to.deep.equal({ redis: 0, neo4j: 0 });
  });

  it('checks the graph through Neo4j alone', async () => {
    const r = await doorman('--json', 'graph', 'check');
    expect(r.stdout, r.stderr).to.not.equal('');
    expect(JSON.parse(r.stdout)).to.include.keys('ok', 'cross_scope_relationships');
    expect(r.clients).to.deep.equal(['neo4j-driver']);
    expect(stores.neo4j.accepted).to.be.greaterThan(0);
    expect({ postgres: stores.postgres.accepted, redis: stores.redis.accepted }).to.deep.equal({ postgres: 0, redis: 0 });
  });
});
