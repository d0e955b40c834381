// Maps every failure to the contract's error shape {error, message, details?}. The only place
// that knows HTTP statuses. Unknown errors become a fixed `internal` message; the stack goes to
// the log with the request id, never to the client.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, type ErrorCode } from './app-error.js';

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  idempotency_conflict: 409,
  conflict: 409,
  rate_limited: 429,
  internal: 500,
};

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

// body-parser reports with `type`; each becomes invalid_request with a readable message.
function fromBodyParser(err: BodyParserError): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return AppError.invalid([{ path: '', message: 'body is not valid JSON' }], 'The request body is not valid JSON.');
    case 'entity.too.large':
      return AppError.invalid(
        [{ path: '', message: `body exceeds the ${err.limit ?? ''} byte limit` }],
        `The request body is larger than the ${err.limit ?? ''} byte limit.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return AppError.invalid([{ path: '', message: 'unsupported body encoding' }], 'The request body encoding is not supported.');
    case 'request.aborted':
      return AppError.invalid([{ path: '', message: 'request aborted' }], 'The request was aborted.');
    default:
      return undefined;
  }
}

export function sendError(res: Parameters<RequestHandler>[1], err: AppError): void {
  const body: Record<string, unknown> = { error: err.code, message: err.message };
  if (err.details) body.details = err.details;
  res.status(err.unavailable ? 503 : STATUS[err.code]).json(body);
}

export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const appError = err instanceof AppError ? err : fromBodyParser(err as BodyParserError);
  if (appError) {
    if (appError.code === 'internal') req.log?.error({ err }, 'internal error');
    sendError(res, appError);
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  if (res.headersSent) return;
  sendError(res, new AppError('internal', 'An internal error occurred. Retry the request; quote the X-Request-Id header when reporting it.'));
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `No route for ${req.method} ${req.path}.`));
};
