// Runs a signal collector against the verdict's one deadline. A collector that fails becomes a
// missing signal ('unavailable'), one that runs past the deadline a missing signal ('timeout');
// neither is an exception.
import type { MissingSignal } from '../engine/types.js';

export type Gathered<T> = { ok: true; value: T } | { ok: false; missing: MissingSignal['reason']; error?: unknown };

export function withDeadline<T>(work: Promise<T>, deadline: Promise<void>): Promise<Gathered<T>> {
  return Promise.race([
    work.then(
      (value): Gathered<T> => ({ ok: true, value }),
      (error: unknown): Gathered<T> => ({ ok: false, missing: 'unavailable', error }),
    ),
    deadline.then((): Gathered<T> => ({ ok: false, missing: 'timeout' })),
  ]);
}

export function deadlineAfter(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
