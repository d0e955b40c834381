// One way to bound a wait: race the work against an AbortSignal, either a budget of its own
// (AbortSignal.timeout) or one shared by several waits (the verdict's signal deadline). The work
// is not cancelled, only no longer awaited; lookups that can be cancelled take the signal too.
export function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

// A deadline that can be called off: AbortSignal.timeout's timer always fires, and builds a
// DOMException with its stack trace, for every verdict, long after the verdict was answered. This
// one builds its reason only if it fires; clear() once the waits it bounds are over.
// It bounds the store, not this process's own stalls: when the timer fires, answers that arrived
// while the process was not running (a busy loop, a CPU taken by another process) are still
// unread, and the loop reads them only after its timers. So the deadline passes one turn later
// (setImmediate runs after the loop has read its sockets): an answer already here counts, and a
// memory lookup never misses a deadline because the timer and it became ready in the same stall.
export function clearableDeadline(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  let turn: NodeJS.Immediate | undefined;
  const timer = setTimeout(() => {
    turn = setImmediate(() => controller.abort(new DOMException(`The deadline of ${ms} ms passed.`, 'TimeoutError')));
  }, ms);
  timer.unref();
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      if (turn) clearImmediate(turn);
    },
  };
}

// Whether an error is the deadline's own (AbortSignal.timeout rejects with a TimeoutError).
export function isDeadline(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted && error === signal.reason;
}
