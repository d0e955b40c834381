// The RDAP domain-age provider against a real local HTTP stand-in for a registry: young and old
// domains, unknown domains, slow and failing registries, caching, and the provider switched off.
import { expect } from 'chai';
import { createDomainAgeProvider } from '../../src/signals/email/domain-age-provider.js';
import { LookupError } from '../../src/signals/email/lookup-error.js';
import { startHttpStandIn, type HttpStandIn, type StandInResponse } from '../support/http-stand-in.js';

const NOW = new Date('2026-01-15T12:00:00Z');
const DAY_MS = 86_400_000;
const TIMEOUT_MS = 300;
const SLOW_ANSWER_MS = 5_000;

// An RDAP domain object (RFC 9083 §5.3) with the events a registry typically lists.
const rdapDomain = (name: string, registeredAt: string): StandInResponse => ({
  headers: { 'content-type': 'application/rdap+json' },
  body: {
    objectClassName: 'domain',
    ldhName: name,
    events: [
      { eventAction: 'last changed', eventDate: '2025-12-01T00:00:00Z' },
      { eventAction: 'registration', eventDate: registeredAt },
      { eventAction: 'expiration', eventDate: '2030-01-01T00:00:00Z' },
    ],
  },
});

function registry(path: string): StandInResponse {
  const name = path.replace('/domain/', '');
  switch (name) {
    case 'young-domain.com':
      return rdapDomain(name, new Date(NOW.getTime() - 5 * DAY_MS).toISOString());
    case 'old-domain.com':
      return rdapDomain(name, '2021-01-15T12:00:00Z');
    case 'undated-domain.com':
      return {
        body: { objectClassName: 'domain', ldhName: name, events: [{ eventAction: 'last changed', eventDate: '2025-01-01T00:00:00Z' }] },
      };
    case 'slow-domain.com':
      return { ...rdapDomain(name, '2020-01-01T00:00:00Z'), delayMs: SLOW_ANSWER_MS };
    case 'overloaded-domain.com':
      return { status: 503, body: 'try later' };
    case 'garbled-domain.com':
      return { body: '<html>not rdap</html>' };
    default:
      return { status: 404, body: { errorCode: 404, title: 'Not Found' } };
  }
}

describe('RDAP domain age provider', () => {
  let rdap: HttpStandIn;

  before(async () => {
    rdap = await startHttpStandIn((request) => registry(request.path));
  });

  after(async () => {
    await rdap.close();
  });

  // A trailing slash on the base URL must not double up in the request path.
  const provider = () => createDomainAgeProvider({ rdapBaseUrl: `${rdap.url}/`, timeoutMs: TIMEOUT_MS });
  const requestsFor = (domain: string) => rdap.requests.filter((r) => r.path === `/domain/${domain}`).length;

  it('gives 5 days for a domain registered 5 days ago, asking GET /domain/<name> for RDAP JSON', async () => {
    expect(await provider().ageDays('young-domain.com', NOW)).to.equal(5);
    const request = rdap.requests.find((r) => r.path === '/domain/young-domain.com');
    expect(request).to.include({ method: 'GET' });
    expect(request?.headers.accept).to.include('application/rdap+json');
  });

  it('gives 1826 days for a domain registered 5 years ago', async () => {
    expect(await provider().ageDays('old-domain.com', NOW)).to.equal(1826);
  });

  it('gives null when the registry does not know the domain (404)', async () => {
    expect(await provider().ageDays('unknown-domain.com', NOW)).to.equal(null);
  });

  it('gives null when the registry lists no registration event', async () => {
    expect(await provider().ageDays('undated-domain.com', NOW)).to.equal(null);
  });

  it('rejects with a timeout, before the registry answers, when it is slow', async () => {
    const started = Date.now();
    const error = await provider()
      .ageDays('slow-domain.com', NOW)
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LookupError).and.to.include({ kind: 'timeout' });
    expect(Date.now() - started).to.be.below(SLOW_ANSWER_MS);
  });

  it('rejects as unavailable on a server error or a body that is not JSON', async () => {
    for (const domain of ['overloaded-domain.com', 'garbled-domain.com']) {
      const error = await provider()
        .ageDays(domain, NOW)
        .catch((e: unknown) => e);
      expect(error, domain).to.be.instanceOf(LookupError).and.to.include({ kind: 'unavailable' });
    }
  });

  it('rejects as unavailable when nothing listens at the base URL', async () => {
    const gone = await startHttpStandIn();
    await gone.close();
    const error = await createDomainAgeProvider({ rdapBaseUrl: gone.url, timeoutMs: TIMEOUT_MS })
      .ageDays('young-domain.com', NOW)
      .catch((e: unknown) => e);
    expect(error).to.be.instanceOf(LookupError).and.to.include({ kind: 'unavailable' });
  });

  it('caches the registration date and ages it by the clock of each call', async () => {
    const ages = provider();
    const asked = requestsFor('young-domain.com');
    expect(await ages.ageDays('young-domain.com', NOW)).to.equal(5);
    expect(await ages.ageDays('Young-Domain.com', new Date(NOW.getTime() + 2 * DAY_MS))).to.equal(7);
    expect(requestsFor('young-domain.com') - asked).to.equal(1);
  });

  it('caches an unknown domain but never a failure', async () => {
    const ages = provider();
    const unknown = requestsFor('unknown-domain.com');
    const failing = requestsFor('overloaded-domain.com');
    for (let i = 0; i < 2; i++) {
      await ages.ageDays('unknown-domain.com', NOW);
      await ages.ageDays('overloaded-domain.com', NOW).catch(() => undefined);
    }
    expect(requestsFor('unknown-domain.com') - unknown).to.equal(1);
    expect(requestsFor('overloaded-domain.com') - failing).to.equal(2);
  });

  it('is off, answering null at once without a request, when no base URL is configured', async () => {
    const asked = rdap.requests.length;
    for (const rdapBaseUrl of [undefined, '', '  ']) {
      const off = createDomainAgeProvider({ rdapBaseUrl, timeoutMs: TIMEOUT_MS });
      expect(off.enabled).to.equal(false);
      expect(await off.ageDays('young-domain.com', NOW)).to.equal(null);
    }
    expect(rdap.requests.length).to.equal(asked);
  });
});
