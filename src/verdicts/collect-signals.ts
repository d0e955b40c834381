// Gathers the facts one event is judged on, in parallel under one deadline (SIGNAL_DEADLINE_MS).
// Cheap in-process facts (ip intelligence, payment, email syntax) are computed inline; device
// token, email DNS/RDAP, lists and velocity are collectors whose failure or lateness only
// removes their signal and notes it in `missing`.
import type { Scope } from '../db/queryable.js';
import type { Deps } from '../deps.js';
import type { EmailSignal, GraphSignal, MissingSignal, PaymentSignal, Signals } from '../engine/types.js';
import { eventIdentifiers } from '../graph/event-identifiers.js';
import { linkEvent, linkParams, type ClusterFacts, type LinkParams } from '../graph/identity-graph.js';
import { verifyDeviceToken } from '../devices/device-token.js';
import { matchLists } from '../lists/list-store.js';
import { listCandidates } from '../lists/list-values.js';
import { domainAndParents } from '../signals/email/domain-and-parents.js';
import { isFreemailDomain } from '../signals/email/freemail-domains.js';
import { parseEmail } from '../signals/email/parse-email.js';
import type { EmailSignal as CollectedEmail } from '../signals/email/email-signals.js';
import { countersFor, readVelocity } from '../velocity/velocity-store.js';
import type { VerdictRequest } from './verdict-request.js';
import { deadlineAfter, withDeadline, type Gathered } from './with-deadline.js';

export type VerdictDeps = Pick<Deps, 'db' | 'redis' | 'graph' | 'cypher' | 'secrets' | 'ipIntel' | 'emailSignals' | 'engine' | 'config' | 'logger'>;

export interface Collected {
  signals: Signals;
  velocityCounters: ReturnType<typeof countersFor>;
  // What was sent to the graph; replayed by the repair job when the graph was missing.
  graphLink?: LinkParams;
}

const DAY_MS = 86_400_000;

function graphSignal(facts: ClusterFacts, nowMs: number): GraphSignal | undefined {
  if (!facts.clusterId) return undefined;
  const days = (at: number | null) => (at === null ? undefined : Math.floor((nowMs - at) / DAY_MS));
  const signal: GraphSignal = {
    clusterId: facts.clusterId,
    linkedAccounts: facts.accounts,
    confirmedAbuse: facts.confirmedAbuse,
    falsePositive: facts.falsePositive,
    chargebacks: facts.chargebacks,
    suppressedCodes: facts.suppressed,
    distinctCards24h: facts.distinctCards24h,
    distinctCardCountries24h: facts.distinctCountries24h,
    accountHasHistory: facts.accountEvents > 0,
    deviceSeenForAccount: facts.deviceSeen,
  };
  const sinceTrial = days(facts.lastTrialStartAt);
  if (sinceTrial !== undefined) signal.daysSinceLastTrialStart = sinceTrial;
  const sinceConversion = days(facts.convertedAt);
  if (sinceConversion !== undefined) signal.daysSinceConversion = sinceConversion;
  return signal;
}

function paymentSignal(req: VerdictRequest): PaymentSignal | undefined {
  const p = req.payment;
  if (!p || req.event_type !== 'checkout_attempt') return undefined;
  return {
    ...(p.card_fingerprint !== undefined && { cardFingerprint: p.card_fingerprint }),
    ...(p.card_funding !== undefined && { funding: p.card_funding }),
    ...(p.card_country !== undefined && { country: p.card_country.toLowerCase() }),
    ...(p.amount !== undefined && { amount: p.amount }),
    ...(p.currency !== undefined && { currency: p.currency.toLowerCase() }),
  };
}

// The email facts the engine reads, and the lookups that failed (DNS, RDAP) as missing signals.
function emailFacts(email: CollectedEmail): { signal: EmailSignal; missing: MissingSignal[] } {
  const { mxError, domainAgeError, ...signal } = email;
  const missing: MissingSignal[] = [];
  if (mxError) missing.push({ source: 'dns', reason: mxError });
  if (domainAgeError) missing.push({ source: 'rdap', reason: domainAgeError });
  return { signal, missing };
}

export async function collectSignals(deps: VerdictDeps, scope: Scope, req: VerdictRequest, eventId: string, now: Date): Promise<Collected> {
  const deadline = deadlineAfter(deps.config.signalDeadlineMs);
  const missing: MissingSignal[] = [];
  const note = <T>(source: string, g: Gathered<T>): T | undefined => {
    if (g.ok) return g.value;
    missing.push({ source, reason: g.missing });
    if (g.missing === 'unavailable') deps.logger.warn({ source, err: String(g.error) }, 'signal unavailable');
    return undefined;
  };
  try {
    const ipFlags = req.ip ? deps.ipIntel.lookup(req.ip) : undefined;
    const payment = paymentSignal(req);

    const emailP = req.email ? withDeadline(deps.emailSignals.collect(req.email), deadline.promise) : undefined;
    const deviceP = req.device_token
      ? withDeadline(
          verifyDeviceToken(deps, scope, req.device_token!, now),
          deadline.promise,
        )
      : undefined;

    // Lists and velocity need the device id and the email's domain (from syntax alone, so they
    // need not wait for DNS): they start once the token is verified.
    const parsed = req.email ? parseEmail(req.email) : undefined;
    const domain = parsed?.ok && parsed.registrableDomain ? { full: parsed.asciiDomain, registrable: parsed.registrableDomain } : undefined;
    const deviceId = deviceP ? note('device', await deviceP) : undefined;

    const counters = countersFor(
      scope,
      {
        eventType: req.event_type,
        eventId,
        ip: req.ip,
        deviceId,
        domain: domain && !isFreemailDomain(domain.full, domain.registrable) ? domain.registrable : undefined,
        card: payment?.cardFingerprint,
        amount: payment?.amount,
        account: req.external_user_id,
      },
      deps.engine.policy,
    );
    const ids = eventIdentifiers({ email: req.email, deviceId, card: payment?.cardFingerprint, identity: req.identity });
    const graphLink = req.external_user_id || ids.length > 0
      ? linkParams(scope, {
          eventId, eventType: req.event_type, at: now.getTime(), account: req.external_user_id ?? null, ids,
          card: payment?.cardFingerprint ?? null, cardCountry: payment?.country ?? null,
          hubThreshold: deps.config.hubThreshold, clusterId: eventId.replace(/^evt_/, 'clu_'), newEvent: true,
        })
      : undefined;
    const [lists, velocity, graph] = await Promise.all([
      withDeadline(
        matchLists(deps.db, scope, listCandidates({
          email: req.email,
          emailDomains: domain ? domainAndParents(domain.full, domain.registrable) : undefined,
          ip: req.ip,
          deviceId,
          cardFingerprint: payment?.cardFingerprint,
          externalUserId: req.external_user_id,
        })),
        deadline.promise,
      ),
      withDeadline(readVelocity(deps.redis, counters, now.getTime()), deadline.promise),
      graphLink ? withDeadline(linkEvent(deps.graph, deps.cypher, graphLink, deps.config.signalDeadlineMs), deadline.promise) : undefined,
    ]);
    const facts = graph ? note('graph', graph) : undefined;
    const clusterSignal = facts ? graphSignal(facts, now.getTime()) : undefined;
    const gatheredEmail = emailP ? note('email', await emailP) : undefined;
    const email = gatheredEmail ? emailFacts(gatheredEmail) : undefined;
    const velocitySignal = counters.length > 0 ? note('velocity', velocity) : undefined;

    const signals: Signals = {
      eventType: req.event_type,
      ...(email && { email: email.signal }),
      ...(ipFlags && req.ip && { ip: { address: req.ip, torExit: ipFlags.tor_exit, proxy: ipFlags.proxy, datacenter: ipFlags.datacenter } }),
      ...(deviceId && { deviceId }),
      ...(payment && { payment }),
      lists: note('lists', lists) ?? [],
      ...(velocitySignal && { velocity: velocitySignal }),
      ...(clusterSignal && { graph: clusterSignal }),
      missing,
    };
    if (email) missing.push(...email.missing);
    return { signals, velocityCounters: counters, graphLink };
  } finally {
    deadline.cancel();
  }
}
