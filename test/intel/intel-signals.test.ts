// The fetched feeds reach the verdict with no restart: an address in a fetched Tor list gets
// tor_exit, one in a fetched AWS range datacenter_ip, a domain whose RDAP registration (found
// through a fetched bootstrap registry) is 3 days old young_domain, and a domain of the fetched
// disposable list disposable_email unless the tenant allow-lists it. And a machine that reaches no
// feed still comes up and serves: one warning per source, /health 200, `intel status` says stale.
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Deps } from '../../src/deps.js';
import { updateIntel } from '../../src/intel/update-intel.js';
import { changeList } from '../../src/lists/manage-lists.js';
import { watchIntelReloads } from '../../src/signals/ip/intel-reload.js';
import { bearer } from '../support/fixtures.js';
import { doorman } from '../support/cli-runner.js';
import { startHttpStandIn, type HttpStandIn } from '../support/http-stand-in.js';
import { freePort, startServer, startWorker, until } from '../support/processes.js';
import { codes, DOMAINS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { testDeps } from '../support/test-deps.js';
import request from 'supertest';

const TOR_EXIT = '100.64.200.9';
const AWS_ADDRESS = '100.65.7.7';
// In the package's disposable list neither; in the fetched one.
const FETCHED_DISPOSABLE = 'throwaway-inbox.com';

describe('intel feeds in the verdict, with no restart', () => {
  let feeds: HttpStandIn;
  let rdap: HttpStandIn;
  let dir: string;
  let h: Harness;
  let watch: { close(): Promise<void> };

  before(async () => {
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString();
    rdap = await startHttpStandIn((req) =>
      req.path === `/rdap/domain/${DOMAINS.young}`
        ? { status: 200, body: { objectClassName: 'domain', events: [{ eventAction: 'registration', eventDate: threeDaysAgo }] } }
        : { status: 404, body: { errorCode: 404 } },
    );
    feeds = await startHttpStandIn((req) => {
      switch (req.path) {
        case '/tor':
          return { status: 200, body: `${TOR_EXIT}\n` };
        case '/aws':
          return {
            status: 200,
            body: {
              syncToken: '1764000000',
              createDate: '2026-11-24-12-00-00',
              prefixes: [{ ip_prefix: '100.65.0.0/16', region: 'eu-west-1', service: 'EC2', network_border_group: 'eu-west-1' }],
              ipv6_prefixes: [],
            },
          };
        case '/disposable':
          return { status: 200, body: `${FETCHED_DISPOSABLE}\n` };
        case '/rdap-dns':
          return {
            status: 200,
            body: {
              version: '1.0',
              publication: '2026-11-24T00:00:00Z',
              description: 'test',
              services: [[['com'], [`${rdap.url}/rdap/`]]],
            },
          };
        default:
          return { status: 404, body: 'no such feed' };
      }
    });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-intel-signals-'));
    const sourcesFile = path.join(dir, 'sources.json');
    const source = (name: string, category: string, format: string, p: string) => ({ name, category, format, url: `${feeds.url}${p}` });
    fs.writeFileSync(
      sourcesFile,
      JSON.stringify({
        defaults: false,
        sources: [
          source('test_sig_tor', 'tor_exit', 'ip_list', '/tor'),
          source('test_sig_aws', 'datacenter', 'aws_ip_ranges', '/aws'),
          source('test_sig_disposable', 'disposable_email', 'domain_list', '/disposable'),
          source('test_sig_rdap', 'rdap_bootstrap', 'rdap_bootstrap', '/rdap-dns'),
        ],
      }),
    );
    // No RDAP_BASE_URL: the servers come from the fetched bootstrap registry.
    h = await verdictHarness({ INTEL_SOURCES: sourcesFile, RDAP_BASE_URL: '' });
    watch = watchIntelReloads(h.deps);
  });

  after(async () => {
    await watch.close();
    await h.deps.db.query("DELETE FROM intel_feeds WHERE name LIKE 'test\\_sig\\_%'");
    await Promise.all([feeds.close(), rdap.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const signup = (ip: string, email = `someone.${Date.now()}@${DOMAINS.good}`) => h.verdict({ event_type: 'signup', email, ip });

  it('flags what the fetched feeds name once they are fetched, and not before', async () => {
    const before = await Promise.all([signup(TOR_EXIT), signup(AWS_ADDRESS), signup('100.64.10.2', `new@${DOMAINS.young}`)]);
    expect(before.map(codes)).to.deep.equal([[], [], []]);
    const { sources } = await updateIntel(h.deps);
    expect(sources.map((s) => s.status)).to.deep.equal(['updated', 'updated', 'updated', 'updated']);
    const deps: Deps = h.deps;
    await until(
      'the instance reloads',
      async () => (deps.ipIntel.lookup(TOR_EXIT).tor_exit && deps.intelFeeds.rdapServers() ? true : undefined),
      // Inside the test's own 20 s, so a wait that ends says what it waited for.
      10_000,
    );
    const tor = await signup(TOR_EXIT);
    expect(codes(tor)).to.include('tor_exit');
    const aws = await signup(AWS_ADDRESS);
    expect(codes(aws)).to.include('datacenter_ip');
    const young = await signup('100.64.10.2', `new.${Date.now()}@${DOMAINS.young}`);
    expect(codes(young)).to.include('young_domain');
    expect(young.body.reasons.find((r: { code: string }) => r.code === 'young_domain').detail).to.include({ age_days: 3 });
    expect(rdap.requests.map((r) => r.path)).to.include(`/rdap/domain/${DOMAINS.young}`);
  });

  it('flags a domain of the fetched disposable list, unless the tenant allow-lists it', async () => {
    await updateIntel(h.deps, { only: ['test_sig_disposable'] });
    await h.deps.intelFeeds.reload();
    const flagged = await signup('100.64.10.3', `someone@${FETCHED_DISPOSABLE}`);
    expect(codes(flagged)).to.include('disposable_email');
    await changeList(
      h.deps.db,
      { tenantId: h.tenant.tenantId, mode: 'test' },
      { action: 'add', list: 'allow', kind: 'email_domain', value: FETCHED_DISPOSABLE },
    );
    await until('the allow-list entry is in memory', async () => {
      const res = await signup('100.64.10.3', `other.${Date.now()}@${FETCHED_DISPOSABLE}`);
      return codes(res).includes('disposable_email') ? undefined : res;
    });
  });

  it('reports a top-level domain without an RDAP server as a missing rdap signal', async () => {
    // The fetched bootstrap names .com only.
    const res = await request(h.app)
      .post('/v1/verdict')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ event_type: 'signup', email: `someone@example.org`, ip: '100.64.10.4' });
    expect(res.status).to.equal(200);
    const partial = res.body.reasons.find((r: { code: string }) => r.code === 'partial_enrichment');
    expect(partial?.detail?.sources).to.include('rdap');
  });
});

describe('intel feeds out of reach', function () {
  // A server, a worker and the CLI start, and the wait for the warnings allows 45 s.
  this.timeout(90_000);

  it('leaves a starting instance serving the shipped data: one warning per source, /health 200, and stale in intel status', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-intel-offline-'));
    const [closedA, closedB] = [await freePort(), await freePort()];
    const sourcesFile = path.join(dir, 'sources.json');
    fs.writeFileSync(
      sourcesFile,
      JSON.stringify({
        defaults: false,
        sources: [
          { name: 'test_off_tor', category: 'tor_exit', format: 'ip_list', url: `http://127.0.0.1:${closedA}/tor` },
          { name: 'test_off_aws', category: 'datacenter', format: 'aws_ip_ranges', url: `http://127.0.0.1:${closedB}/aws` },
        ],
      }),
    );
    const env = { INTEL_SOURCES: sourcesFile, INTEL_UPDATE_CRON: '7 * * * *', INTEL_FETCH_TIMEOUT_MS: '2000' };
    const log = path.join(dir, 'worker.log');
    const server = await startServer(env);
    const worker = startWorker(env, log);
    try {
      const warnings = await until(
        'a warning per unreachable source',
        async () => {
          const lines = fs.existsSync(log)
            ? fs
                .readFileSync(log, 'utf8')
                .split('\n')
                .filter((l) => l.includes('intel feed not updated'))
            : [];
          return lines.length >= 2 ? lines : undefined;
        },
        45_000,
      );
      expect(warnings.map((l) => (JSON.parse(l) as { source: string }).source).sort()).to.deep.equal(['test_off_aws', 'test_off_tor']);
      expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).to.equal(200);
      const status = await doorman(['--json', 'intel', 'status'], env);
      const shown = (JSON.parse(status.stdout) as { sources: { name: string; stale: boolean; last_error: string | null }[] }).sources;
      expect(shown.map((s) => [s.name, s.stale, s.last_error !== null])).to.deep.equal([
        ['test_off_tor', true, true],
        ['test_off_aws', true, true],
      ]);
    } finally {
      await Promise.all([worker.stop(), server.stop()]);
      await testDeps().db.query("DELETE FROM intel_feeds WHERE name LIKE 'test\\_off\\_%'");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
