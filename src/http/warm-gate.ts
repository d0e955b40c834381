// Holds requests while the process warms up (src/warm-up.ts), so the first verdicts are not
// decided on a cold graph. A request waits for the warm-up, bounded; past that it gets a
// retryable 503 `internal` with Retry-After. /health answers before this gate (503 `warming`).
import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';

const WAIT_MS = 10_000;

// What warmGate() needs: the process's warm-up and its state; the composition root (src/deps.ts)
// passes its Deps.
export interface WarmGateDeps {
  // 'cold' until warmup() is called (nothing is held back), 'warming', then 'warm'.
  warmState(): 'cold' | 'warming' | 'warm';
  // Starts the warm-up (once); resolves when it is done.
  warmup(): Promise<void>;
}

// Resolves at once unless the process is warming; then waits for the warm-up, bounded, and throws
// the retryable 503 (with Retry-After set through `set`) past that. Express's middleware below and
// the verdict's own route (src/verdicts/verdict-http.ts) share it.
export async function waitForWarmUp(deps: WarmGateDeps, set: (name: string, value: string) => void): Promise<void> {
  if (deps.warmState() !== 'warming') return;
  let timer: NodeJS.Timeout | undefined;
  const warmed = await Promise.race([
    deps.warmup().then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), WAIT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (warmed) return;
  set('Retry-After', '5');
  throw AppError.unavailable('The service is warming up; retry shortly.');
}

export function warmGate(deps: WarmGateDeps): RequestHandler {
  return async (_req, res, next) => {
    await waitForWarmUp(deps, (name, value) => res.set(name, value));
    next();
  };
}
