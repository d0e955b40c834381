// What Doorman's middleware adds to Express's request: the authenticated scope and raw body.
import type { Scope } from '../scope.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      // Set by authenticate(): the tenant and mode the key decides.
      scope?: Scope;
      // Set by the JSON body parser: the exact bytes received (idempotency compares them).
      rawBody?: Buffer;
      // Set by authenticate(): how long the key lookup took (the verdict's Server-Timing).
      authMs?: number;
    }
  }
}

export {};
