// Keeps the rooms honest: the engine stays pure, configuration has one reader, only src/graph/
// writes the graph outbox and Neo4j, every table is written by its owner's store (lifecycle/
// excepted, as listed), src/ has no import cycle between files or rooms and only the composition
// root takes Deps, every Cypher statement is scoped to a tenant and
// mode, migrations are numbered in order, nothing refers to a file outside the repository, and the
// mutation sandbox leaves out every ignored folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const walk = (dir: string, ext: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full, ext) : full.endsWith(ext) ? [full] : [];
  });

// Every table and the one store that writes it (CONVENTIONS.md rule 14).
const OWNERS: Record<string, string> = {
  tenants: 'src/tenants/key-store.ts',
  api_keys: 'src/tenants/key-store.ts',
  service_secrets: 'src/devices/service-secret-store.ts',
  device_signing_keys: 'src/devices/device-key-store.ts',
  events: 'src/events/event-store.ts',
  idempotency_keys: 'src/verdicts/idempotency-store.ts',
  reviews: 'src/reviews/review-store.ts',
  list_entries: 'src/lists/list-store.ts',
  feedback: 'src/feedback/feedback-store.ts',
  graph_outbox: 'src/graph/graph-outbox-store.ts',
  graph_applied_links: 'src/graph/graph-outbox-store.ts',
  graph_lane_epochs: 'src/graph/lane-store.ts',
  webhook_endpoints: 'src/webhooks/webhook-store.ts',
  webhook_secrets: 'src/webhooks/webhook-store.ts',
  webhook_deliveries: 'src/webhooks/webhook-store.ts',
  webhook_attempts: 'src/webhooks/webhook-store.ts',
  analysts: 'src/console/auth/analyst-store.ts',
  analyst_sessions: 'src/console/auth/analyst-store.ts',
  analyst_sign_in_links: 'src/console/auth/analyst-store.ts',
  console_audit: 'src/audit/audit-store.ts',
  policy_versions: 'src/policies/documents/policy-store.ts',
  policy_shadows: 'src/policies/documents/policy-store.ts',
  policy_backtests: 'src/policies/backtests/backtest-store.ts',
  policy_backtest_flips: 'src/policies/backtests/backtest-store.ts',
  shadow_decisions: 'src/policies/shadows/shadow-store.ts',
  secret_data_keys: 'src/vault/data-key-store.ts',
  erasures: 'src/lifecycle/erasure-store.ts',
  tenant_queries: 'src/graph-queries/tenant-query-store.ts',
  graph_query_settings: 'src/graph-queries/tenant-query-store.ts',
  intel_feeds: 'src/intel/intel-feed-store.ts',
};
// The one sanctioned exception: retention and erasure remove or clear a person's data across the
// tables that hold it, inside their own transactions (never graph_outbox: that is the graph's).
const LIFECYCLE_WRITES: Record<string, string[]> = {
  'src/lifecycle/retention-store.ts': ['events', 'feedback'],
  'src/lifecycle/erasure-store.ts': [
    'events',
    'reviews',
    'idempotency_keys',
    'feedback',
    'list_entries',
    'webhook_deliveries',
    'webhook_attempts',
  ],
};

// SQL write statements in a file's text: the table each INSERT, UPDATE, DELETE or TRUNCATE names.
const writtenTables = (text: string): string[] =>
  [...text.matchAll(/\b(?:INSERT\s+INTO|(?<!DO\s)UPDATE|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+([a-z_]+)\b/g)]
    .map((m) => m[1]!)
    .filter((t) => t !== 'of' && t !== 'set');

// Cypher files that write (a clause that creates, changes or removes), by catalog name.
const writingCypher = (): string[] =>
  walk('cypher', '.cypher')
    .filter((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => !l.trimStart().startsWith('//'))
        .some((l) => /\b(CREATE|MERGE|SET|DELETE|REMOVE)\b/.test(l)),
    )
    .map((f) => path.relative('cypher', f).replace(/\.cypher$/, ''));

interface ImportGraph {
  files: number;
  rooms: number;
  cycles: string[][];
  room_cycles: string[][];
  upward_imports: { from: string; to: string }[];
  upward_import_count: number;
}
const importGraph = (root: string): ImportGraph =>
  JSON.parse(execFileSync('node', ['scripts/import-graph.mjs', '--json', '--root', root], { encoding: 'utf8' })) as ImportGraph;
// Imports that point back up, each named in CONVENTIONS.md with its reason (rule 15): none.
const UPWARD_IMPORTS_ALLOWED: string[] = [];

describe('architecture', () => {
  it('lets only src/graph/ write the graph outbox and Neo4j (rule 13)', () => {
    const writers = writingCypher();
    expect(writers, "the writer's statements are found").to.include.members([
      'graph/apply-links',
      'graph/apply-marks',
      'graph/delete-scope-batch',
      'writer/fence-lane',
    ]);
    const problems: string[] = [];
    for (const file of walk('src', '.ts').filter((f) => !f.startsWith(path.join('src', 'graph') + path.sep))) {
      const text = fs.readFileSync(file, 'utf8');
      if (writtenTables(text).includes('graph_outbox')) problems.push(`${file} writes graph_outbox`);
      for (const m of text.matchAll(/cypher\.get\('([^']+)'\)/g))
        if (writers.includes(m[1]!)) problems.push(`${file} runs ${m[1]}, which writes`);
      if (/\.executeWrite\(|session\.WRITE|routing\.WRITE/.test(text)) problems.push(`${file} opens a write transaction on Neo4j`);
      for (const m of text.matchAll(/executeQuery\(\s*['`]([^'`]*)['`]/g))
        if (/\b(CREATE|MERGE|SET|DELETE|REMOVE)\b/i.test(m[1]!)) problems.push(`${file} writes Cypher inline`);
    }
    expect(problems).to.deep.equal([]);
  });

  it("writes each table only in its owner's store, lifecycle/ being the one listed exception (rule 14)", () => {
    const tables = [
      ...new Set(
        walk('migrations', '.sql').flatMap((f) =>
          [...fs.readFileSync(f, 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)].map((m) => m[1]!),
        ),
      ),
    ].filter((t) => !['pgmigrations'].includes(t));
    const dropped = walk('migrations', '.sql').flatMap((f) =>
      [
        ...fs
          .readFileSync(f, 'utf8')
          .split('-- Down Migration')[0]!
          .matchAll(/DROP TABLE (?:IF EXISTS )?([a-z_]+)/g),
      ].map((m) => m[1]!),
    );
    expect(Object.keys(OWNERS).sort(), 'every table has an owner').to.deep.equal(tables.filter((t) => !dropped.includes(t)).sort());
    const problems: string[] = [];
    for (const file of walk('src', '.ts')) {
      for (const table of writtenTables(fs.readFileSync(file, 'utf8'))) {
        const owner = OWNERS[table];
        if (owner === undefined) problems.push(`${file} writes ${table}, a table no migration creates`);
        else if (owner !== file && !LIFECYCLE_WRITES[file]?.includes(table))
          problems.push(`${file} writes ${table}, whose owner is ${owner}`);
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it('has no import cycle in src/, between files or between rooms, and no import back up (rule 15)', () => {
    const report = importGraph('src');
    expect(report.files).to.be.greaterThan(150);
    expect(report.rooms, 'top-level files count as rooms').to.be.greaterThan(30);
    expect(report.cycles).to.deep.equal([]);
    expect(report.room_cycles).to.deep.equal([]);
    expect(report.upward_imports.map((u) => `${u.from} -> ${u.to}`)).to.deep.equal(UPWARD_IMPORTS_ALLOWED);
  });

  it('sees a room cycle and an import back up where one is planted', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-rooms-'));
    try {
      const write = (file: string, text: string) => {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), text);
      };
      // A top-level file and two rooms: no file imports itself back, however indirectly, but
      // alpha's a imports beta's b while beta's b2 imports alpha's a2 (a type-only import counts).
      write('deps.ts', "import { a } from './alpha/a.js';\nexport const deps = { a };\n");
      write('alpha/a.ts', "import { b } from '../beta/b.js';\nexport const a = b + 1;\n");
      write('alpha/a2.ts', 'export type A2 = number;\n');
      write('beta/b.ts', 'export const b = 1;\n');
      write('beta/b2.ts', "import type { A2 } from '../alpha/a2.js';\nexport const b2: A2 = 2;\n");
      const report = importGraph(dir);
      expect(report.cycles, 'no file cycle').to.deep.equal([]);
      expect(report.room_cycles).to.deep.equal([['alpha', 'beta']]);
      expect(report.upward_import_count).to.equal(1);
      const check = spawnSync('node', ['scripts/import-graph.mjs', '--check', '--root', dir], { encoding: 'utf8' });
      expect(check.status, 'import-graph --check fails on a room cycle').to.equal(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets only the composition root and the CLI take Deps: every room declares its own ports (rule 9)', () => {
    const root = ['src/deps.ts', 'src/partial-deps.ts', 'src/app.ts', 'src/server.ts', 'src/start-workers.ts'].map((f) =>
      path.normalize(f),
    );
    const importers = walk('src', '.ts')
      .filter((f) =>
        /from '(?:\.{1,2}\/)+(?:deps|partial-deps)\.js'|import\('(?:\.{1,2}\/)+(?:deps|partial-deps)\.js'\)/.test(
          fs.readFileSync(f, 'utf8'),
        ),
      )
      .filter((f) => !root.includes(f) && !f.startsWith(path.join('src', 'cli') + path.sep));
    expect(importers).to.deep.equal([]);
  });

  it('keeps the engine pure: it imports nothing from outside src/engine', () => {
    for (const file of walk('src/engine', '.ts')) {
      const imports = [...fs.readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      for (const spec of imports) {
        const target = path.resolve(path.dirname(file), spec);
        expect(spec.startsWith('.') && target.startsWith(path.resolve('src/engine')), `${file} imports ${spec}`).to.equal(true);
      }
    }
  });

  it('reads process.env only in src/config.ts', () => {
    const readers = walk('src', '.ts').filter((f) => fs.readFileSync(f, 'utf8').includes('process.env'));
    expect(readers).to.deep.equal([path.join('src', 'config.ts')]);
  });

  it('scopes every Cypher statement to a tenant and a mode', () => {
    for (const file of [...walk('cypher/graph', '.cypher'), ...walk('cypher/analyst', '.cypher'), ...walk('cypher/console', '.cypher')]) {
      const text = fs.readFileSync(file, 'utf8');
      // Every node looked up or created by its properties names its tenant and mode: from the
      // statement's parameters (or a map parameter's: $read.tenantId), or from each row of a batch
      // (UNWIND $links AS l: l.tenantId).
      const patterns = [...text.matchAll(/\(\w*:\w+ \{([^}]*)\}/g)];
      expect(patterns.length, `${file} looks nodes up by property`).to.be.greaterThan(0);
      for (const [pattern, props] of patterns) {
        expect(props, `${file}: ${pattern}`).to.match(/tenantId: (\$tenantId|\$?\w+\.tenantId)/);
        expect(props, `${file}: ${pattern}`).to.match(/mode: (\$mode|\$?\w+\.mode)/);
      }
      expect(text.split('\n')[0], `${file} opens with a header comment`).to.match(/^\/\/ /);
    }
  });

  it('numbers migrations in order, each with an up and a down section', () => {
    const names = fs.readdirSync('migrations').filter((n) => n.endsWith('.sql'));
    names.forEach((name, i) => {
      expect(name, 'numbered 0001_…').to.match(new RegExp(`^${String(i + 1).padStart(4, '0')}_[a-z0-9-]+\\.sql$`));
      const text = fs.readFileSync(path.join('migrations', name), 'utf8');
      expect(text).to.match(/-- Up Migration/);
      expect(text).to.match(/-- Down Migration/);
    });
  });

  it('refers to nothing outside the repository: no path that climbs out of it, no outside document', () => {
    const root = path.resolve('.');
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
      .split('\0')
      .filter((f) => f && fs.existsSync(f) && !/(^|\/)package-lock\.json$|\.(png|svg|ico|woff2?|gz)$/.test(f));
    expect(files.length).to.be.greaterThan(100);
    // Documents of the workplace around the repository, named in ways a clone cannot follow.
    const outside = [/\b(?:design|spec|shared)\/[\w.-]+\.md\b/, /\bhouse (?:rule|style)\b/i, /(?:^|[\s'"`(])\/work\//];
    const problems: string[] = [];
    for (const file of files) {
      if (file === path.join('test', 'architecture.test.ts')) continue;
      const text = fs.readFileSync(file, 'utf8');
      text.split('\n').forEach((line, i) => {
        for (const climb of line.matchAll(/(?:\.\.\/)+[\w.-]+/g)) {
          const target = path.resolve(path.dirname(file), climb[0]);
          if (!`${target}/`.startsWith(`${root}/`)) problems.push(`${file}:${i + 1}: ${climb[0]} leaves the repository`);
        }
        for (const pattern of outside) if (pattern.test(line)) problems.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
        // A Markdown document named in prose (a document, or a comment in code) is one of ours.
        const prose = file.endsWith('.md') ? line : (/(?:^|\s)(?:\/\/|#|--|\*)\s?(.*)$/.exec(line)?.[1] ?? '');
        for (const doc of prose.matchAll(/[\w./-]*\b[\w-]+\.md\b/g)) {
          const name = doc[0].replace(/^\.\//, '');
          if (!files.some((f) => f === name || f.endsWith(`/${name}`) || path.basename(f) === path.basename(name)))
            problems.push(`${file}:${i + 1}: names ${name}, which is not in the repository`);
        }
      });
    }
    expect(problems).to.deep.equal([]);
  });

  it('leaves every ignored folder out of the mutation sandbox (Stryker copies the checkout)', async () => {
    const { default: stryker } = (await import(path.resolve('stryker.config.mjs'))) as { default: { ignorePatterns: string[] } };
    const ignored = fs
      .readFileSync('.gitignore', 'utf8')
      .split('\n')
      .map((l) => l.trim().replace(/^\/|\/$/g, ''))
      .filter((l) => l && !l.startsWith('#') && l !== 'node_modules');
    expect(ignored).to.include.members(['.venv', '.stack', 'dist']);
    expect(stryker.ignorePatterns).to.include.members(ignored);
    // What the scripts have created in this checkout so far is ignored, hence left out.
    const present = execFileSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((p) => p.replace(/\/$/, '').split('/')[0]!)
      .filter((p) => p !== 'node_modules' && !p.startsWith('clients'));
    const covered = (p: string) =>
      stryker.ignorePatterns.some((pattern) => pattern === p || (pattern.startsWith('*') && p.endsWith(pattern.slice(1))));
    expect([...new Set(present)].filter((p) => !covered(p))).to.deep.equal([]);
  });
});
