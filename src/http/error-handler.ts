// Maps every failure to the contract's error shape {error, message, details?}. The only place
// that knows HTTP statuses. Unknown errors become a fixed `internal` message; the stack goes to
// the log with the request id, never to the client.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, type ErrorCode } from '../errors.js';

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

// What Express, the router and body-parser attach to the errors they raise (http-errors).
interface LibraryError {
  type?: string;
  status?: number;
  statusCode?: number;
  limit?: number;
  code?: string;
  errno?: number;
  expose?: boolean;
  message?: string;
}

const malformed = (issue: string, message: string) => AppError.invalid([{ path: '', message: issue }], message);

// body-parser reports with `type`; each becomes invalid_request with a readable message.
function fromBodyParser(err: LibraryError): AppError | undefined {
  switch (err.type) {
    case 'entity.parse.failed':
      return malformed('body is not valid JSON', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return malformed(
        `body exceeds the ${err.limit ?? ''} byte limit`,
        `The request body is larger than the ${err.limit ?? ''} byte limit.`,
      );
    case 'encoding.unsupported':
      return malformed(
        'unsupported Content-Encoding',
        "The request body's Content-Encoding is not supported; send identity, gzip, deflate or br.",
      );
    case 'charset.unsupported':
      return malformed('unsupported body charset', 'The request body must be UTF-8 JSON.');
    case 'request.aborted':
      return malformed('request aborted', 'The request was aborted.');
    case 'request.size.invalid':
      return malformed('body length does not match Content-Length', 'The request body length does not match its Content-Length.');
    default:
      return undefined;
  }
}

// Any other library error that carries a 4xx status is the client's: it gets the contract's shape
// too (a corrupt compressed body, a path that is not valid percent-encoding, ...). 5xx stay internal.
function fromLibrary(err: LibraryError): AppError | undefined {
  const status = err.status ?? err.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  const known = fromBodyParser(err);
  if (known) return known;
  if (status === 401) return new AppError('unauthorized', 'The request is not authorised.');
  if (status === 404) return new AppError('not_found', 'No such resource.');
  // zlib (gzip, deflate) and brotli errors carry an errno; nothing else that ends here does.
  if (typeof err.errno === 'number') {
    return malformed('body does not match its Content-Encoding', 'The request body could not be decompressed with its Content-Encoding.');
  }
  if (err instanceof URIError)
    return malformed('the URL path is not valid percent-encoded UTF-8', 'The URL path is not valid percent-encoded UTF-8.');
  return malformed(
    'malformed request',
    err.expose && err.message ? `The request is malformed: ${err.message}` : 'The request is malformed.',
  );
}

// A failure as the contract answers it: status, body, the retry-after a rate limit carries in its
// details, and the error to log with the request's line when it is a fault (a 5xx that is not the
// service saying what it is). Express's error handler below and the verdict's own route
// (src/verdicts/verdict-http.ts) both answer with it.
export interface ErrorAnswer {
  status: number;
  body: Record<string, unknown>;
  retryAfter?: string;
  fault?: Error;
}

const INTERNAL = 'An internal error occurred. Retry the request; quote the X-Request-Id header when reporting it.';
const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

function answerOf(err: AppError): ErrorAnswer {
  const body: Record<string, unknown> = { error: err.code, message: err.message };
  if (err.details) body.details = err.details;
  const retryAfter = err.details?.retry_after_seconds;
  return {
    status: err.unavailable ? 503 : STATUS[err.code],
    body,
    ...(err.code === 'rate_limited' && typeof retryAfter === 'number' && { retryAfter: String(retryAfter) }),
  };
}

export function errorAnswer(err: unknown): ErrorAnswer {
  const appError = err instanceof AppError ? err : fromLibrary(err as LibraryError);
  if (appError) {
    const answer = answerOf(appError);
    // A warming 503 is no fault and carries none.
    return appError.code === 'internal' && !appError.unavailable ? { ...answer, fault: asError(err) } : answer;
  }
  return { ...answerOf(new AppError('internal', INTERNAL)), fault: asError(err) };
}

// A 5xx's error goes to the request's one log line (http/request-logging.ts), stack included.
export const errorHandler: ErrorRequestHandler = (err, _req, res, _next) => {
  const answer = errorAnswer(err);
  if (answer.fault) res.err = answer.fault;
  // An error after the answer began: only the log line is left to write.
  if (res.headersSent) return;
  if (answer.retryAfter && !res.get('retry-after')) res.set('retry-after', answer.retryAfter);
  res.status(answer.status).json(answer.body);
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `No route for ${req.method} ${req.path}.`));
};
