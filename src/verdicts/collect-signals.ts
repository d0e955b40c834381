// Gathers the facts one event is judged on, in parallel under one deadline (SIGNAL_DEADLINE_MS;
// the graph read under its own, GRAPH_DEADLINE_MS, never shorter),
// and writes nothing but the event's velocity counts (one atomic Redis step that adds and counts,
// which the caller takes back if the event is not committed). The graph is only read: the link
// it will gain is returned, for the write to put in the outbox, with what the write needs to find
// the links that this event joins and the read may have missed: those still waiting in the outbox,
// and those applied since the read began (docs/graph.md, "Fresh reads"). The
// lists are matched in memory (src/lists/list-directory.ts). A collector's failure or lateness
// only removes its signal and notes it in `missing`.
import type { Driver } from 'neo4j-driver';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Scope } from '../scope.js';
import type { Config } from '../config.js';
import type { Policy } from '../engine/policy.js';
import type { EmailSignal, GraphSignal, MissingSignal, Signals } from '../engine/types.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import type { Metrics } from '../metrics/metrics.js';
import {
  graphLinkOf,
  joiningKeys,
  readClusterFacts,
  type ClusterFacts,
  type GraphLink,
  type PendingLink,
} from '../graph/identity-graph.js';
import type { SecretCache } from '../devices/secret-cache.js';
import { verifyDeviceToken } from '../devices/device-token.js';
import type { Timings } from '../timings.js';
import type { ListDirectory } from '../lists/list-directory.js';
import { listCandidates } from '../lists/list-values.js';
import { domainAndParents } from '../signals/email/domain-and-parents.js';
import { isFreemailDomain } from '../signals/email/freemail-domains.js';
import { parseEmail } from '../signals/email/parse-email.js';
import type { EmailLookup, EmailSignals } from '../signals/email/email-signals.js';
import type { IpIntel } from '../signals/ip/ip-intel.js';
import { countersFor, countVelocity, type Counted } from '../velocity/velocity-store.js';
import type { VerdictEvent } from './verdict-request.js';
import { gather, type Gathered } from './with-deadline.js';
import { clearableDeadline } from '../deadline.js';
import { testFixtureOf } from './test-fixtures.js';

// What gathering an event's signals needs; the composition root (src/deps.ts) passes its Deps.
export interface VerdictDeps {
  redis: Redis;
  graph: Driver;
  cypher: CypherCatalog;
  secrets: SecretCache;
  ipIntel: IpIntel;
  emailSignals: EmailSignals;
  config: Pick<Config, 'signalDeadlineMs' | 'graphDeadlineMs' | 'hubThreshold'>;
  logger: Logger;
  lists: ListDirectory;
  metrics: Metrics;
}

export interface Collected {
  signals: Signals;
  // This event's velocity counts (settles even past the deadline), to be taken back if the
  // event is not committed.
  counted: Promise<Counted | undefined>;
  // What the graph gains from this event, applied after commit.
  link?: GraphLink;
  // When the graph answered: the keys through which a waiting link joins this event (its account
  // and its identifiers that link) and the keys of its own (a waiting link that brings nothing
  // else, the same user's previous event, changes nothing), for the write's check, and the read
  // again with such links folded in.
  fresh?: FreshRead;
}

export interface FreshRead {
  joins: string[];
  own: string[];
  // The seq of the scope's last link applied when the graph was read: the write also looks at
  // the links applied after it, which the read may have missed.
  seen: number | null;
  reread(pending: PendingLink[], timings: Timings): Promise<Signals>;
}

const DAY_MS = 86_400_000;

export function graphSignal(facts: ClusterFacts, nowMs: number, card?: string, country?: string): GraphSignal {
  const days = (at: number | null) => (at === null ? undefined : Math.floor((nowMs - at) / DAY_MS));
  // This event's card counts among the cluster's cards of the last day.
  const cards = card ? [...facts.cards, { card, country: country ?? '' }] : facts.cards;
  const signal: GraphSignal = {
    ...(facts.clusterId && { clusterId: facts.clusterId }),
    linkedAccounts: facts.accounts,
    recentAccounts: facts.recentAccounts,
    viaKinds: facts.viaKinds,
    ...(facts.evidence && { abuseEvidence: { via: facts.evidence.via, markedAt: new Date(facts.evidence.at).toISOString() } }),
    ...(facts.hub && {
      hub: {
        kind: facts.hub.kind,
        accounts: facts.hub.accounts,
        confirmedAccounts: facts.hub.confirmed,
        formedSeconds: Math.round(facts.hub.formedMs / 1000),
        markedAt: new Date(facts.hub.markedAt).toISOString(),
      },
    }),
    confirmedAbuse: facts.confirmedAbuse,
    falsePositive: facts.falsePositive,
    chargebacks: facts.chargebacks,
    suppressedCodes: facts.suppressed,
    distinctCards24h: new Set(cards.map((c) => c.card)).size,
    distinctCardCountries24h: new Set(cards.map((c) => c.country).filter(Boolean)).size,
    accountHasHistory: facts.accountHistory,
    deviceSeenForAccount: facts.deviceSeen,
  };
  const sinceTrial = days(facts.lastTrialStartAt);
  if (sinceTrial !== undefined) signal.daysSinceLastTrialStart = sinceTrial;
  const sinceConversion = days(facts.convertedAt);
  if (sinceConversion !== undefined) signal.daysSinceConversion = sinceConversion;
  return signal;
}

// The signal sources a verdict can be decided without, as `timeout_failopen` and
// `partial_enrichment` name them (listed for callers as the contract's
// `x-service-known-values.signal_sources`; test/contract/openapi-lint.test.ts holds them equal).
export type SignalSource = 'email' | 'dns' | 'rdap' | 'device' | 'lists' | 'velocity' | 'graph';
type Missing = MissingSignal & { source: SignalSource };

// The email facts the engine reads, and the lookups that failed (DNS, RDAP) as missing signals.
function emailFacts(email: EmailLookup, vouched: boolean): { signal: EmailSignal; missing: Missing[] } {
  const { mxError, dnsFailure: _why, domainAgeError, ...facts } = email;
  const signal = vouched ? { ...facts, disposable: false } : facts;
  const missing: Missing[] = [];
  if (mxError) missing.push({ source: 'dns', reason: mxError });
  if (domainAgeError) missing.push({ source: 'rdap', reason: domainAgeError });
  return { signal, missing };
}

// An event once its device token is verified: what velocity counts, the lists match and the
// graph links. (Exported with the functions below that take it, and graphSignal, for the bench's honest floor, which makes
// the verdict's store calls with these very parameters: bench/floor-server.ts.)
export interface Identified {
  event: VerdictEvent;
  eventId: string;
  deviceId: string | undefined;
  // The email's domain from its syntax alone (no DNS), and its registrable part.
  domain: { full: string; registrable: string } | undefined;
}

export function velocityCounters(scope: Scope, { event, eventId, deviceId, domain }: Identified, policy: Policy) {
  return countersFor(
    scope,
    {
      eventType: event.eventType,
      eventId,
      ip: event.ip,
      deviceId,
      domain: domain && !isFreemailDomain(domain.full, domain.registrable) ? domain.registrable : undefined,
      card: event.payment?.cardFingerprint,
      amount: event.payment?.amount,
      account: event.externalUserId,
    },
    policy,
  );
}

export function eventLink(scope: Scope, { event, eventId, deviceId }: Identified, now: Date, hubThreshold: number, policy: Policy) {
  return graphLinkOf(
    scope,
    {
      eventId,
      eventType: event.eventType,
      at: now.getTime(),
      account: event.externalUserId,
      email: event.email,
      deviceId,
      card: event.payment?.cardFingerprint,
      cardCountry: event.payment?.country,
      identity: event.identity,
    },
    hubThreshold,
    policy.graph,
  );
}

export function listValues({ event, deviceId, domain }: Identified) {
  return listCandidates({
    email: event.email,
    emailDomains: domain ? domainAndParents(domain.full, domain.registrable) : undefined,
    ip: event.ip,
    deviceId,
    cardFingerprint: event.payment?.cardFingerprint,
    externalUserId: event.externalUserId,
  });
}

// The cluster read, its duration counted whatever its outcome (doorman_graph_read_seconds: a
// read past its deadline is counted when it ends, so the histogram shows the real tail).
function timedGraphRead(
  deps: Pick<VerdictDeps, 'graph' | 'cypher' | 'config' | 'metrics'>,
  link: GraphLink,
  fresh: { pending?: PendingLink[]; recentSince?: number },
): Promise<ClusterFacts> {
  const started = performance.now();
  const read = readClusterFacts(deps.graph, deps.cypher, link, deps.config.graphDeadlineMs, fresh);
  read.then(
    () => deps.metrics.graphRead((performance.now() - started) / 1000, 'ok'),
    () => deps.metrics.graphRead((performance.now() - started) / 1000, 'failed'),
  );
  return read;
}

// What the write needs to find the links this event joins that the read may have missed, and the
// graph read again with the waiting links folded in, under a deadline of its own; if that fails,
// the verdict is judged without the graph, as when the first read fails.
function freshRead(
  deps: Pick<VerdictDeps, 'graph' | 'cypher' | 'config' | 'metrics'>,
  read: { link: GraphLink; facts: ClusterFacts; signals: Signals; now: Date; recentSince: number },
): FreshRead {
  const { link, facts, signals, now, recentSince } = read;
  const card = signals.payment?.cardFingerprint;
  const country = signals.payment?.country;
  return {
    ...joiningKeys(link, facts.joinKeys),
    seen: facts.appliedSeq,
    async reread(pending, t) {
      const { signal, clear } = clearableDeadline(deps.config.graphDeadlineMs);
      const again = await gather(t.time('graph_fresh', timedGraphRead(deps, link, { pending, recentSince })), signal);
      clear();
      const { graph: _stale, ...rest } = signals;
      if (!again.ok) return { ...rest, missing: [...signals.missing, { source: 'graph', reason: again.missing }] };
      return { ...rest, graph: graphSignal(again.value, now.getTime(), card, country) };
    },
  };
}

export async function collectSignals(
  deps: VerdictDeps,
  scope: Scope,
  event: VerdictEvent,
  at: { eventId: string; now: Date; timings: Timings; policy: Policy },
): Promise<Collected> {
  const { eventId, now, timings, policy } = at;
  const { signal: deadline, clear: deadlineOver } = clearableDeadline(deps.config.signalDeadlineMs);
  const { signal: graphDeadline, clear: graphOver } = clearableDeadline(deps.config.graphDeadlineMs);
  const missing: Missing[] = [];
  const note = <T>(source: SignalSource, g: Gathered<T>): T | undefined => {
    if (g.ok) return g.value;
    missing.push({ source, reason: g.missing });
    if (g.missing === 'unavailable') deps.logger.warn({ source, err: String(g.error) }, 'signal unavailable');
    return undefined;
  };
  const collect = <T>(source: SignalSource, work: Promise<T>) => gather(timings.time(source, work), deadline);

  const ipFlags = event.ip ? deps.ipIntel.lookup(event.ip) : undefined;
  const { payment } = event;
  const emailP = event.email ? collect('email', deps.emailSignals.collect(event.email)) : undefined;
  const deviceP = event.deviceToken ? collect('device', verifyDeviceToken(deps, scope, event.deviceToken, now)) : undefined;

  // Lists, velocity and the graph need the device id and the email's domain (from syntax alone,
  // so they need not wait for DNS): they start once the token is verified.
  const parsed = event.email ? parseEmail(event.email) : undefined;
  const domain = parsed?.ok && parsed.registrableDomain ? { full: parsed.asciiDomain, registrable: parsed.registrableDomain } : undefined;
  const deviceId = deviceP ? note('device', await deviceP) : undefined;

  const identified: Identified = { event, eventId, deviceId, domain };
  const counters = velocityCounters(scope, identified, policy);
  const link = eventLink(scope, identified, now, deps.config.hubThreshold, policy);
  const counting = counters.length > 0 ? countVelocity(deps.redis, counters, now.getTime()) : undefined;
  // The lists from memory (a Postgres read only while the memory is not trusted).
  const listHits = deps.lists.match(scope, listValues(identified));
  const windowSeconds = policy.rules.identity_cluster?.windowSeconds;
  const recentSince = windowSeconds === undefined ? 0 : now.getTime() - windowSeconds * 1000;
  const [lists, velocity, graph] = await Promise.all([
    collect('lists', listHits),
    counting ? collect('velocity', counting) : undefined,
    link ? gather(timings.time('graph', timedGraphRead(deps, link, { recentSince })), graphDeadline) : undefined,
  ]);
  graphOver();
  const velocitySignal = velocity ? note('velocity', velocity)?.signal : undefined;
  const facts = graph ? note('graph', graph) : undefined;
  const email = emailP ? note('email', await emailP) : undefined;
  const listed = note('lists', lists) ?? [];
  deadlineOver();
  // A domain the tenant allow-lists is not a disposable one, for that tenant, whatever a list says.
  const vouched = listed.some((hit) => hit.list === 'allow' && hit.kind === 'email_domain');
  const emailSignal = email ? emailFacts(email, vouched) : undefined;
  // Why DNS gave no answer is counted here, once per verdict that asked: the checker has no metrics.
  if (email?.dnsFailure) deps.metrics.dnsLookupFailed(email.dnsFailure);

  // Integrators' fixtures: test keys only.
  const fixture = scope.mode === 'test' ? testFixtureOf(event) : undefined;
  const signals: Signals = {
    eventType: event.eventType,
    ...(emailSignal && { email: emailSignal.signal }),
    ...(ipFlags &&
      event.ip && { ip: { address: event.ip, torExit: ipFlags.tor_exit, proxy: ipFlags.proxy, datacenter: ipFlags.datacenter } }),
    ...(deviceId && { deviceId }),
    ...(payment && { payment }),
    lists: listed,
    ...(velocitySignal && { velocity: velocitySignal }),
    ...(facts && { graph: graphSignal(facts, now.getTime(), payment?.cardFingerprint, payment?.country) }),
    ...(fixture && { testFixture: fixture }),
    missing: [...missing, ...(emailSignal?.missing ?? [])],
  };
  const fresh = link && facts ? freshRead(deps, { link, facts, signals, now, recentSince }) : undefined;
  return { signals, counted: counting ? counting.catch(() => undefined) : Promise.resolve(undefined), link, ...(fresh && { fresh }) };
}
