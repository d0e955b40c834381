/// <reference lib="dom" />
// What the console's browser tests share: the app served on a loopback port, the sign-in through
// a one-time link, and a watch on the browser's console (errors and warnings, uncaught errors).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { PASSWORD, tokenOf } from './console-session.js';

export async function serveApp(app: http.RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// Sets the password through the one-time link's welcome page; resolves once signed in.
export async function welcome(page: Page, origin: string, signInUrl: string): Promise<void> {
  await page.goto(`${origin}/console/welcome#token=${tokenOf(signInUrl)}`);
  await page.fill('input[name=password]', PASSWORD);
  await page.fill('input[name=again]', PASSWORD);
  await page.click('button[type=submit]');
}

// Records every console error or warning and uncaught page error of the context's pages.
export function watchConsole(ctx: BrowserContext, into: string[]): void {
  ctx.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') into.push(`${m.type()}: ${m.text()} (${m.location().url})`);
  });
  ctx.on('weberror', (e) => into.push(`page error: ${e.error().message}`));
}

// Chrome's own report of an API answer in the 4xx range, and of the Cypher editor's
// contenteditable styling the CSP refuses (the known limitation, see console-browser.test.ts).
export const expectedNoise = (n: string, status = '4\\d\\d'): boolean =>
  new RegExp(
    `^error: Failed to load resource: the server responded with a status of ${status} .*\\(http://127\\.0\\.0\\.1:\\d+/console/api/`,
  ).test(n) ||
  /^error: Applying inline style violates the following Content Security Policy directive .* \(http:\/\/127\.0\.0\.1:\d+\/console\/cypher\)$/.test(
    n,
  );
