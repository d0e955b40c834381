// GET /demo/device: the local demo of device tokens, mounted only when DEMO_PAGES=true
// (`npm start` turns it on). A static page (sdk/demo/device.html, built into dist/browser/sdk/demo/),
// so unmetered; it calls the API like any client. Read once, at the first request.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Router } from 'express';
import { repoDir } from '../config.js';

export const DEMO_PAGE = path.join(repoDir, 'dist', 'browser', 'sdk', 'demo', 'device.html');

export function demoRoutes(): Router {
  const router = Router();
  let page: Buffer | undefined;
  router.get('/demo/device', (_req, res) => {
    page ??= readFileSync(DEMO_PAGE);
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
    res.type('html').send(page);
  });
  return router;
}
