// Runs a stored backtest: the candidate evaluated over the scope's stored events in the range,
// streamed in (created_at, id) order, tallied against what was decided and against the labels
// learned since; flips stored in batches (up to MAX_STORED_FLIPS), progress recorded about once
// a second for anyone watching (the CLI's progress bar, another terminal).
import type pg from 'pg';
import { evaluate } from '../../engine/evaluate.js';
import { defaultRules } from '../../engine/rule-table.js';
import { AppError } from '../../errors.js';
import { loadLabels } from './backtest-labels.js';
import { failBacktest, finishBacktest, findBacktest, insertFlips, recordProgress, restartBacktest } from './backtest-store.js';
import { Tally, type Flip } from './backtest-tally.js';
import { countedWindowWarnings } from '../replay/counted-windows.js';
import { fromDocument } from '../documents/policy-document.js';
import { streamForBacktest } from '../replay/stored-decisions.js';

export const MAX_STORED_FLIPS = 100_000;
const PROGRESS_EVERY_MS = 1000;

export type Progress = (done: number, total: number) => void;

export async function runBacktest(deps: { db: pg.Pool }, id: string, onProgress?: Progress): Promise<void> {
  const bt = await findBacktest(deps.db, id);
  if (!bt) throw new AppError('not_found', `No backtest ${id}.`);
  const scope = { tenantId: bt.tenantId, mode: bt.mode };
  await restartBacktest(deps.db, id);
  try {
    const started = Date.now();
    const policy = fromDocument(bt.candidate, bt.candidateVersion ?? 'candidate');
    const labelOf = await loadLabels(deps.db, scope);
    const tally = new Tally();
    let stored = 0;
    let lastProgress = started;
    await streamForBacktest(deps.db, { scope, from: bt.from, to: bt.to, eventType: bt.eventType }, async (batch) => {
      const flips: Flip[] = [];
      for (const d of batch) {
        const after = evaluate(d.signals, defaultRules, policy);
        const flip = tally.add(
          { id: d.id, eventType: d.signals.eventType, createdAt: d.at },
          { verdict: d.verdict, codes: d.codes },
          { verdict: after.verdict, codes: after.reasons.map((r) => r.code) },
          labelOf(d),
        );
        if (flip && stored + flips.length < MAX_STORED_FLIPS) flips.push(flip);
      }
      await insertFlips(deps.db, id, stored + 1, flips);
      stored += flips.length;
      const done = tally.events;
      onProgress?.(done, bt.eventsTotal);
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        await recordProgress(deps.db, id, done);
      }
    });
    const result = tally.result();
    const elapsedMs = Date.now() - started;
    await finishBacktest(deps.db, id, {
      ...result,
      flips_stored: stored,
      warnings: await countedWindowWarnings(deps.db, scope, bt.candidate),
      elapsed_ms: elapsedMs,
      events_per_second: elapsedMs > 0 ? Math.round((result.events * 1000) / elapsedMs) : result.events,
    });
  } catch (err) {
    await failBacktest(deps.db, id, err instanceof Error ? err.message : String(err));
    throw err;
  }
}
