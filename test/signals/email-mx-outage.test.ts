// The MX checker when DNS gives no answer: a server that fails (SERVFAIL, REFUSED), never answers,
// fails only the A/AAAA fallback, or is not there, and a resolver that denies every name (as one cut
// off from the internet may). Each is a missing signal with its reason, never `no_mx`; real negative
// answers still are `no_mx`. Against real DNS servers on 127.0.0.1 (test/support/dns-stand-in.ts).
import { expect } from 'chai';
import type { DnsFailure, DnsLookupError } from '../../src/signals/email/dns-lookup-error.js';
import { LookupError } from '../../src/signals/email/lookup-error.js';
import { createMxChecker } from '../../src/signals/email/mx-checker.js';
import { startDnsStandIn, type DnsStandIn, type StandInZone } from '../support/dns-stand-in.js';

const TIMEOUT_MS = 300;

const checkerAt = (server: string) =>
  createMxChecker({ servers: [server], timeoutMs: TIMEOUT_MS, cacheTtlMs: 60_000, maxCacheEntries: 100 });

async function failureOf(check: Promise<unknown>): Promise<{ kind: string; reason: DnsFailure }> {
  const error = await check.then(
    (status) => expect.fail(`a failure to get an answer must not be an answer (got ${String(status)})`),
    (e: unknown) => e,
  );
  // A LookupError (the verdict flow reads its kind) that names its reason (the counter's label).
  expect(error).to.be.instanceOf(LookupError);
  const { kind, reason } = error as DnsLookupError;
  return { kind, reason };
}

describe('MX checker when DNS gives no answer', () => {
  const servers: DnsStandIn[] = [];
  const standIn = async (zone: StandInZone) => {
    const dns = await startDnsStandIn(zone);
    servers.push(dns);
    return dns;
  };

  after(async () => {
    await Promise.all(servers.map((dns) => dns.close()));
  });

  const outages: Array<[string, StandInZone[string], { kind: string; reason: DnsFailure }]> = [
    ['the server answers SERVFAIL', { fail: 'SERVFAIL' }, { kind: 'unavailable', reason: 'servfail' }],
    ['the server answers REFUSED', { fail: 'REFUSED' }, { kind: 'unavailable', reason: 'refused' }],
    ['the server never answers', { fail: 'silent' }, { kind: 'timeout', reason: 'timeout' }],
    ['MX is NODATA and A and AAAA fail', { fail: { A: 'SERVFAIL', AAAA: 'SERVFAIL' } }, { kind: 'unavailable', reason: 'servfail' }],
    ['MX is NODATA, A is refused and AAAA is NODATA', { fail: { A: 'REFUSED' } }, { kind: 'unavailable', reason: 'refused' }],
    ['MX is NODATA and A and AAAA never answer', { fail: { A: 'silent', AAAA: 'silent' } }, { kind: 'timeout', reason: 'timeout' }],
  ];
  for (const [what, records, expected] of outages) {
    it(`is a missing signal, not no_mx, when ${what}`, async () => {
      const dns = await standIn({ 'acme-widgets.com': records });
      expect(await failureOf(checkerAt(dns.server).check('acme-widgets.com'))).to.deep.equal(expected);
    });
  }

  it('is unreachable when nothing listens at the configured server', async () => {
    const closed = await startDnsStandIn({});
    await closed.close();
    expect(await failureOf(checkerAt(closed.server).check('gmail.com'))).to.deep.equal({ kind: 'unavailable', reason: 'unreachable' });
  });

  it('does not take NXDOMAIN from a resolver that says the top-level domain does not exist either', async () => {
    // What a resolver cut off from the internet may answer for every name: the reported gmail.com and example.org.
    const dns = await standIn({ com: { fail: 'NXDOMAIN' }, org: { fail: 'NXDOMAIN' } });
    const mx = checkerAt(dns.server);
    for (const domain of ['gmail.com', 'example.org']) {
      expect(await failureOf(mx.check(domain))).to.deep.equal({ kind: 'unavailable', reason: 'tld_missing' });
    }
  });

  it('does not take NODATA from a resolver that has no SOA for the top-level domain', async () => {
    const dns = await standIn({ com: {}, 'gmail.com': {} });
    expect(await failureOf(checkerAt(dns.server).check('gmail.com'))).to.deep.equal({ kind: 'unavailable', reason: 'tld_missing' });
  });

  it('is a missing signal when the top-level domain cannot be asked about', async () => {
    const dns = await standIn({ com: { fail: 'SERVFAIL' } });
    expect(await failureOf(checkerAt(dns.server).check('gone-corp.com'))).to.deep.equal({ kind: 'unavailable', reason: 'servfail' });
  });

  it('still answers no_mx for NXDOMAIN and NODATA, asking for the TLD once, and not at all for a positive answer', async () => {
    const dns = await standIn({
      'has-mx.example.com': { mx: [{ exchange: 'mx.example.net', priority: 10 }] },
      'no-records.example.com': {},
    });
    const mx = checkerAt(dns.server);
    expect(await mx.check('has-mx.example.com')).to.equal('ok');
    expect(dns.queryCount('com', 'SOA')).to.equal(0);
    expect(await mx.check('does-not-exist.example.com')).to.equal('no_mx');
    expect(await mx.check('no-records.example.com')).to.equal('no_mx');
    expect(dns.queryCount('com', 'SOA')).to.equal(1);
  });
});
