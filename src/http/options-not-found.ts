// OPTIONS outside the CORS-enabled paths: 404 `not_found` in the contract's shape, answered
// before the rate limiter like a preflight. Without this, Express answers text/plain 200 with an
// Allow list, metered, on every route. A method that no route takes is no route (contract §7).
import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';

export function optionsNotFound(corsPaths: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    if (req.method !== 'OPTIONS' || corsPaths.includes(req.path.replace(/\/+$/, ''))) return next();
    throw new AppError('not_found', `No route for OPTIONS ${req.path}; only ${corsPaths.join(', ')} answers CORS preflights.`);
  };
}
