// The MX checker against a real DNS server on 127.0.0.1: each kind of answer, slow and failing
// servers, and the cache (the stand-in counts the queries it receives).
import { expect } from 'chai';
import { LookupError } from '../../src/signals/email/lookup-error.js';
import { createMxChecker, type MxCheckerOptions } from '../../src/signals/email/mx-checker.js';
import { startDnsStandIn, type DnsStandIn } from '../support/dns-stand-in.js';

const TIMEOUT_MS = 300;
// The slow name answers long after the checker's deadline; finishing before it proves the bound.
const SLOW_ANSWER_MS = 5_000;

describe('MX checker', () => {
  let dns: DnsStandIn;

  before(async () => {
    dns = await startDnsStandIn({
      'has-mx.example.com': {
        mx: [
          { exchange: 'mx1.example.net', priority: 10 },
          { exchange: 'mx2.example.net', priority: 20 },
        ],
      },
      'null-mx.example.com': { mx: [{ exchange: '', priority: 0 }] },
      'a-only.example.com': { a: ['192.0.2.10'] },
      'aaaa-only.example.com': { aaaa: ['2001:db8::10'] },
      'no-records.example.com': {},
      'many-mx.example.com': {
        // Too big for one UDP answer: the resolver retries over TCP, which the stand-in also serves.
        mx: Array.from({ length: 80 }, (_, i) => ({ exchange: `mx${i}.a-long-mail-exchanger-name.example.net`, priority: i })),
      },
      'slow.example.com': { delayMs: SLOW_ANSWER_MS, mx: [{ exchange: 'mx.example.net', priority: 10 }] },
      'servfail.example.com': { fail: 'SERVFAIL' },
      'refused.example.com': { fail: 'REFUSED' },
    });
  });

  after(async () => {
    await dns.close();
  });

  const checker = (overrides: Partial<MxCheckerOptions> = {}) =>
    createMxChecker({ servers: [dns.server], timeoutMs: TIMEOUT_MS, cacheTtlMs: 60_000, maxCacheEntries: 100, ...overrides });

  const answers: Array<[string, string, string]> = [
    ['has-mx.example.com', 'ok', 'MX records'],
    ['null-mx.example.com', 'null_mx', 'a null MX (RFC 7505)'],
    ['a-only.example.com', 'ok', 'no MX but an A record (implicit MX)'],
    ['aaaa-only.example.com', 'ok', 'no MX but an AAAA record (implicit MX)'],
    ['no-records.example.com', 'no_mx', 'a name with no MX and no address'],
    ['does-not-exist.example.com', 'no_mx', 'NXDOMAIN'],
  ];
  for (const [domain, status, what] of answers) {
    it(`answers ${status} for ${what}`, async () => {
      expect(await checker().check(domain)).to.equal(status);
    });
  }

  it('follows a truncated answer over TCP to the same server', async () => {
    expect(await checker().check('many-mx.example.com')).to.equal('ok');
    const transports = dns.queries.filter((q) => q.name === 'many-mx.example.com').map((q) => q.transport);
    expect(transports).to.include('udp').and.to.include('tcp');
  });

  it('rejects with a timeout, before the server answers, when the server is slow', async () => {
    const started = Date.now();
    const error = await checker()
      .check('slow.example.com')
      .then(
        () => expect.fail('a slow server must not count as an answer'),
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(LookupError).and.to.include({ kind: 'timeout' });
    expect(Date.now() - started).to.be.below(SLOW_ANSWER_MS);
  });

  for (const domain of ['servfail.example.com', 'refused.example.com']) {
    it(`rejects as unavailable when the server fails (${domain.split('.')[0]})`, async () => {
      const error = await checker()
        .check(domain)
        .catch((e: unknown) => e);
      expect(error).to.be.instanceOf(LookupError).and.to.include({ kind: 'unavailable' });
    });
  }

  it('rejects as unavailable when nothing listens at the configured server', async () => {
    const closed = await startDnsStandIn({});
    await closed.close();
    const error = await checker({ servers: [closed.server] })
      .check('has-mx.example.com')
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LookupError).and.to.include({ kind: 'unavailable' });
  });

  it('asks DNS once for a cached positive answer', async () => {
    const mx = checker();
    const asked = dns.queryCount('has-mx.example.com', 'MX');
    expect(await mx.check('has-mx.example.com')).to.equal('ok');
    expect(await mx.check('HAS-MX.example.com.')).to.equal('ok');
    expect(dns.queryCount('has-mx.example.com', 'MX') - asked).to.equal(1);
  });

  it('caches negative answers too', async () => {
    const mx = checker();
    const asked = dns.queryCount('gone.example.com');
    expect(await mx.check('gone.example.com')).to.equal('no_mx');
    expect(await mx.check('gone.example.com')).to.equal('no_mx');
    expect(dns.queryCount('gone.example.com') - asked).to.equal(1);
  });

  it('sends one query for concurrent checks of one domain', async () => {
    const mx = checker();
    const asked = dns.queryCount('null-mx.example.com', 'MX');
    const statuses = await Promise.all([1, 2, 3, 4, 5].map(() => mx.check('null-mx.example.com')));
    expect(statuses).to.deep.equal(['null_mx', 'null_mx', 'null_mx', 'null_mx', 'null_mx']);
    expect(dns.queryCount('null-mx.example.com', 'MX') - asked).to.equal(1);
  });

  it('never caches a failure: the next check asks again', async () => {
    const mx = checker();
    const asked = dns.queryCount('servfail.example.com', 'MX');
    await mx.check('servfail.example.com').catch(() => undefined);
    await mx.check('servfail.example.com').catch(() => undefined);
    expect(dns.queryCount('servfail.example.com', 'MX') - asked).to.equal(2);
  });

  it('asks again once an answer has expired', async () => {
    const mx = checker({ cacheTtlMs: 1 });
    const asked = dns.queryCount('a-only.example.com', 'MX');
    await mx.check('a-only.example.com');
    // Wait until the 1 ms TTL has surely passed, by the clock rather than a fixed sleep.
    const until = Date.now() + 5;
    while (Date.now() < until) await new Promise((resolve) => setImmediate(resolve));
    await mx.check('a-only.example.com');
    expect(dns.queryCount('a-only.example.com', 'MX') - asked).to.equal(2);
  });

  it('refuses a malformed DNS server setting at creation', () => {
    expect(() => createMxChecker({ servers: ['not a server'], timeoutMs: 100, cacheTtlMs: 1, maxCacheEntries: 1 })).to.throw();
  });
});
