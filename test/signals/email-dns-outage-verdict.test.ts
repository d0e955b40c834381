// A resolver outage in a verdict: the email's MX is a missing `dns` signal (partial_enrichment, or
// timeout_failopen when DNS ran late, with `sources: dns`, which the client reads as `degraded`),
// never invalid_mx, and /metrics counts it in doorman_dns_lookup_failures_total by reason.
import { expect } from 'chai';
import type { Deps } from '../../src/deps.js';
import type { DnsFailure } from '../../src/signals/email/dns-lookup-error.js';
import { startDnsStandIn, type DnsStandIn } from '../support/dns-stand-in.js';
import { aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

async function dnsFailures(deps: Deps, reason: DnsFailure): Promise<number> {
  const counter = deps.metrics.registry.getSingleMetric('doorman_dns_lookup_failures_total');
  const values = (await counter?.get())?.values ?? [];
  return values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

// A signup's reasons, and how much the counter of `reason` grew with it.
async function judged(h: Harness, email: string, reason: DnsFailure) {
  const before = await dnsFailures(h.deps, reason);
  const res = await h.verdict(aSignup({ email }));
  expect(res.status).to.equal(200);
  return { verdict: res.body.verdict, reasons: res.body.reasons, counted: (await dnsFailures(h.deps, reason)) - before };
}

const missingDns = (code: 'partial_enrichment' | 'timeout_failopen') => [{ code, detail: { sources: 'dns' } }];

describe('a verdict when DNS gives no answer', function () {
  this.timeout(30_000);
  const servers: DnsStandIn[] = [];
  // DNS_TIMEOUT_MS well above a loaded machine's loopback round trip, below the harness's deadline.
  const harnessAt = async (dns: DnsStandIn) => verdictHarness({ DNS_SERVERS: dns.server, DNS_TIMEOUT_MS: '500' });

  after(async () => {
    await Promise.all(servers.map((dns) => dns.close()));
  });

  let h: Harness;
  before(async () => {
    const dns = await startDnsStandIn({
      'servfail-corp.com': { fail: 'SERVFAIL' },
      'refused-corp.com': { fail: 'REFUSED' },
      'silent-corp.com': { fail: 'silent' },
      'no-address-corp.com': { fail: { A: 'SERVFAIL', AAAA: 'SERVFAIL' } },
    });
    servers.push(dns);
    h = await harnessAt(dns);
  });

  const cases: Array<[string, string, 'partial_enrichment' | 'timeout_failopen', DnsFailure]> = [
    ['SERVFAIL', 'servfail-corp.com', 'partial_enrichment', 'servfail'],
    ['REFUSED', 'refused-corp.com', 'partial_enrichment', 'refused'],
    ['no answer at all', 'silent-corp.com', 'timeout_failopen', 'timeout'],
    ['no MX and a failed A/AAAA fallback', 'no-address-corp.com', 'partial_enrichment', 'servfail'],
  ];
  for (const [what, domain, code, reason] of cases) {
    it(`allows with ${code} (dns) and counts ${reason} on ${what}`, async () => {
      expect(await judged(h, `jane@${domain}`, reason)).to.deep.equal({ verdict: 'allow', reasons: missingDns(code), counted: 1 });
    });
  }

  it('allows with partial_enrichment (dns) and counts unreachable when nothing listens at DNS_SERVERS', async () => {
    const closed = await startDnsStandIn({});
    await closed.close();
    const outage = await harnessAt(closed);
    expect(await judged(outage, 'jane@gmail.com', 'unreachable')).to.deep.equal({
      verdict: 'allow',
      reasons: missingDns('partial_enrichment'),
      counted: 1,
    });
  });

  it('does not review gmail.com and example.org as invalid_mx when the resolver denies every name', async () => {
    // The reported machine: its resolver answered NXDOMAIN for every name, the top-level domains included.
    const dns = await startDnsStandIn({ com: { fail: 'NXDOMAIN' }, org: { fail: 'NXDOMAIN' } });
    servers.push(dns);
    const denying = await harnessAt(dns);
    for (const email of ['jane@gmail.com', 'jane@example.org']) {
      expect(await judged(denying, email, 'tld_missing')).to.deep.equal({
        verdict: 'allow',
        reasons: missingDns('partial_enrichment'),
        counted: 1,
      });
    }
  });
});
