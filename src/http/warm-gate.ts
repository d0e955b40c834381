// Holds requests while the process warms up (src/warm-up.ts), so the first verdicts are not
// decided on a cold graph. A request waits for the warm-up, bounded; past that it gets a
// retryable 503 `internal` with Retry-After. /health answers before this gate (503 `warming`).
import type { RequestHandler } from 'express';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';

const WAIT_MS = 10_000;

export function warmGate(deps: Pick<Deps, 'warmState' | 'warmup'>): RequestHandler {
  return async (_req, res, next) => {
    if (deps.warmState() !== 'warming') return next();
    let timer: NodeJS.Timeout | undefined;
    const warmed = await Promise.race([
      deps.warmup().then(() => true),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), WAIT_MS); }),
    ]);
    clearTimeout(timer);
    if (warmed) return next();
    res.set('Retry-After', '5');
    throw AppError.unavailable('The service is warming up; retry shortly.');
  };
}
