// Use case: erase a person on request (GDPR Art. 17), found by external user id or email, in all
// three stores. Redis first (their members of the velocity sets, which the stored requests name),
// then one Postgres transaction (events cleared, webhook payloads redacted, feedback, list entries,
// unapplied outbox rows removed, the erasure logged without values, and the graph's forget row
// queued), then the graph writer applies the forget in lane order: their events, their accounts
// and the identifiers no other account uses go, and the clusters they were in are recomputed.
import type pg from 'pg';
import neo4j, { type Driver } from 'neo4j-driver';
import type { Redis } from 'ioredis';
import type { Scope } from '../scope.js';
import type { Clock } from '../clock.js';
import { inTransaction } from '../db/queryable.js';
import { newId } from '../db/new-id.js';
import type { Policy } from '../engine/policy.js';
import type { EventType } from '../engine/types.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import { eventIdentifiers, type GraphIdentifier } from '../graph/event-identifiers.js';
import { forgetState } from '../graph/graph-outbox-store.js';
import { AppError } from '../errors.js';
import { normalizeListValue, type ListKind } from '../lists/list-values.js';
import { emailIdentity } from '../signals/email/normalize-email.js';
import { isFreemailDomain } from '../signals/email/freemail-domains.js';
import { parseEmail } from '../signals/email/parse-email.js';
import { countersFor } from '../velocity/velocity-store.js';
import { eventFeedbackKeys } from './retention-store.js';
import {
  clearEvents,
  lockPersonEvents,
  logErasure,
  recordGraphCounts,
  redactDeliveries,
  removeFeedback,
  removeListEntries,
} from './erasure-store.js';
import type { ReceivedEvent } from '../events/received-event.js';

export interface Subject {
  kind: 'external_user_id' | 'email';
  value: string;
}

export interface Erased {
  erasureId: string;
  events: number;
  webhookDeliveries: number;
  feedback: number;
  listEntries: number;
  velocityMembers: number;
  // From the graph, once the graph writer has applied the erasure (undefined if it has not yet).
  graph?: { accounts: number; identifiers: number };
}

// What an erasure needs; the composition root (src/deps.ts) passes its Deps.
export interface EraseDeps {
  db: pg.Pool;
  redis: Redis;
  graph: Driver;
  cypher: CypherCatalog;
  engine: { policy: Policy };
  clock: Clock;
  graphOutbox: GraphOutbox;
}

// Removes each event's members from every velocity set it may have been counted in (the
// verdict's counters: velocity-store.ts countersFor), whichever policy judged it: the policy
// decides only windows and which amounts count as small, so any amount is passed as 0, and the
// small-amount sets are always cleaned. Removing a member that was never added is harmless.
async function forgetVelocity(deps: EraseDeps, scope: Scope, events: ReceivedEvent[]): Promise<number> {
  const pipeline = deps.redis.pipeline();
  let queued = 0;
  for (const e of events) {
    const parsed = e.email ? parseEmail(e.email) : undefined;
    const domain =
      parsed?.ok && parsed.registrableDomain && !isFreemailDomain(parsed.asciiDomain, parsed.registrableDomain)
        ? parsed.registrableDomain
        : undefined;
    const amount = e.amount === undefined ? undefined : 0;
    for (const c of countersFor(
      scope,
      {
        eventType: e.eventType as EventType,
        eventId: e.id,
        ip: e.ip,
        deviceId: e.deviceId,
        domain,
        card: e.cardFingerprint,
        amount,
        account: e.externalUserId,
      },
      deps.engine.policy,
    )) {
      pipeline.zrem(c.key, c.member);
      queued += 1;
    }
  }
  if (queued === 0) return 0;
  const replies = (await pipeline.exec()) ?? [];
  const failed = replies.find(([err]) => err);
  if (failed) throw failed[0];
  return replies.reduce((n, [, removed]) => n + Number(removed), 0);
}

function personIdentifiers(subject: Subject, events: ReceivedEvent[]): { accounts: string[]; emails: string[]; ids: GraphIdentifier[] } {
  const accounts = new Set<string>(subject.kind === 'external_user_id' ? [subject.value] : []);
  const emails = new Set<string>(subject.kind === 'email' ? [subject.value] : []);
  const ids = new Map<string, GraphIdentifier>();
  for (const e of events) {
    if (e.externalUserId) accounts.add(e.externalUserId);
    if (e.email) emails.add(e.email);
    for (const id of eventIdentifiers({ email: e.email, deviceId: e.deviceId, card: e.cardFingerprint, identity: e.identity })) {
      ids.set(`${id.kind}\0${id.value}`, id);
    }
  }
  for (const id of eventIdentifiers({ email: subject.kind === 'email' ? subject.value : undefined }))
    ids.set(`${id.kind}\0${id.value}`, id);
  return { accounts: [...accounts], emails: [...emails], ids: [...ids.values()] };
}

export async function erasePerson(
  deps: EraseDeps,
  scope: Scope,
  subject: Subject,
  options: { requestedBy: string; waitMs?: number },
): Promise<Erased> {
  if (!subject.value) throw AppError.invalid([{ path: subject.kind, message: 'must not be empty' }]);
  const erasureId = newId('era');
  const now = deps.clock.now();
  // Read first (no lock) to know which velocity members to remove before the commit.
  const seen = await lockPersonEvents(deps.db, scope, subject);
  const velocityMembers = await forgetVelocity(deps, scope, seen);
  const erased = await inTransaction(deps.db, async (tx) => {
    const events = await lockPersonEvents(tx, scope, subject);
    const eventIds = events.map((e) => e.id);
    const person = personIdentifiers(subject, events);
    const cards = person.ids.filter((i) => i.kind === 'card').map((i) => i.value);
    const devices = person.ids.filter((i) => i.kind === 'device').map((i) => i.value);
    const listed = (
      [
        ['email', person.emails],
        ['external_user_id', person.accounts],
        ['card_fingerprint', cards],
        ['device', devices],
      ] as [ListKind, string[]][]
    )
      .flatMap(([kind, values]) => values.map((v) => ({ kind, value: normalizeListValue(kind, v) })))
      .filter((e): e is { kind: ListKind; value: string } => e.value !== undefined);
    const normalizedEmails = person.emails.map((e) => emailIdentity(e) ?? e);
    const counts = {
      events: await clearEvents(tx, scope, eventIds),
      webhookDeliveries: await redactDeliveries(tx, scope, eventIds),
      feedbackKeys: await removeFeedback(tx, scope, { accounts: person.accounts, emails: person.emails, eventIds }),
      listEntries: await removeListEntries(tx, scope, listed),
    };
    // Links not yet applied would write the erased values into the graph; marks on them too.
    await deps.graphOutbox.dropPending(tx, scope, { eventIds, markAnchors: [...person.accounts, ...normalizedEmails] });
    await logErasure(tx, scope, {
      id: erasureId,
      subjectKind: subject.kind,
      requestedBy: options.requestedBy,
      requestedAt: now,
      events: counts.events,
      webhookDeliveries: counts.webhookDeliveries,
      feedback: counts.feedbackKeys.length,
      listEntries: counts.listEntries,
      velocityMembers,
    });
    await deps.graphOutbox.forget(tx, scope, {
      at: now.getTime(),
      eventIds,
      accounts: person.accounts,
      ids: person.ids,
      feedbackKeys: [...eventFeedbackKeys(eventIds), ...counts.feedbackKeys],
      erasureId,
    });
    return {
      erasureId,
      events: counts.events,
      webhookDeliveries: counts.webhookDeliveries,
      feedback: counts.feedbackKeys.length,
      listEntries: counts.listEntries,
      velocityMembers,
    };
  });
  const graph = await graphCounts(deps, scope, erasureId, options.waitMs ?? 60_000);
  return { ...erased, ...(graph && { graph }) };
}

// Waits (bounded) for the graph writer to apply the erasure, then reads and logs its counts.
async function graphCounts(
  deps: EraseDeps,
  scope: Scope,
  erasureId: string,
  waitMs: number,
): Promise<{ accounts: number; identifiers: number } | undefined> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const state = await forgetState(deps.db, erasureId);
    if (state === 'failed')
      throw new AppError('internal', `Neo4j refused erasure ${erasureId}; see graph_outbox.error. Postgres and Redis are erased.`);
    if (state === 'applied') break;
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { records } = await deps.graph.executeQuery(
    deps.cypher.get('graph/erasure-counts'),
    { tenantId: scope.tenantId, mode: scope.mode, id: erasureId },
    { routing: neo4j.routing.READ },
  );
  const record = records[0];
  const counts = { accounts: Number(record?.get('accounts') ?? 0), identifiers: Number(record?.get('identifiers') ?? 0) };
  await recordGraphCounts(deps.db, erasureId, counts);
  return counts;
}
