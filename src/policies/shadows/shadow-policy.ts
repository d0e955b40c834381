// Shadow policies: a published version set as the shadow of a scope is evaluated beside the live
// policy on every verdict, after the response, and its decision stored (never returned). The
// report compares the two over live traffic exactly as a backtest compares over history.
import type pg from 'pg';
import type { Logger } from 'pino';
import { inTransaction, type Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import { ENGINE_VERSION } from '../../engine/engine-version.js';
import { evaluate } from '../../engine/evaluate.js';
import { defaultRules } from '../../engine/rule-table.js';
import type { Signals, Verdict } from '../../engine/types.js';
import { decodeCursor, encodeCursor } from '../../db/keyset-cursor.js';
import { AppError } from '../../errors.js';
import { loadLabels } from '../backtests/backtest-labels.js';
import { Tally } from '../backtests/backtest-tally.js';
import { announcePolicyChange, type PolicyRegistry } from '../documents/policy-registry.js';
import { clearShadowVersion, findPolicyVersion, setShadowVersion, shadowsInForce } from '../documents/policy-store.js';
import { insertShadowDecision, shadowFlips, streamShadowDecisions, type ShadowFilter } from './shadow-store.js';

export async function setShadow(deps: { db: pg.Pool }, scope: Scope, version: string): Promise<void> {
  if (!(await findPolicyVersion(deps.db, scope, version))) {
    throw new AppError('not_found', `No published policy version ${version} for this tenant and mode.`);
  }
  await inTransaction(deps.db, async (tx) => {
    await setShadowVersion(tx, scope, version);
    await announcePolicyChange(tx, scope);
  });
}

export async function clearShadow(deps: { db: pg.Pool }, scope: Scope): Promise<void> {
  await inTransaction(deps.db, async (tx) => {
    await clearShadowVersion(tx, scope);
    await announcePolicyChange(tx, scope);
  });
}

export interface ShadowInput {
  eventId: string;
  signals: Signals;
  // The decision the caller got.
  live: { verdict: Verdict };
  createdAt: Date;
}

// For the verdict path, after the response is sent: evaluates the scope's shadow (if any) on
// the same signals and stores its decision. No shadow: no work, no I/O. Never throws: a failure
// is logged, since nobody is waiting for it.
export async function recordShadow(
  deps: { db: Queryable; policies: PolicyRegistry; logger: Logger },
  scope: Scope,
  input: ShadowInput,
): Promise<void> {
  const policy = deps.policies.shadowFor(scope);
  if (!policy) return;
  try {
    const d = evaluate(input.signals, defaultRules, policy);
    await insertShadowDecision(deps.db, scope, {
      eventId: input.eventId,
      policyVersion: policy.version,
      engineVersion: d.fault ? undefined : ENGINE_VERSION,
      verdict: d.verdict,
      reasons: d.reasons,
      recommendedAction: d.recommendedAction,
      liveVerdict: input.live.verdict,
      createdAt: input.createdAt,
    });
  } catch (err) {
    deps.logger.warn({ event_id: input.eventId, err: String(err) }, 'shadow decision not stored');
  }
}

export interface ShadowReportInput {
  version?: string;
  from?: Date;
  to?: Date;
  cursor?: string;
  limit?: number;
}

export async function shadowReport(deps: { db: pg.Pool }, scope: Scope, input: ShadowReportInput) {
  const version = input.version ?? (await shadowsInForce(deps.db, scope))[0]?.version;
  if (!version) throw new AppError('not_found', 'This tenant and mode have no shadow policy; name a version with --policy.');
  const filter: ShadowFilter = { version, from: input.from, to: input.to };
  const labelOf = await loadLabels(deps.db, scope);
  const label = (r: { event_id: string; external_user_id: string | null; email: string | null; signals: Pick<Signals, 'graph'> }) =>
    labelOf({
      id: r.event_id,
      externalUserId: r.external_user_id ?? undefined,
      email: r.email ?? undefined,
      signals: r.signals as Signals,
    });
  const tally = new Tally();
  await streamShadowDecisions(deps.db, scope, filter, (rows) => {
    for (const r of rows) {
      tally.add(
        { id: r.event_id, eventType: r.event_type, createdAt: r.created_at },
        { verdict: r.live_verdict, codes: r.live_reasons.map((x) => x.code) },
        { verdict: r.verdict, codes: r.reasons.map((x) => x.code) },
        label(r),
      );
    }
  });
  const limit = input.limit ?? 50;
  const page = await shadowFlips(deps.db, scope, filter, input.cursor ? decodeCursor(input.cursor) : undefined, limit);
  const shown = page.slice(0, limit);
  const flips = shown.map(
    (r) =>
      new Tally().add(
        { id: r.event_id, eventType: r.event_type, createdAt: r.created_at },
        { verdict: r.live_verdict, codes: r.live_reasons.map((x) => x.code) },
        { verdict: r.verdict, codes: r.reasons.map((x) => x.code) },
        label(r),
      )!,
  );
  const { flips: total, ...result } = tally.result();
  const last = shown[shown.length - 1];
  return {
    shadow_version: version,
    ...(input.from && { from: input.from.toISOString() }),
    ...(input.to && { to: input.to.toISOString() }),
    ...result,
    flips: {
      total,
      events: flips,
      ...(page.length > limit && last && { next_cursor: encodeCursor({ createdAt: last.created_at, id: last.event_id }) }),
    },
  };
}
