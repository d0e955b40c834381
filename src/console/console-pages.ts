// The console's pages: one HTML shell for every page path (no inline script: the bundle does
// the rest; each page sets its own title) and the bundle itself with its icon, built by
// `npm run build` (scripts/build-console.mjs) into dist/browser/console and served from our
// origin only.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';
import { repoDir } from '../config.js';
import { AppError } from '../errors.js';

export const CONSOLE_DIST = path.join(repoDir, 'dist', 'browser', 'console');

// The entry's hash in its URL: a new build is fetched at once; chunks are named by content.
// The stylesheet carries the id cytoscape looks for before it injects a <style> element of its
// own (which the CSP would refuse); console.css holds that one rule instead.
function shell(): string | undefined {
  let bundle: Buffer;
  try {
    bundle = fs.readFileSync(path.join(CONSOLE_DIST, 'console.js'));
  } catch {
    return undefined;
  }
  const v = createHash('sha256')
    .update(bundle)
    .update(fs.readFileSync(path.join(CONSOLE_DIST, 'console.css')))
    .digest('hex')
    .slice(0, 12);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Doorman console</title>
<link rel="icon" href="/console/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css?v=${v}" id="__________cytoscape_stylesheet">
<script type="module" src="/console/assets/console.js?v=${v}"></script>
</head>
<body><div id="app"><noscript>The Doorman console needs JavaScript.</noscript></div></body>
</html>
`;
}

export function consolePages(): Router {
  const router = Router();
  let html: string | undefined;
  router.use('/console/assets', express.static(CONSOLE_DIST, { index: false, maxAge: 0 }));
  // Browsers ask for /favicon.ico whatever the page says: the console's icon, not a 404.
  router.get('/favicon.ico', (_req, res) => res.redirect(301, '/console/assets/favicon.svg'));
  router.get(['/console', '/console/*page'], (req, res, next) => {
    // A missing asset or API route is the app's 404, not a page.
    if (/^\/console\/(api|assets)\//.test(req.path)) return next();
    html ??= shell();
    if (!html) throw new AppError('internal', 'The console is not built: run `npm run build`.');
    res.set('cache-control', 'no-store').type('html').send(html);
  });
  return router;
}
