// The intel updater against a local stand-in speaking each publisher's real format (the fixtures of
// test/fixtures/intel/): what the lookups answer after an update, that the last good copy survives
// every bad answer (truncated JSON, an error page with status 200, a 500, a hang past the timeout,
// a body past the size cap, a list that shrank to a tenth), that an unchanged feed costs one 304,
// that two instances both reload on the announcement, and the CLI's --json. The feeds are global
// (not per tenant): every row this file writes is removed when it ends.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Deps } from '../../src/deps.js';
import { feedStates } from '../../src/intel/intel-feed-store.js';
import { intelStatus } from '../../src/intel/intel-status.js';
import { updateIntel, type SourceResult } from '../../src/intel/update-intel.js';
import { watchIntelReloads } from '../../src/signals/ip/intel-reload.js';
import { doorman } from '../support/cli-runner.js';
import { startHttpStandIn, type HttpStandIn, type StandInResponse } from '../support/http-stand-in.js';
import { until } from '../support/processes.js';
import { ownTestDeps, testDeps } from '../support/test-deps.js';

const fixture = (name: string) => fs.readFileSync(path.join('test', 'fixtures', 'intel', name), 'utf8');

// One source per format, each at a path of the stand-in.
const SOURCES = [
  { name: 'test_tor', category: 'tor_exit', format: 'ip_list', file: 'tor-bulk-exit-list.txt' },
  { name: 'test_aws', category: 'datacenter', format: 'aws_ip_ranges', file: 'aws-ip-ranges.json' },
  { name: 'test_gcp', category: 'datacenter', format: 'gcp_cloud_json', file: 'gcp-cloud.json' },
  { name: 'test_cloudflare_v4', category: 'datacenter', format: 'ip_list', file: 'cloudflare-ips-v4.txt' },
  { name: 'test_oracle', category: 'datacenter', format: 'oracle_public_ip_ranges', file: 'oracle-public-ip-ranges.json' },
  { name: 'test_digitalocean', category: 'datacenter', format: 'geofeed_csv', file: 'digitalocean-geofeed.csv' },
  { name: 'test_vpn', category: 'proxy', format: 'ip_list', file: 'vpn-cidr-list.txt' },
  { name: 'test_disposable', category: 'disposable_email', format: 'domain_list', file: 'disposable-email-blocklist.conf' },
  { name: 'test_rdap', category: 'rdap_bootstrap', format: 'rdap_bootstrap', file: 'rdap-dns.json' },
] as const;

const TIMEOUT_MS = 1500;
const MAX_BYTES = 1024 * 1024;

describe('intel update: public feeds fetched, checked and kept', () => {
  let feeds: HttpStandIn;
  // Per path, what the stand-in answers now (the fixture, with an ETag honoured, by default).
  const answers = new Map<string, () => StandInResponse>();
  let dir: string;
  let env: Record<string, string>;
  let deps: Deps;

  const byName = (results: SourceResult[], name: string) => results.find((r) => r.name === name)!;
  const served = (file: string, etag: string) => () => ({
    status: 200,
    headers: { etag, 'content-type': 'text/plain' },
    body: fixture(file),
  });

  before(async () => {
    feeds = await startHttpStandIn((req) => {
      const answer = answers.get(req.path.split('?')[0]!)?.() ?? { status: 404, body: 'no such feed' };
      const etag = answer.headers?.etag;
      if (answer.status === 200 && etag && req.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
      return answer;
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-intel-update-'));
    const sourcesFile = path.join(dir, 'sources.json');
    fs.writeFileSync(
      sourcesFile,
      JSON.stringify({
        defaults: false,
        sources: SOURCES.map((s) => ({
          name: s.name,
          category: s.category,
          format: s.format,
          url: `${feeds.url}/${s.name}`,
          every_hours: 1,
        })),
      }),
    );
    env = {
      INTEL_SOURCES: sourcesFile,
      INTEL_DIR: dir,
      INTEL_FETCH_TIMEOUT_MS: String(TIMEOUT_MS),
      INTEL_FETCH_MAX_BYTES: String(MAX_BYTES),
    };
    deps = testDeps(env);
  });

  beforeEach(() => {
    answers.clear();
    for (const s of SOURCES) answers.set(`/${s.name}`, served(s.file, `"${s.name}-1"`));
  });

  after(async () => {
    // The feeds are every tenant's: none of this file's may outlive it.
    await deps.db.query("DELETE FROM intel_feeds WHERE name LIKE 'test\\_%'");
    await feeds.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('fetches every format, stores each source, and the lookups answer from the feeds once reloaded', async () => {
    const { ok, sources } = await updateIntel(deps);
    expect(ok).to.equal(true);
    expect(sources.map((s) => [s.name, s.status, s.error])).to.deep.equal(SOURCES.map((s) => [s.name, 'updated', null]));
    for (const s of sources) {
      expect(s.entries, s.name).to.be.greaterThan(0);
      expect(Date.parse(s.fetched_at!), s.name).to.be.closeTo(Date.now(), 60_000);
    }
    expect(byName(sources, 'test_tor').entries).to.equal(fixture('tor-bulk-exit-list.txt').trim().split('\n').length);
    await deps.ipIntel.reload();
    await deps.intelFeeds.reload();
    expect(deps.ipIntel.lookup('198.51.100.77').tor_exit, 'an exit of the Tor list').to.equal(true);
    expect(deps.ipIntel.lookup('203.0.113.77').tor_exit, 'no exit').to.equal(false);
    const aws = JSON.parse(fixture('aws-ip-ranges.json')) as { prefixes: { ip_prefix: string }[] };
    const awsAddress = aws.prefixes[0]!.ip_prefix.split('/')[0]!;
    expect(deps.ipIntel.lookup(awsAddress).datacenter, `${awsAddress} of AWS's ranges`).to.equal(true);
    expect(deps.intelFeeds.disposableDomains().size).to.be.greaterThan(0);
    expect(deps.intelFeeds.rdapServers()?.size).to.be.greaterThan(0);
  });

  it('costs one 304 for an unchanged feed, sending back the ETag it was given', async () => {
    await updateIntel(deps, { only: ['test_tor'] });
    const before = feeds.requests.length;
    const { sources } = await updateIntel(deps, { only: ['test_tor'] });
    expect(sources[0]).to.include({ status: 'unchanged', error: null });
    const asked = feeds.requests.slice(before);
    expect(asked.map((r) => [r.path, r.headers['if-none-match']])).to.deep.equal([['/test_tor', '"test_tor-1"']]);
  });

  it('keeps the last good copy through every bad answer, and fails only the source that answered badly', async () => {
    await updateIntel(deps);
    const held = new Map((await feedStates(deps.db)).map((s) => [s.name, s]));
    const bad: Record<string, () => StandInResponse> = {
      test_aws: () => ({ status: 200, body: fixture('bad-truncated.json') }),
      test_gcp: () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: fixture('bad-html-error-page.html') }),
      test_oracle: () => ({ status: 500, body: 'upstream error' }),
      test_cloudflare_v4: () => ({ status: 200, delayMs: TIMEOUT_MS * 3, body: fixture('cloudflare-ips-v4.txt') }),
      test_digitalocean: () => ({ status: 200, body: `${fixture('digitalocean-geofeed.csv')}${'#'.repeat(MAX_BYTES)}\n` }),
      // A tenth of the list: one line of ten.
      test_vpn: () => ({ status: 200, body: `${fixture('vpn-cidr-list.txt').split('\n')[0]}\n` }),
    };
    for (const [name, answer] of Object.entries(bad)) answers.set(`/${name}`, answer);
    const started = Date.now();
    const { sources } = await updateIntel(deps);
    expect(Date.now() - started, 'the hang cut at its timeout').to.be.below(TIMEOUT_MS * 3);
    const failed = Object.fromEntries(sources.filter((s) => s.status === 'failed').map((s) => [s.name, s.error]));
    expect(Object.keys(failed).sort()).to.deep.equal(Object.keys(bad).sort());
    expect(failed.test_aws).to.match(/json/i);
    expect(failed.test_gcp).to.match(/html/i);
    expect(failed.test_oracle).to.equal('HTTP 500');
    expect(failed.test_cloudflare_v4).to.match(/no complete answer within 1500 ms/);
    expect(failed.test_digitalocean).to.match(/larger than 1048576 bytes/);
    expect(failed.test_vpn).to.match(/less than half/);
    // The others answered (unchanged: the same fixtures), and every list holds what it held.
    expect(sources.filter((s) => s.status !== 'failed').every((s) => s.status === 'unchanged')).to.equal(true);
    for (const state of await feedStates(deps.db)) {
      if (!state.name.startsWith('test_')) continue;
      const before = held.get(state.name)!;
      expect([state.name, state.entries, state.sha256]).to.deep.equal([state.name, before.entries, before.sha256]);
      if (state.name in bad) expect(state.lastError, state.name).to.equal(failed[state.name]);
    }
    await deps.ipIntel.reload();
    expect(deps.ipIntel.lookup('198.51.100.77').tor_exit).to.equal(true);
    // --force stores the shrunken list.
    const forced = await updateIntel(deps, { only: ['test_vpn'], force: true });
    expect(forced.sources[0]).to.include({ status: 'updated', entries: 1 });
  });

  it('refuses an answer that parses to nothing unless forced', async () => {
    await updateIntel(deps, { only: ['test_tor'] });
    answers.set('/test_tor', () => ({ status: 200, body: '# maintenance\n' }));
    const { sources } = await updateIntel(deps, { only: ['test_tor'] });
    expect(sources[0]!.status).to.equal('failed');
    expect(sources[0]!.error).to.match(/parses to no entry/);
    expect(sources[0]!.entries).to.be.greaterThan(0);
  });

  it('has every running instance reload once a feed changes, with no restart', async () => {
    const [a, b] = [testDeps(env), testDeps(env)];
    const watches = [watchIntelReloads(a), watchIntelReloads(b)];
    try {
      await Promise.all([a.warmup(), b.warmup()]);
      answers.set('/test_tor', () => ({
        status: 200,
        headers: { etag: '"tor-2"' },
        body: `${fixture('tor-bulk-exit-list.txt')}192.0.2.99\n`,
      }));
      expect(a.ipIntel.lookup('192.0.2.99').tor_exit).to.equal(false);
      const { sources } = await updateIntel(deps, { only: ['test_tor'] });
      expect(sources[0]!.status).to.equal('updated');
      for (const [name, instance] of [
        ['first', a],
        ['second', b],
      ] as const) {
        await until(
          `the ${name} instance reloads`,
          async () => (instance.ipIntel.lookup('192.0.2.99').tor_exit ? true : undefined),
          10_000,
        );
      }
    } finally {
      await Promise.all(watches.map((w) => w.close()));
    }
  });

  it('has an instance that starts listening after a change was announced catch up on it', async () => {
    // Warmed, then the feed changes before the instance LISTENs (an update while it starts): the
    // announcement reaches no one, and the first LISTEN must not trust warming's load.
    const late = ownTestDeps(env);
    await late.warmup();
    answers.set('/test_tor', () => ({
      status: 200,
      headers: { etag: '"tor-3"' },
      body: `${fixture('tor-bulk-exit-list.txt')}192.0.2.98\n`,
    }));
    const { sources } = await updateIntel(deps, { only: ['test_tor'] });
    expect(sources[0]!.status).to.equal('updated');
    expect(late.ipIntel.lookup('192.0.2.98').tor_exit, 'not before it listens').to.equal(false);
    const watch = watchIntelReloads(late);
    try {
      await until('the late instance catches up', async () => (late.ipIntel.lookup('192.0.2.98').tor_exit ? true : undefined), 10_000);
    } finally {
      await watch.close();
    }
  });

  it('forgets the copy of a source no longer configured, in a full update only', async () => {
    await updateIntel(deps);
    const fewer = path.join(dir, 'fewer.json');
    const kept = SOURCES.filter((s) => s.name !== 'test_vpn');
    fs.writeFileSync(
      fewer,
      JSON.stringify({
        defaults: false,
        sources: kept.map((s) => ({ name: s.name, category: s.category, format: s.format, url: `${feeds.url}/${s.name}`, every_hours: 1 })),
      }),
    );
    const narrowed = testDeps({ ...env, INTEL_SOURCES: fewer });
    await updateIntel(narrowed, { only: ['test_tor'] });
    expect((await feedStates(deps.db)).map((s) => s.name)).to.include('test_vpn');
    await updateIntel(narrowed);
    const names = (await feedStates(deps.db)).map((s) => s.name);
    expect(names).to.not.include('test_vpn');
    expect(names).to.include.members(kept.map((s) => s.name));
  });

  it('names an unknown source, and prints the contract JSON from the CLI, with the status after it', async () => {
    const unknown = await doorman(['--json', 'intel', 'update', '--source', 'nope'], env);
    expect(unknown.code).to.not.equal(0);
    expect(unknown.stdout).to.equal('');
    expect(unknown.stderr).to.match(/no source nope \(known: test_tor, /);
    const run = await doorman(['--json', 'intel', 'update', '--source', 'test_tor', '--source', 'test_aws'], env);
    expect(run.code, run.stderr).to.equal(0);
    const printed = JSON.parse(run.stdout) as { ok: boolean; sources: SourceResult[] };
    expect(printed.ok).to.equal(true);
    expect(printed.sources.map((s) => Object.keys(s).sort())).to.deep.equal(
      Array(2).fill(['category', 'entries', 'error', 'fetched_at', 'name', 'status']),
    );
    expect(printed.sources.map((s) => s.name)).to.deep.equal(['test_tor', 'test_aws']);
    const status = await doorman(['--json', 'intel', 'status'], env);
    expect(status.code, status.stderr).to.equal(0);
    const shown = JSON.parse(status.stdout) as Awaited<ReturnType<typeof intelStatus>>;
    const tor = shown.sources.find((s) => s.name === 'test_tor')!;
    expect(tor).to.include({ category: 'tor_exit', stale: false, last_error: null });
    expect(tor.age_seconds).to.be.at.least(0).and.below(600);
    expect(tor.entries).to.be.greaterThan(0);
  });
});
