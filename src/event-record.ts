// The one shape of a judged event, shared by every room that stores or reads one: the event as
// written with its decision (verdicts/), as listed and fetched (events/), and as re-judged by a
// policy replay (policies/replay/). Verdict and Reason are the engine's own (engine/types.ts).
import type { Reason, Verdict } from './engine/types.js';

export type { Reason, Verdict } from './engine/types.js';

export interface EventRecord {
  id: string;
  eventType: string;
  verdict: Verdict;
  reasons: Reason[];
  policyVersion: string;
  // The engine that judged (absent when it failed open), so a replay knows what ran.
  engineVersion?: string;
  recommendedAction?: string;
  createdAt: Date;
  externalUserId?: string;
  email?: string;
}
