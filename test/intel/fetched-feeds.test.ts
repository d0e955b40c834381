// Each instance's copy of the fetched feeds: loaded from Postgres and kept on disk, atomically, in a
// folder of its database; and read from that copy when Postgres cannot be reached (a Postgres
// URL where nothing listens), so an instance starting while Postgres is away serves the last good
// data rather than none.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createFetchedFeeds, intelCopiesDir } from '../../src/intel/fetched-feeds.js';
import { recordChanged } from '../../src/intel/intel-feed-store.js';
import { freePort } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';

describe('the fetched feeds, as each instance holds them', () => {
  const deps = testDeps();
  const logger = pino({ level: 'silent' });
  let dir: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-fetched-'));
    const at = new Date();
    const feed = (name: string, category: string, body: string) =>
      recordChanged(
        deps.db,
        { name, category, url: 'https://feeds.invalid/' },
        { body, entries: 1, sha256: name, etag: null, lastModified: null },
        at,
      );
    await feed('test_held_tor', 'tor_exit', '100.64.250.1\n');
    await feed('test_held_disposable', 'disposable_email', 'held-throwaway.test\n');
    await feed('test_held_rdap', 'rdap_bootstrap', 'heldtld https://rdap.held.invalid\n');
  });

  after(async () => {
    await deps.db.query("DELETE FROM intel_feeds WHERE name LIKE 'test\\_held\\_%'");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a copy per database, and serves it when Postgres is out of reach', async () => {
    const copies = intelCopiesDir(dir, deps.config.databaseUrl);
    expect(path.relative(dir, copies)).to.equal(path.join('fetched', new URL(deps.config.databaseUrl).pathname.slice(1)));
    const online = createFetchedFeeds({ db: deps.db, copies, logger });
    await online.reload();
    const tor = online.ipSources().find((s) => s.category === 'tor_exit')!;
    expect(await tor.read()).to.include('100.64.250.1');
    expect(online.disposableDomains().has('held-throwaway.test')).to.equal(true);
    expect(online.rdapServers()?.get('heldtld')).to.equal('https://rdap.held.invalid');
    expect(fs.readFileSync(path.join(copies, 'tor_exit.txt'), 'utf8')).to.include('100.64.250.1');
    expect(
      fs.readdirSync(copies).filter((f) => f.endsWith('.tmp')),
      'no temporary file left',
    ).to.deep.equal([]);

    const away = new pg.Pool({ connectionString: `postgres://127.0.0.1:${await freePort()}/nowhere`, connectionTimeoutMillis: 1000 });
    try {
      const offline = createFetchedFeeds({ db: away, copies, logger });
      await offline.reload();
      const fromCopy = offline.ipSources().find((s) => s.category === 'tor_exit')!;
      expect(await fromCopy.read()).to.include('100.64.250.1');
      expect(offline.disposableDomains().has('held-throwaway.test')).to.equal(true);
      expect(offline.rdapServers()?.get('heldtld')).to.equal('https://rdap.held.invalid');
    } finally {
      await away.end();
    }
  });

  it('holds nothing, and fails no load, when neither Postgres nor a copy is there', async () => {
    const away = new pg.Pool({ connectionString: `postgres://127.0.0.1:${await freePort()}/nowhere`, connectionTimeoutMillis: 1000 });
    try {
      const fresh = createFetchedFeeds({ db: away, copies: path.join(dir, 'never-written'), logger });
      await fresh.reload();
      expect(fresh.disposableDomains().size).to.equal(0);
      expect(fresh.rdapServers()).to.equal(undefined);
      expect(await fresh.ipSources()[0]!.read()).to.equal('');
    } finally {
      await away.end();
    }
  });
});
