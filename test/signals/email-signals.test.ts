// The email signal facade end to end: a real local DNS server and RDAP stand-in behind it, one
// collect() per address, and the facts (never reasons) it hands to the verdict flow.
import { expect } from 'chai';
import { createDomainAgeProvider, type DomainAgeProvider } from '../../src/signals/email/domain-age-provider.js';
import { createEmailSignals } from '../../src/signals/email/email-signals.js';
import { createMxChecker } from '../../src/signals/email/mx-checker.js';
import { startDnsStandIn, type DnsStandIn } from '../support/dns-stand-in.js';
import { startHttpStandIn, type HttpStandIn, type StandInResponse } from '../support/http-stand-in.js';

const NOW = new Date('2026-01-15T12:00:00Z');
const DAY_MS = 86_400_000;
const TIMEOUT_MS = 300;
const SLOW_ANSWER_MS = 5_000;
const MX = [{ exchange: 'mx.example.net', priority: 10 }];

const registered = (daysAgo: number): StandInResponse => ({
  body: {
    objectClassName: 'domain',
    events: [{ eventAction: 'registration', eventDate: new Date(NOW.getTime() - daysAgo * DAY_MS).toISOString() }],
  },
});

describe('email signals', () => {
  let dns: DnsStandIn;
  let rdap: HttpStandIn;

  before(async () => {
    dns = await startDnsStandIn({
      'acme-widgets.com': { mx: MX },
      'mail.acme-widgets.co.uk': { mx: MX },
      'brand-new-shop.com': { mx: MX },
      'null-mx-shop.com': { mx: [{ exchange: '', priority: 0 }] },
      'slow-dns-shop.com': { mx: MX, delayMs: SLOW_ANSWER_MS },
      'xn--bcher-kva.de': { a: ['192.0.2.20'] },
      'mailinator.com': { mx: MX },
      'gmail.com': { mx: MX },
      'duck.com': { mx: MX },
    });
    rdap = await startHttpStandIn(({ path }) => {
      if (path === '/domain/brand-new-shop.com') return registered(3);
      if (path === '/domain/slow-rdap-shop.com') return { ...registered(3), delayMs: SLOW_ANSWER_MS };
      if (path === '/domain/null-mx-shop.com') return { status: 503 };
      return registered(2000);
    });
  });

  after(async () => {
    await Promise.all([dns.close(), rdap.close()]);
  });

  const signals = (domainAge?: DomainAgeProvider) =>
    createEmailSignals({
      mx: createMxChecker({ servers: [dns.server], timeoutMs: TIMEOUT_MS, cacheTtlMs: 60_000, maxCacheEntries: 100 }),
      domainAge: domainAge ?? createDomainAgeProvider({ rdapBaseUrl: rdap.url, timeoutMs: TIMEOUT_MS }),
      now: () => NOW,
    });

  it('gives every fact for an ordinary company address', async () => {
    expect(await signals().collect('Jane.Doe@acme-widgets.com')).to.deep.equal({
      malformed: false,
      disposable: false,
      freemail: false,
      domain: 'acme-widgets.com',
      registrableDomain: 'acme-widgets.com',
      mx: 'ok',
      domainAgeDays: 2000,
    });
  });

  it('asks DNS for the full domain and the registry for the registrable domain', async () => {
    const signal = await signals().collect('jane@mail.acme-widgets.co.uk');
    expect(signal).to.include({ domain: 'mail.acme-widgets.co.uk', registrableDomain: 'acme-widgets.co.uk', mx: 'ok' });
    expect(rdap.requests.map((r) => r.path)).to.include('/domain/acme-widgets.co.uk');
  });

  it('reports a young domain by its age in days', async () => {
    expect(await signals().collect('owner@brand-new-shop.com')).to.include({ mx: 'ok', domainAgeDays: 3 });
  });

  it('reports a null MX, and a registry outage as domainAgeError', async () => {
    const signal = await signals().collect('sales@null-mx-shop.com');
    expect(signal).to.include({ mx: 'null_mx', domainAgeError: 'unavailable' });
    expect(signal).not.to.have.property('domainAgeDays');
  });

  it('looks up an IDN domain by its A-label', async () => {
    const signal = await signals().collect('jane@bücher.de');
    expect(signal).to.include({ malformed: false, domain: 'xn--bcher-kva.de', mx: 'ok' });
    expect(dns.queryCount('xn--bcher-kva.de', 'MX')).to.be.greaterThan(0);
  });

  it('marks disposable, freemail and relay domains', async () => {
    const collect = signals();
    expect(await collect.collect('x@mailinator.com')).to.include({ disposable: true, freemail: false });
    expect(await collect.collect('jane@gmail.com')).to.include({ disposable: false, freemail: true });
    expect(await collect.collect('abc123@duck.com')).to.include({ disposable: false, freemail: true });
  });

  it('judges a malformed address on syntax alone, with no DNS or RDAP traffic', async () => {
    const queries = dns.queries.length;
    const requests = rdap.requests.length;
    expect(await signals().collect('"jane doe"@acme-widgets.com')).to.deep.equal({
      malformed: true,
      disposable: false,
      freemail: false,
      domain: 'acme-widgets.com',
    });
    expect(await signals().collect('no-at-sign')).to.deep.equal({ malformed: true, disposable: false, freemail: false });
    expect(dns.queries.length).to.equal(queries);
    expect(rdap.requests.length).to.equal(requests);
  });

  it('reports a slow DNS server as mxError timeout and still gives the domain age, before the server answers', async () => {
    const started = Date.now();
    const signal = await signals().collect('jane@slow-dns-shop.com');
    expect(signal).to.include({ mxError: 'timeout', domainAgeDays: 2000 });
    expect(signal).not.to.have.property('mx');
    expect(Date.now() - started).to.be.below(SLOW_ANSWER_MS);
  });

  it('reports a slow registry as domainAgeError timeout, before the registry answers', async () => {
    const started = Date.now();
    const signal = await signals().collect('jane@slow-rdap-shop.com');
    expect(signal).to.include({ domainAgeError: 'timeout', mx: 'no_mx' });
    expect(Date.now() - started).to.be.below(SLOW_ANSWER_MS);
  });

  it('gives no domain age and no error when the provider is off', async () => {
    const signal = await signals(createDomainAgeProvider({ timeoutMs: TIMEOUT_MS })).collect('jane@acme-widgets.com');
    expect(signal).to.include({ mx: 'ok' });
    expect(signal).not.to.have.any.keys('domainAgeDays', 'domainAgeError');
  });
});
