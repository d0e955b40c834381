// Past saturation, the verdict is refused at once rather than queued: 503 `internal` with
// `retry-after: 1`, before any store is touched, so the caller fails open in milliseconds
// instead of after seconds in a queue (README, "Past saturation").
//
// What is watched is this process's own queues, sampled every SAMPLE_MS:
// - the event loop: a timer due every SAMPLE_MS fires late by how long the loop was busy, and a
//   request that arrives meanwhile waits that long in the socket before it is even read (this
//   process's CPU is the bottleneck);
// - the Postgres pool: requests waiting for a connection, which every verdict's write needs (the
//   database, or the machine under it, is the bottleneck: the pool is where the work queues).
// A queue seen at one sample is a burst (a garbage collection, a batch of arrivals) and is
// absorbed. A queue seen at every sample for OVERLOAD_INTERVAL_MS is a standing queue (the idea of
// CoDel: a queue's minimum over an interval, not its peak): new verdicts are refused until a
// sample finds no queue. Only work not yet begun is refused; verdicts in flight finish. Waiting
// on Neo4j or Redis never triggers it: those waits are bounded by the verdict's deadlines
// (`timeout_failopen`), and a slow graph must not turn into refused verdicts.
import { AppError } from '../errors.js';

const SAMPLE_MS = 10;
// With no verdict for this long the sampler stops (and starts again with the next one).
const IDLE_MS = 5_000;

export interface OverloadGateOptions {
  // The loop lateness that counts as a queue (ms); 0 turns the gate off.
  lagMs: number;
  // How long a queue must stand before verdicts are refused (ms).
  intervalMs: number;
  // Requests waiting for a Postgres connection now (pg.Pool's waitingCount).
  poolWaiting: () => number;
}

export interface OverloadGate {
  // Sets retry-after and throws the 503 when the process is past saturation; else returns at once.
  admit(set: (name: string, value: string) => void): void;
  close(): void;
}

export function createOverloadGate(options: OverloadGateOptions, onRefuse: () => void = () => undefined): OverloadGate {
  let timer: NodeJS.Timeout | undefined;
  let expected = 0;
  // When the lateness first went above the target, while it has stayed there.
  let aboveSince: number | undefined;
  let refusing = false;
  let lastUse = 0;

  const sample = () => {
    const now = performance.now();
    const lag = Math.max(0, now - expected);
    expected = now + SAMPLE_MS;
    const waiting = options.poolWaiting();
    if (lag <= options.lagMs && waiting === 0) {
      aboveSince = undefined;
      refusing = false;
    } else {
      // From this sample on: one long pause (a collection, a big reply) ends at its next sample.
      aboveSince ??= now;
      refusing = now - aboveSince >= options.intervalMs;
    }
    if (now - lastUse > IDLE_MS) stop();
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
    aboveSince = undefined;
    refusing = false;
  };

  return {
    admit(set) {
      if (options.lagMs === 0) return;
      lastUse = performance.now();
      if (!timer) {
        expected = lastUse + SAMPLE_MS;
        timer = setInterval(sample, SAMPLE_MS);
        timer.unref();
      }
      if (!refusing) return;
      onRefuse();
      set('retry-after', '1');
      throw AppError.unavailable(
        'The service is past its capacity and did not screen this event; retry after 1 s, or decide without Doorman (fail open).',
      );
    },
    close: stop,
  };
}
