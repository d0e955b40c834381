// The honest floor (issue 44): a bare node:http server that makes exactly the verdict's store
// calls, with the verdict's own parameters and result sizes, and nothing else. The verdict's
// latency and CPU over this one's are what our own code costs; the store calls are not ours to
// save. (The floor before issue 44, bench/floor-old-server.ts, made lighter calls than the
// verdict: no device id or email domain in its counters and link, the default policy, no lists,
// and an empty stored signals column; it is kept beside this one to show the change of baseline.)
//
// Per request, as src/verdicts/ does it (decide-verdict.ts, collect-signals.ts):
// - the body mapped to its event (verdictEventOf); the API key from a memo of findKey (the bench
//   never revokes a key: a plain memo stands for the verdict's key directory, also in memory);
// - with an Idempotency-Key header, findAnswer first (the bench's traffic sends none);
// - the policy in force (policies.inForce: memory, kept current by the same watcher as the
//   verdict's), the device token verified (memory HMAC; it yields the device id the counters and
//   the link carry) and the email's domain from its syntax (parseEmail);
// - the velocity counters, the lists match (memory) and the cluster read, in parallel under the
//   signal deadline, built by the verdict's own velocityCounters and eventLink (exported from
//   collect-signals.ts), so the Lua script's keys, the Cypher and its parameter map, the read's
//   timeout and its result are the verdict's;
// - the one write (writeJudgedEvent) with the verdict's extras: the idempotency record when a key
//   was sent, the response, the link, the joining keys for the check for waiting links, the policy
//   version; the stored request is storedRequest's and the stored signals are the facts gathered,
//   shaped as the verdict stores them (without the email's and the ip's facts, which come from
//   the lookups left out below). If waiting links join the event, the graph is read again
//   with them and the event written without the check, as the verdict does.
// - the answer: `allow` (with a timeout_failopen or partial_enrichment reason naming a store that
//   did not answer in time, as the verdict's engine would add), and a Server-Timing header timed
//   as the verdict's (src/timings.ts: `graph;dur=12.3, …`).
// Left out, because they are not store calls: the email's DNS and RDAP lookups, the ip
// intelligence (memory), JSON Schema validation, the engine, Express, logging and metrics. The
// shadow policy (none in the bench's tenant) is not judged. Unlike the verdict, the floor wakes no
// graph writer (the verdict batches a NOTIFY per handful of commits): its links wait for the
// writer's poll, which costs the floor nothing and the link lag a little.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { newId } from '../src/db/new-id.js';
import { clearableDeadline } from '../src/deadline.js';
import { verifyDeviceToken } from '../src/devices/device-token.js';
import { ENGINE_VERSION } from '../src/engine/engine-version.js';
import type { Reason } from '../src/engine/types.js';
import { joiningKeys, readClusterFacts } from '../src/graph/identity-graph.js';
import { watchPolicies } from '../src/policies/documents/policy-registry.js';
import { parseEmail } from '../src/signals/email/parse-email.js';
import { bearerToken, hashKey } from '../src/tenants/api-key.js';
import { findKey, type KeyRow } from '../src/tenants/key-store.js';
import { Timings } from '../src/timings.js';
import { countVelocity } from '../src/velocity/velocity-store.js';
import { eventLink, graphSignal, listValues, velocityCounters, type Identified } from '../src/verdicts/collect-signals.js';
import { findAnswer } from '../src/verdicts/idempotency-store.js';
import { storedRequest, verdictEventOf, type VerdictRequest } from '../src/verdicts/verdict-request.js';
import { writeJudgedEvent, type WriteExtras } from '../src/verdicts/verdict-store.js';
import { gather, type Gathered } from '../src/verdicts/with-deadline.js';

// The floor wakes no writer: its links wait for the writer's poll.
const NO_WAKE = { written: () => undefined };

const deps = createDeps(loadConfig());
// The bench never revokes a key: a plain memo stands for the verdict's key directory.
const keys = new Map<string, KeyRow>();
const keyOf = async (hash: string) => {
  let row = keys.get(hash);
  if (!row) {
    row = await findKey(deps.db, hash);
    if (row) keys.set(hash, row);
  }
  return row;
};
// As serve() does: lists answered from memory once loaded, policies proven current by their
// watcher (without them, every match and every policy lookup would be a Postgres read).
const listWatch = deps.lists.watch(deps);
const policyWatch = watchPolicies(deps);
await deps.warmup();

// Contract §4.1 (verdict-routes.ts idempotencyKeyOf, not imported: that file loads the HTTP plumbing).
const idempotencyKeyOf = (header: string | string[] | undefined) =>
  typeof header === 'string' && header.length > 0 && header.length <= 255 ? header : undefined;

type Missing = { source: string; reason: 'timeout' | 'unavailable' };

// The engine's meta findings (engine/rules/meta-findings.ts): one reason per code, naming the sources.
function missingReasons(missing: Missing[]): Reason[] {
  const reasons: Reason[] = [];
  for (const [code, reason] of [
    ['timeout_failopen', 'timeout'],
    ['partial_enrichment', 'unavailable'],
  ] as const) {
    const sources = [...new Set(missing.filter((m) => m.reason === reason).map((m) => m.source))].sort();
    if (sources.length > 0) reasons.push({ code, detail: { sources: sources.join(',') } });
  }
  return reasons;
}

async function answer(req: http.IncomingMessage, rawBody: Buffer): Promise<{ status: number; body: string; timings?: Timings }> {
  const key = await keyOf(hashKey(bearerToken(req.headers.authorization) ?? ''));
  if (!key) return { status: 401, body: '{"error":"unauthenticated"}' };
  const scope = { tenantId: key.tenantId, mode: key.mode };
  const request = JSON.parse(rawBody.toString('utf8')) as VerdictRequest;
  const event = verdictEventOf(request);
  const timings = new Timings();
  const now = new Date();
  const idemKey = idempotencyKeyOf(req.headers['idempotency-key']);
  const idempotency = idemKey ? { key: idemKey, bodySha256: createHash('sha256').update(rawBody).digest() } : undefined;
  if (idempotency) {
    const stored = await timings.time('idempotency', findAnswer(deps.db, scope, idempotency.key, now));
    if (stored) return { status: 200, body: stored.response, timings };
  }

  const eventId = newId('evt');
  const policy = await deps.policies.inForce(scope);
  // collectSignals' gathering: one deadline over the device, the lists and velocity; the graph's own.
  const deadlineMs = deps.config.signalDeadlineMs;
  const { signal: deadline, clear: deadlineOver } = clearableDeadline(deadlineMs);
  const missing: Missing[] = [];
  const note = <T>(source: string, g: Gathered<T>): T | undefined => {
    if (g.ok) return g.value;
    missing.push({ source, reason: g.missing });
    return undefined;
  };
  const collect = <T>(source: string, work: Promise<T>) => gather(timings.time(source, work), deadline);
  // The graph's read under its own deadline (GRAPH_DEADLINE_MS), as collectSignals reads it.
  const graphMs = deps.config.graphDeadlineMs;
  const { signal: graphDeadline, clear: graphOver } = clearableDeadline(graphMs);

  const deviceP = event.deviceToken ? collect('device', verifyDeviceToken(deps, scope, event.deviceToken, now)) : undefined;
  const parsed = event.email ? parseEmail(event.email) : undefined;
  const domain = parsed?.ok && parsed.registrableDomain ? { full: parsed.asciiDomain, registrable: parsed.registrableDomain } : undefined;
  const deviceId = deviceP ? note('device', await deviceP) : undefined;

  const identified: Identified = { event, eventId, deviceId, domain };
  const counters = velocityCounters(scope, identified, policy);
  const link = eventLink(scope, identified, now, deps.config.hubThreshold, policy);
  const counting = counters.length > 0 ? countVelocity(deps.redis, counters, now.getTime()) : undefined;
  // collect-signals listValues: the same candidates.
  const listHits = deps.lists.match(scope, listValues(identified));
  const windowSeconds = policy.rules.identity_cluster?.windowSeconds;
  const recentSince = windowSeconds === undefined ? 0 : now.getTime() - windowSeconds * 1000;
  const [lists, velocity, graph] = await Promise.all([
    collect('lists', listHits),
    counting ? collect('velocity', counting) : undefined,
    link
      ? gather(timings.time('graph', readClusterFacts(deps.graph, deps.cypher, link, graphMs, { recentSince })), graphDeadline)
      : undefined,
  ]);
  graphOver();
  const velocitySignal = velocity ? note('velocity', velocity)?.signal : undefined;
  const facts = graph ? note('graph', graph) : undefined;
  const listed = note('lists', lists) ?? [];
  deadlineOver();

  const { payment } = event;
  const reasons = missingReasons(missing);
  const body = JSON.stringify({ id: eventId, verdict: 'allow', reasons, policy_version: policy.version });
  const judged = {
    id: eventId,
    eventType: event.eventType,
    verdict: 'allow' as const,
    reasons,
    policyVersion: policy.version,
    engineVersion: ENGINE_VERSION,
    createdAt: now,
    externalUserId: event.externalUserId,
    email: event.email,
    request: storedRequest(request),
    signals: {
      eventType: event.eventType,
      ...(deviceId && { deviceId }),
      ...(payment && { payment }),
      lists: listed,
      ...(velocitySignal && { velocity: velocitySignal }),
      ...(facts && { graph: graphSignal(facts, now.getTime(), payment?.cardFingerprint, payment?.country) }),
      missing,
    },
  };
  const write = (joining: WriteExtras['joining'], policyVersion: string | undefined = policy.version) =>
    timings.time(
      'write',
      writeJudgedEvent(deps.db, NO_WAKE, scope, judged, {
        idempotency,
        response: body,
        link,
        ...(joining && { joining }),
        ...(policyVersion !== undefined && { policyVersion }),
      }),
    );
  // decideVerdict's: the check for waiting links when the graph answered (freshRead's keys).
  const fresh = link && facts ? { ...joiningKeys(link, facts.joinKeys), seen: facts.appliedSeq } : undefined;
  let outcome = await write(fresh);
  if (!outcome.written && outcome.joining.length > 0 && fresh && link) {
    // Waiting links join it: the verdict reads the graph again with them (its own deadline), then
    // writes without the check.
    const again = clearableDeadline(graphMs);
    await gather(
      timings.time('graph_fresh', readClusterFacts(deps.graph, deps.cypher, link, graphMs, { pending: outcome.joining, recentSince })),
      again.signal,
    );
    again.clear();
    outcome = await write(undefined);
  }
  if (!outcome.written && outcome.superseded) {
    // A policy published over the one in memory (never in the bench): the verdict refreshes and
    // judges again; the floor refreshes and writes without the checks.
    await deps.policies.refresh(scope);
    outcome = await write(undefined, undefined);
  }
  if (!outcome.written && idempotency) {
    // A twin with this key committed first: its answer, as the verdict replays it.
    const stored = await findAnswer(deps.db, scope, idempotency.key, now);
    if (stored) return { status: 200, body: stored.response, timings };
  }
  return { status: 200, body, timings };
}

const server = http.createServer(async (req, res) => {
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { status, body, timings } = await answer(req, Buffer.concat(chunks));
    res.writeHead(status, { 'content-type': 'application/json', ...(timings && { 'server-timing': timings.header() }) }).end(body);
  } catch (err) {
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'internal', message: String(err) }));
  }
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.once('SIGTERM', () =>
  server.close(
    () =>
      void Promise.allSettled([listWatch.close(), policyWatch.close()])
        .then(() => deps.close())
        .finally(() => process.exit(0)),
  ),
);
