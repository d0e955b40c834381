// When a failed webhook delivery is tried again: a fixed schedule of waits, each with ±20%
// jitter so a receiver that comes back is not hit by every sender at once. 15 attempts over
// about three days (the last wait ends 75.6 h after the first attempt, ± jitter), then the
// delivery is failed. Pure: the caller passes the random source and the unit (1 s in production).
export const RETRY_WAITS_SECONDS = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 43_200, 43_200, 43_200, 43_200, 43_200];

export const MAX_ATTEMPTS = RETRY_WAITS_SECONDS.length + 1;

const JITTER = 0.2;

// The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed, in ms; undefined
// when no attempt is left.
export function nextWaitMs(attempt: number, unitMs: number, random: () => number = Math.random): number | undefined {
  const seconds = RETRY_WAITS_SECONDS[attempt - 1];
  if (seconds === undefined) return undefined;
  return Math.round(seconds * unitMs * (1 - JITTER + 2 * JITTER * random()));
}
