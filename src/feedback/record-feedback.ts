// Use case: record an outcome about an event, an account or an email, and spread it across the
// subject's linked identity cluster (docs/graph.md, marks). The outcome and its graph mark are
// written in one short transaction (the mark only when the outcome is new), with the console's
// audit entry when an analyst reported it (none is written without the other); the graph writer
// applies the mark after every link committed before it, so a mark about an event never races the
// event's own link.
import type pg from 'pg';
import neo4j, { type Driver } from 'neo4j-driver';
import type { Scope } from '../scope.js';
import type { Clock } from '../clock.js';
import type { CypherCatalog } from '../graph/cypher-catalog.js';
import { inTransaction } from '../db/queryable.js';
import { markOf, type GraphOutbox } from '../graph/graph-outbox.js';
import { audit, type Actor } from '../audit/audit-store.js';
import { AppError } from '../errors.js';
import { emailIdentity } from '../signals/email/normalize-email.js';
import { lockEventErased, recordOutcome, subjectEvents, type Outcome, type SubjectKind } from './feedback-store.js';

// What the feedback use cases need; the composition root (src/deps.ts) passes its Deps.
export interface FeedbackDeps {
  db: pg.Pool;
  graph: Driver;
  cypher: CypherCatalog;
  clock: Clock;
  graphOutbox: GraphOutbox;
}

export interface FeedbackInput {
  subject: { kind: SubjectKind; value: string };
  outcome: Outcome;
  note?: string;
}

async function emailKnownToGraph(deps: Pick<FeedbackDeps, 'graph' | 'cypher'>, scope: Scope, value: string): Promise<boolean> {
  const { records } = await deps.graph.executeQuery(
    deps.cypher.get('graph/email-known'),
    { tenantId: scope.tenantId, mode: scope.mode, value },
    { routing: neo4j.routing.READ },
  );
  return records[0]?.get('known') === true;
}

// `duplicate`: the same (subject, outcome) was already recorded and stands, so nothing was written
// (but the analyst's report is audited all the same). `actor`: the console's analyst, audited as
// `feedback` in the same transaction (the public API's caller is not).
export async function recordFeedback(
  deps: FeedbackDeps,
  scope: Scope,
  input: FeedbackInput,
  actor?: Actor,
): Promise<{ duplicate: boolean }> {
  const { kind, value } = input.subject;
  const anchorValue = kind === 'email' ? (emailIdentity(value) ?? value) : value;
  const events = await subjectEvents(deps.db, scope, kind, value);
  // An email Postgres knows only in another spelling (dots, a plus tag) may still be in the graph.
  if (!events.found && !(kind === 'email' && (await emailKnownToGraph(deps, scope, anchorValue)))) {
    throw new AppError(
      'not_found',
      kind === 'email' ? `No identity built from ${value} in this tenant and mode.` : `No ${kind} ${value} in this tenant and mode.`,
    );
  }
  const at = deps.clock.now();
  const mark = markOf(scope, { source: 'feedback', subject: input.subject, outcome: input.outcome, at, codes: events.codes });
  return inTransaction(deps.db, async (tx) => {
    const recorded = await recordOutcome(tx, scope, { kind, value, outcome: input.outcome, note: input.note, at });
    // About an erased person's event: recorded, and no mark (the graph has forgotten them).
    if (recorded && !(kind === 'event_id' && (await lockEventErased(tx, scope, value)))) await deps.graphOutbox.mark(tx, scope, mark);
    if (actor) await audit(tx, actor, 'feedback', `${kind}:${value}`, { outcome: input.outcome, note: input.note ?? null });
    return { duplicate: !recorded };
  });
}

// A report's answer: the contract's `{ok: true}`, with the additive `duplicate: true` on a repost.
export function feedbackAnswer(result: { duplicate: boolean }): { ok: true; duplicate?: true } {
  return result.duplicate ? { ok: true, duplicate: true } : { ok: true };
}
