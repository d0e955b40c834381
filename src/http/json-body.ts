// JSON body parsing for routes that take a body: Content-Type must be application/json, the
// size is capped, and the exact bytes are kept on req.rawBody for idempotency. Express's routes
// take it as middleware; the verdict's own route (src/verdicts/verdict-http.ts) reads its body with
// readJsonBody, the same parser on the bare request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type RequestHandler } from 'express';
import typeis from 'type-is';
import { AppError } from '../errors.js';
import './express-request.js';

function requireJsonType(req: IncomingMessage): void {
  if (!typeis(req, ['application/json'])) {
    throw AppError.invalid(
      [{ path: '', message: 'Content-Type must be application/json' }],
      'The request body must be JSON, sent with Content-Type: application/json.',
    );
  }
}

function parser(limitBytes: number) {
  return express.json({
    limit: limitBytes,
    strict: false,
    type: 'application/json',
    verify: (req, _res, buf) => {
      (req as express.Request).rawBody = buf;
    },
  });
}

export function jsonBody(limitBytes: number): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    requireJsonType(req);
    next();
  };
  return [requireJson, parser(limitBytes)];
}

export function readJsonBody(limitBytes: number): (req: IncomingMessage, res: ServerResponse) => Promise<{ body: unknown; raw: Buffer }> {
  const parse = parser(limitBytes) as unknown as (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  return (req, res) =>
    new Promise((resolve, reject) => {
      requireJsonType(req);
      parse(req, res, (err) => {
        const parsed = req as IncomingMessage & { body?: unknown; rawBody?: Buffer };
        if (err) reject(err);
        else resolve({ body: parsed.body, raw: parsed.rawBody ?? Buffer.alloc(0) });
      });
    });
}
