// JSON body parsing for routes that take a body: Content-Type must be application/json, the
// size is capped, and the exact bytes are kept on req.rawBody for idempotency.
import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.js';
import './express-request.js';

export function jsonBody(limitBytes: number): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    if (!req.is('application/json')) {
      throw AppError.invalid(
        [{ path: '', message: 'Content-Type must be application/json' }],
        'The request body must be JSON, sent with Content-Type: application/json.',
      );
    }
    next();
  };
  const parse = express.json({
    limit: limitBytes,
    strict: false,
    type: 'application/json',
    verify: (req, _res, buf) => {
      (req as express.Request).rawBody = buf;
    },
  });
  return [requireJson, parse];
}
