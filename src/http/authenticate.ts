// Bearer key → hash → key row → req.scope. Every failure is 401 `unauthorized` (contract §5):
// missing, malformed, unknown, revoked, or the wrong kind of key for the route.
import type { RequestHandler } from 'express';
import type { Queryable } from '../db/queryable.js';
import { bearerToken, hashKey, parseKey, type KeyKind } from '../tenants/api-key.js';
import { findKey } from '../tenants/key-store.js';
import { AppError } from './app-error.js';
import './express-request.js';

const unauthorized = (message: string) => new AppError('unauthorized', message);

export function authenticate(db: Queryable, expected: KeyKind): RequestHandler {
  return async (req, _res, next) => {
    const started = performance.now();
    const token = bearerToken(req.get('authorization'));
    if (!token) throw unauthorized('No API key: send it as "Authorization: Bearer <key>".');
    const parsed = parseKey(token);
    if (!parsed) throw unauthorized('The API key is malformed.');
    if (parsed.kind !== expected) {
      throw unauthorized(
        expected === 'secret'
          ? 'A publishable key cannot be used here; this endpoint takes a secret key (sk_).'
          : 'A secret key must never reach a browser; this endpoint takes a publishable key (pk_).',
      );
    }
    const row = await findKey(db, hashKey(token));
    if (!row || row.kind !== parsed.kind || row.mode !== parsed.mode) throw unauthorized('The API key is unknown.');
    if (row.revoked) throw unauthorized('The API key has been revoked.');
    req.scope = { tenantId: row.tenantId, mode: row.mode };
    req.authMs = performance.now() - started;
    next();
  };
}
