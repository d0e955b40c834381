// Stalls injected into the real pool, for tests of what a late answer may do: the first
// statement `matches` picks runs at once (its snapshot taken) and hands its answer over only when
// the test releases it, as a read behind a slow network or in a paused process would.
import type pg from 'pg';

export interface StalledPool {
  db: pg.Pool;
  // Settles once the stalled statement has read.
  hasRead: Promise<void>;
  release(): void;
}

export function stallFirst(db: pg.Pool, matches: (query: unknown) => boolean): StalledPool {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let read!: () => void;
  const hasRead = new Promise<void>((resolve) => {
    read = resolve;
  });
  let stalled = false;
  const stalling = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver);
      return async (...args: unknown[]) => {
        const first = !stalled && matches(args[0]);
        if (first) stalled = true;
        const result = await (target.query as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (first) {
          read();
          await released;
        }
        return result;
      };
    },
  }) as pg.Pool;
  return { db: stalling, hasRead, release };
}

// A macrotask later: every continuation a release set off has run.
export const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
