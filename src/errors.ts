// The one error class domain code throws. It carries a contract error code; only
// http/error-handler.ts knows which HTTP status each code maps to.
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  // The analyst console only: signed in, but the role may not do this, or a cross-site request.
  | 'forbidden'
  | 'not_found'
  | 'idempotency_conflict'
  | 'conflict'
  | 'rate_limited'
  | 'internal';

export interface Issue {
  path: string;
  message: string;
}

export class AppError extends Error {
  // An `internal` error that says the service cannot answer yet (warming up): 503, not 500.
  unavailable = false;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  static unavailable(message: string): AppError {
    const err = new AppError('internal', message);
    err.unavailable = true;
    return err;
  }

  static invalid(issues: Issue[], message = 'The request failed validation.'): AppError {
    return new AppError('invalid_request', message, { issues });
  }
}
