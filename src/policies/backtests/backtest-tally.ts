// The arithmetic of a backtest (and of a shadow report): the verdict transition matrix, the
// count of every reason code before and after, label-weighted results, and the flips (events
// whose verdict changed, with the codes that changed). Pure.
import type { Verdict } from '../../engine/types.js';
import type { Label } from './backtest-labels.js';

export interface Flip {
  event_id: string;
  event_type: string;
  created_at: string;
  before: Verdict;
  after: Verdict;
  added: string[];
  removed: string[];
  label: Label | null;
}

type Row = Record<Verdict, number>;
const row = (): Row => ({ allow: 0, review: 0, block: 0 });

export interface TallyResult {
  events: number;
  matrix: Record<Verdict, Row>;
  codes: { before: Record<string, number>; after: Record<string, number> };
  labels: {
    abusive: { events: number; caught_before: number; caught_after: number; newly_caught: number; newly_missed: number };
    good: {
      events: number;
      flagged_before: number;
      flagged_after: number;
      newly_reviewed: number;
      newly_blocked: number;
      newly_allowed: number;
    };
    unlabeled: number;
  };
  flips: number;
}

export interface Side {
  verdict: Verdict;
  codes: string[];
}

export class Tally {
  private readonly r: TallyResult = {
    events: 0,
    matrix: { allow: row(), review: row(), block: row() },
    codes: { before: {}, after: {} },
    labels: {
      abusive: { events: 0, caught_before: 0, caught_after: 0, newly_caught: 0, newly_missed: 0 },
      good: { events: 0, flagged_before: 0, flagged_after: 0, newly_reviewed: 0, newly_blocked: 0, newly_allowed: 0 },
      unlabeled: 0,
    },
    flips: 0,
  };

  // Returns the flip when the verdict changed.
  // createdAt may be epoch milliseconds as text (a backtest reads it so, and converts only flips).
  add(
    event: { id: string; eventType: string; createdAt: Date | string },
    before: Side,
    after: Side,
    label: Label | undefined,
  ): Flip | undefined {
    const r = this.r;
    r.events += 1;
    r.matrix[before.verdict][after.verdict] += 1;
    for (const c of before.codes) r.codes.before[c] = (r.codes.before[c] ?? 0) + 1;
    for (const c of after.codes) r.codes.after[c] = (r.codes.after[c] ?? 0) + 1;
    const caughtBefore = before.verdict !== 'allow';
    const caughtAfter = after.verdict !== 'allow';
    if (label === 'abusive') {
      const a = r.labels.abusive;
      a.events += 1;
      if (caughtBefore) a.caught_before += 1;
      if (caughtAfter) a.caught_after += 1;
      if (!caughtBefore && caughtAfter) a.newly_caught += 1;
      if (caughtBefore && !caughtAfter) a.newly_missed += 1;
    } else if (label === 'good') {
      const g = r.labels.good;
      g.events += 1;
      if (caughtBefore) g.flagged_before += 1;
      if (caughtAfter) g.flagged_after += 1;
      if (before.verdict === 'allow' && after.verdict === 'review') g.newly_reviewed += 1;
      if (before.verdict !== 'block' && after.verdict === 'block') g.newly_blocked += 1;
      if (caughtBefore && !caughtAfter) g.newly_allowed += 1;
    } else {
      r.labels.unlabeled += 1;
    }
    if (before.verdict === after.verdict) return undefined;
    r.flips += 1;
    return {
      event_id: event.id,
      event_type: event.eventType,
      created_at: (typeof event.createdAt === 'string' ? new Date(Number(event.createdAt)) : event.createdAt).toISOString(),
      before: before.verdict,
      after: after.verdict,
      added: after.codes.filter((c) => !before.codes.includes(c)),
      removed: before.codes.filter((c) => !after.codes.includes(c)),
      label: label ?? null,
    };
  }

  get events(): number {
    return this.r.events;
  }

  result(): TallyResult {
    return structuredClone(this.r);
  }
}
