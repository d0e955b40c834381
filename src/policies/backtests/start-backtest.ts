// Use case: backtest a candidate policy (a document, or a published version) over a scope's
// stored events in [from, to). Short ranges run here and now; long ones (more than inlineMax
// events, or when asked) are queued as a pg-boss job. Either way the run is stored and can be
// fetched again by id (backtestReport).
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Scope } from '../../scope.js';
import { newId } from '../../db/new-id.js';
import { AppError } from '../../errors.js';
import { enqueueBacktest } from './backtest-job.js';
import { findBacktest, insertBacktest, listFlips } from './backtest-store.js';
import type { PolicyDocument } from '../documents/policy-document.js';
import { resolvePolicy } from '../documents/resolve-policy.js';
import { runBacktest, type Progress } from './run-backtest.js';
import { countDecisions } from '../replay/stored-decisions.js';
import { validatePolicyDocument } from '../documents/validate-policy.js';

export const INLINE_MAX_EVENTS = 200_000;
const EVENT_TYPES = ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'];

export interface BacktestInput {
  candidate: { document: unknown } | { version: string };
  from: Date;
  to: Date;
  eventType?: string;
  run?: 'auto' | 'inline' | 'job';
  inlineMax?: number;
}

type BacktestDeps = { db: pg.Pool; boss: PgBoss };

async function candidateOf(
  deps: BacktestDeps,
  scope: Scope,
  c: BacktestInput['candidate'],
): Promise<{ document: PolicyDocument; version?: string }> {
  if ('version' in c) return { document: (await resolvePolicy(deps.db, scope, c.version)).document, version: c.version };
  const checked = validatePolicyDocument(c.document);
  if (!checked.ok) throw AppError.invalid(checked.issues, 'The candidate policy document is invalid.');
  return { document: checked.document };
}

export async function startBacktest(
  deps: BacktestDeps,
  scope: Scope,
  input: BacktestInput,
  onProgress?: Progress,
): Promise<{ backtestId: string; queued: boolean; eventsTotal: number }> {
  const issues = [];
  if (Number.isNaN(input.from.getTime())) issues.push({ path: 'from', message: 'must be a date-time (RFC 3339)' });
  if (Number.isNaN(input.to.getTime())) issues.push({ path: 'to', message: 'must be a date-time (RFC 3339)' });
  if (issues.length === 0 && input.from >= input.to) issues.push({ path: 'to', message: 'must be after from' });
  if (input.eventType !== undefined && !EVENT_TYPES.includes(input.eventType))
    issues.push({ path: 'event_type', message: `must be one of ${EVENT_TYPES.join(', ')}` });
  if (issues.length > 0) throw AppError.invalid(issues);

  const candidate = await candidateOf(deps, scope, input.candidate);
  const eventsTotal = await countDecisions(deps.db, { scope, from: input.from, to: input.to, eventType: input.eventType });
  const queued = input.run === 'job' || (input.run !== 'inline' && eventsTotal > (input.inlineMax ?? INLINE_MAX_EVENTS));
  const backtestId = newId('bt');
  try {
    await insertBacktest(deps.db, scope, {
      id: backtestId,
      candidate: candidate.document,
      candidateVersion: candidate.version,
      from: input.from,
      to: input.to,
      eventType: input.eventType,
      eventsTotal,
      status: queued ? 'queued' : 'running',
    });
  } catch (err) {
    if ((err as { code?: string }).code === '23503') throw new AppError('not_found', `No tenant ${scope.tenantId}.`);
    throw err;
  }
  if (queued) await enqueueBacktest(deps, backtestId);
  else await runBacktest(deps, backtestId, onProgress);
  return { backtestId, queued, eventsTotal };
}

// The stored run as the CLI prints it, with one page of flips (cursor: the last seq seen).
export async function backtestReport(db: pg.Pool, scope: Scope | undefined, id: string, page: { cursor?: string; limit?: number } = {}) {
  const bt = await findBacktest(db, id, scope);
  if (!bt) throw new AppError('not_found', `No backtest ${id} for this tenant and mode.`);
  const after = page.cursor === undefined ? 0 : Number(page.cursor);
  if (!Number.isInteger(after) || after < 0) throw AppError.invalid([{ path: 'cursor', message: 'is not a cursor from a previous page' }]);
  const limit = page.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw AppError.invalid([{ path: 'limit', message: 'must be an integer from 1 to 1000' }]);
  const { flips, more } = await listFlips(db, id, after, limit);
  const { flips: total, flips_stored: stored, ...result } = (bt.result ?? {}) as Record<string, unknown>;
  return {
    backtest_id: bt.id,
    status: bt.status,
    ...(bt.candidateVersion && { candidate_version: bt.candidateVersion }),
    from: bt.from.toISOString(),
    to: bt.to.toISOString(),
    ...(bt.eventType && { event_type: bt.eventType }),
    events_total: bt.eventsTotal,
    events_done: bt.eventsDone,
    ...result,
    ...(bt.error && { error: bt.error }),
    flips: {
      total: total ?? 0,
      stored: stored ?? 0,
      events: flips,
      ...(more && { next_cursor: String(flips[flips.length - 1]!.seq) }),
    },
  };
}
