// Use case: screen one event (contract §3, §4.1). Idempotency first (replay, conflict, or wait
// for a twin in flight); then gather signals outside any transaction, evaluate (pure, fails
// open), write event + review + idempotency record in one statement, and count velocity after
// the write, so replays and failed requests never count.
import { createHash } from 'node:crypto';
import type { Scope } from '../db/queryable.js';
import { newId } from '../db/new-id.js';
import type { Deps } from '../deps.js';
import { evaluate } from '../engine/evaluate.js';
import { AppError } from '../http/app-error.js';
import { recordVelocity } from '../velocity/velocity-store.js';
import { collectSignals } from './collect-signals.js';
import { claimKey, releaseKey } from './idempotency-store.js';
import { storedRequest, type VerdictRequest } from './verdict-request.js';
import { writeJudgedEvent } from './verdict-store.js';

const WAIT_FOR_TWIN_MS = 10_000;
const POLL_MS = 25;

export interface VerdictInput {
  request: VerdictRequest;
  rawBody: Buffer;
  idempotencyKey?: string;
}

// Resolves to the stored response when this key was already answered, undefined once this
// request owns the key. A twin still in flight is waited for, bounded.
async function claimOrReplay(deps: Pick<Deps, 'db' | 'clock'>, scope: Scope, key: string, bodyHash: Buffer): Promise<string | undefined> {
  const giveUpAt = Date.now() + WAIT_FOR_TWIN_MS;
  for (;;) {
    const outcome = await claimKey(deps.db, scope, key, bodyHash, deps.clock.now());
    if (outcome.state === 'claimed') return undefined;
    if (outcome.state === 'done') return outcome.response;
    if (outcome.state === 'conflict') {
      throw new AppError('idempotency_conflict', 'This Idempotency-Key was already used with a different request body. Derive a new key per attempt.');
    }
    if (Date.now() > giveUpAt) {
      throw new AppError('internal', 'A request with this Idempotency-Key is still in progress; retry with the same key.');
    }
    await new Promise((resolve) => setTimeout(resolve, outcome.state === 'retry' ? 0 : POLL_MS));
  }
}

export async function decideVerdict(deps: Deps, scope: Scope, input: VerdictInput): Promise<string> {
  const { request: req, idempotencyKey: key } = input;
  if (key) {
    const replay = await claimOrReplay(deps, scope, key, createHash('sha256').update(input.rawBody).digest());
    if (replay !== undefined) return replay;
  }
  try {
    const eventId = newId('evt');
    const now = deps.clock.now();
    const { signals, velocityCounters, graphLink } = await collectSignals(deps, scope, req, eventId, now);
    const graphMissing = signals.missing.some((m) => m.source === 'graph');
    const decision = evaluate(signals, deps.engine.rules, deps.engine.policy);
    if (decision.fault) {
      deps.metrics.failOpen += 1;
      deps.logger.error({ event_id: eventId, fault: decision.fault, fail_open_total: deps.metrics.failOpen }, 'engine fault: failed open');
    }
    const body = JSON.stringify({
      id: eventId,
      verdict: decision.verdict,
      reasons: decision.reasons,
      policy_version: decision.policyVersion,
      ...(decision.recommendedAction && { recommended_action: decision.recommendedAction }),
    });
    await writeJudgedEvent(
      deps.db,
      deps.boss,
      scope,
      {
        id: eventId, eventType: req.event_type, verdict: decision.verdict, reasons: decision.reasons,
        policyVersion: decision.policyVersion, recommendedAction: decision.recommendedAction, createdAt: now,
        externalUserId: req.external_user_id, email: req.email, request: storedRequest(req), signals,
      },
      { idempotencyKey: key, response: body, graphRepair: graphMissing ? graphLink : undefined },
    );
    // Sent before the response on the same Redis connection, so the caller's next request reads
    // after it; not awaited, so the response does not wait for it.
    recordVelocity(deps.redis, velocityCounters, now.getTime()).catch((err: unknown) =>
      deps.logger.warn({ event_id: eventId, err: String(err) }, 'velocity not recorded'),
    );
    return body;
  } catch (err) {
    if (key) await releaseKey(deps.db, scope, key).catch(() => undefined);
    throw err;
  }
}
