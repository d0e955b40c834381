// Use case: screen one event (contract §3, §4.1). A key already answered is replayed (or is a
// conflict). Otherwise: gather signals outside any transaction (reads, and the atomic velocity
// count), evaluate (pure, fails open), then write the event, its idempotency record, its review
// and its graph link in one statement, which first checks the outbox for links not yet applied
// (or applied since the graph was read) that join the event; if some do, nothing is written, the
// graph is read again with them, and
// the event is decided again and written (docs/graph.md, "Fresh reads"). A request that does
// not commit (a Postgres failure, or a twin with the same key that committed first) takes its
// velocity counts back and leaves no trace in any store. The graph writer applies the link after the commit; a shadow policy, if
// the scope has one, judges the same signals after the response.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Scope } from '../scope.js';
import type { Clock } from '../clock.js';
import { newId } from '../db/new-id.js';
import { evaluate } from '../engine/evaluate.js';
import type { Policy } from '../engine/policy.js';
import type { Rule } from '../engine/rule.js';
import type { Decision, Signals } from '../engine/types.js';
import { AppError } from '../errors.js';
import type { GraphOutbox } from '../graph/graph-outbox.js';
import type { Metrics } from '../metrics/metrics.js';
import type { PolicyRegistry } from '../policies/documents/policy-registry.js';
import { recordShadow } from '../policies/shadows/shadow-policy.js';
import { Timings } from '../timings.js';
import { collectSignals, type Collected, type VerdictDeps } from './collect-signals.js';
import { findAnswer, type StoredAnswer } from './idempotency-store.js';
import { storedRequest, type VerdictEvent, type VerdictRequest } from './verdict-request.js';
import { writeJudgedEvent, type WriteExtras, type WriteOutcome } from './verdict-store.js';

// What screening an event needs: the signals' sources, and what judging and writing it use. The
// composition root (src/deps.ts) passes its Deps.
export interface DecideVerdictDeps extends VerdictDeps {
  db: pg.Pool;
  engine: { rules: readonly Rule[] };
  clock: Clock;
  policies: PolicyRegistry;
  graphOutbox: GraphOutbox;
  metrics: Metrics;
}

export interface VerdictInput {
  // The body as validated, stored as received; and the event it asks about, as the route mapped it.
  request: VerdictRequest;
  event: VerdictEvent;
  rawBody: Buffer;
  idempotencyKey?: string;
  timings?: Timings;
  // Judged again because the policy it was judged by was superseded before its write (at most
  // twice; the third judgement writes without the check).
  rejudged?: number;
}

function replay(answer: StoredAnswer, bodySha256: Buffer): string {
  if (!answer.bodySha256.equals(bodySha256)) {
    throw new AppError(
      'idempotency_conflict',
      'This Idempotency-Key was already used with a different request body. Derive a new key per attempt.',
    );
  }
  return answer.response;
}

interface Judged {
  signals: Signals;
  decision: Decision;
  // The response's exact bytes.
  body: string;
}

function judge(deps: Pick<DecideVerdictDeps, 'engine' | 'logger'>, eventId: string, signals: Signals, policy: Policy): Judged {
  const decision = evaluate(signals, deps.engine.rules, policy);
  // Counted once, with the verdict (metrics.verdictJudged: doorman_fail_open_total).
  if (decision.fault) deps.logger.error({ event_id: eventId, fault: decision.fault }, 'engine fault: failed open');
  const body = JSON.stringify({
    id: eventId,
    verdict: decision.verdict,
    reasons: decision.reasons,
    policy_version: decision.policyVersion,
    ...(decision.recommendedAction && { recommended_action: decision.recommendedAction }),
  });
  return { signals, decision, body };
}

async function takeBack(deps: Pick<DecideVerdictDeps, 'logger'>, collected: Collected, eventId: string): Promise<void> {
  try {
    await (await collected.counted)?.undo();
  } catch (err) {
    deps.logger.warn({ event_id: eventId, err: String(err) }, 'velocity counts of an uncommitted event not taken back');
  }
}

export async function decideVerdict(deps: DecideVerdictDeps, scope: Scope, input: VerdictInput): Promise<string> {
  const { request, event, idempotencyKey: key } = input;
  const timings = input.timings ?? new Timings();
  const now = deps.clock.now();
  const idempotency = key ? { key, bodySha256: createHash('sha256').update(input.rawBody).digest() } : undefined;
  if (idempotency) {
    const answer = await timings.time('idempotency', findAnswer(deps.db, scope, idempotency.key, now));
    if (answer) return replay(answer, idempotency.bodySha256);
  }

  const eventId = newId('evt');
  // The scope's published policy (or the default), read once: velocity windows and rules agree.
  const policy = await deps.policies.inForce(scope);
  const collected = await collectSignals(deps, scope, event, { eventId, now, timings, policy });
  let judged = judge(deps, eventId, collected.signals, policy);

  const write = (joining: WriteExtras['joining']) =>
    timings.time(
      'write',
      writeJudgedEvent(
        deps.db,
        deps.graphOutbox,
        scope,
        {
          id: eventId,
          eventType: event.eventType,
          verdict: judged.decision.verdict,
          reasons: judged.decision.reasons,
          policyVersion: judged.decision.policyVersion,
          engineVersion: judged.decision.engineVersion,
          recommendedAction: judged.decision.recommendedAction,
          createdAt: now,
          externalUserId: event.externalUserId,
          email: event.email,
          request: storedRequest(request),
          signals: judged.signals,
        },
        {
          idempotency,
          response: judged.body,
          link: collected.link,
          ...(joining && { joining }),
          // Never committed under a policy published over: this process's memory of
          // policies may lag by MEMORY_STALENESS_MS, and a link judged under the previous link policy
          // would stay in the graph against the one in force.
          ...((input.rejudged ?? 0) < 2 && { policyVersion: policy.version }),
        },
      ),
    );

  let outcome: WriteOutcome;
  try {
    outcome = await write(collected.fresh && { joins: collected.fresh.joins, own: collected.fresh.own, seen: collected.fresh.seen });
    if (!outcome.written && outcome.joining.length > 0 && collected.fresh) {
      // Links the first read may have missed (waiting, or applied since it began) join this
      // event: read the graph with them, decide again, and write without the check
      // (docs/graph.md, "Fresh reads").
      judged = judge(deps, eventId, await collected.fresh.reread(outcome.joining, timings), policy);
      outcome = await write(undefined);
    }
  } catch (err) {
    await takeBack(deps, collected, eventId);
    throw err;
  }
  if (!outcome.written && outcome.superseded) {
    await takeBack(deps, collected, eventId);
    await deps.policies.refresh(scope);
    return decideVerdict(deps, scope, { ...input, timings, rejudged: (input.rejudged ?? 0) + 1 });
  }
  if (!outcome.written) {
    // A twin with this key committed first: answer with its bytes, as a replay would.
    await takeBack(deps, collected, eventId);
    const answer = idempotency && (await findAnswer(deps.db, scope, idempotency.key, now));
    if (!answer || !idempotency) throw new AppError('internal', 'The idempotency record vanished; retry with the same key.');
    return replay(answer, idempotency.bodySha256);
  }
  const { decision, signals } = judged;
  // Counted once committed: failed writes and losing twins are not verdicts anyone received.
  deps.metrics.verdictJudged(event.eventType, decision, signals.missing);
  // The shadow policy, if the scope has one, judges the same signals off the response's time.
  setImmediate(() => void recordShadow(deps, scope, { eventId, signals, live: decision, createdAt: now }));
  return judged.body;
}
