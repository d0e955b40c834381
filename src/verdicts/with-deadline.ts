// Runs a signal collector against the verdict's one deadline. A collector that fails becomes a
// missing signal ('unavailable'), one that runs past the deadline a missing signal ('timeout');
// neither is an exception.
import { beforeDeadline, isDeadline } from '../deadline.js';
import type { MissingSignal } from '../engine/types.js';

export type Gathered<T> = { ok: true; value: T } | { ok: false; missing: MissingSignal['reason']; error?: unknown };

export function gather<T>(work: Promise<T>, deadline: AbortSignal): Promise<Gathered<T>> {
  return beforeDeadline(work, deadline).then(
    (value): Gathered<T> => ({ ok: true, value }),
    (error: unknown): Gathered<T> =>
      isDeadline(error, deadline) ? { ok: false, missing: 'timeout' } : { ok: false, missing: 'unavailable', error },
  );
}
