/// <reference lib="dom" />
// What the console's browser tests share: the app served on a loopback port, the sign-in through
// a one-time link (an analyst signed in, in a context of their own), a watch on the browser's
// console (errors and warnings, uncaught errors), and the screenshots at both widths.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { addAnalyst } from '../../src/console/auth/manage-analysts.js';
import type { Role } from '../../src/roles.js';
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

// An analyst of a tenant signed in to the console in a browser context of their own, watched for
// console errors (into `noise`): the context, its page on the console, and the analyst's email.
export interface SignedIn {
  context: BrowserContext;
  page: Page;
  email: string;
}

export async function signedInAnalyst(
  browser: Browser,
  at: { origin: string; deps: Parameters<typeof addAnalyst>[0]; tenantId: string; noise: string[] },
  analyst: { role: Role; prefix: string; ready?: string } & BrowserContextOptions,
): Promise<SignedIn> {
  const { role, prefix, ready = '.top nav', ...options } = analyst;
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
  watchConsole(context, at.noise);
  const page = await context.newPage();
  const email = `${prefix}-${Date.now()}@example.org`;
  const link = await addAnalyst(at.deps, { tenantId: at.tenantId, email, role });
  await welcome(page, at.origin, link.signInUrl);
  await page.waitForSelector(ready);
  return { context, page, email };
}

// A page photographed at 1440 px and at 1024 px (a small laptop) into test-output/console/, and
// into docs/ as the README's screenshots with UPDATE_SCREENSHOTS=1; back at 1440 px after.
export async function shoot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const output = path.join(process.env.TEST_OUTPUT_DIR ?? 'test-output', 'console');
  fs.mkdirSync(output, { recursive: true });
  for (const width of [1440, 1024]) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(150);
    const file = width === 1440 ? `${name}.png` : `${name}-1024.png`;
    await page.screenshot({ path: path.join(output, file), fullPage: options.fullPage ?? false });
    if (process.env.UPDATE_SCREENSHOTS === '1') fs.copyFileSync(path.join(output, file), path.join('docs', `console-${file}`));
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}
