// GET /sdk/doorman.js and /sdk/v1/doorman.js: the browser SDK (sdk/doorman.ts bundled with
// FingerprintJS into dist/browser/sdk/doorman.js by `npm run build`), served from our own origin so a
// customer's page fetches nothing from anyone else. Static and unauthenticated, so unmetered.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router, type RequestHandler } from 'express';
import { repoDir } from '../config.js';
import { AppError } from '../errors.js';

export const SDK_BUNDLE = path.join(repoDir, 'dist', 'browser', 'sdk', 'doorman.js');

// The unversioned path follows releases within minutes; the versioned one is what the README's
// integrity hash pins, so browsers may keep it as long as they like.
const UNVERSIONED_CACHE = 'public, max-age=300';
const VERSIONED_CACHE = 'public, max-age=31536000, immutable';

export function sdkRoutes(file = SDK_BUNDLE): Router {
  let bundle: { body: Buffer; etag: string } | undefined;
  // Read on first request (the build may run after the app is created) and kept: it is small.
  const load = () => {
    if (!bundle) {
      try {
        const body = readFileSync(file);
        bundle = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      } catch {
        return undefined;
      }
    }
    return bundle;
  };
  const serve =
    (cacheControl: string): RequestHandler =>
    (req, res) => {
      const sdk = load();
      if (!sdk) throw new AppError('not_found', 'The browser SDK is not built on this server: run `npm run build`.');
      res.set({
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': cacheControl,
        ETag: sdk.etag,
        // A module script from another origin is fetched in CORS mode (and integrity checks need
        // it). No credentials are involved, so any origin may read this static file.
        'Access-Control-Allow-Origin': '*',
        'Cross-Origin-Resource-Policy': 'cross-origin',
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.fresh) {
        res.status(304).end();
        return;
      }
      res.send(sdk.body);
    };
  const router = Router();
  router.get('/sdk/doorman.js', serve(UNVERSIONED_CACHE));
  router.get('/sdk/v1/doorman.js', serve(VERSIONED_CACHE));
  return router;
}
