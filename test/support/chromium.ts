// Debian's Chromium for the browser tests, driven by playwright-core: installed by the project's
// own script (scripts/chromium.sh, through apt), never a downloaded browser build. Every launch
// gets a fresh profile folder and the flags that keep it quiet and offline.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { skipBecause } from './skip.js';

const run = promisify(execFile);

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// The binary's path after scripts/chromium.sh (installing it when missing), or the reason it
// cannot be had.
export async function installChromium(): Promise<{ path?: string; problem?: string }> {
  try {
    const { stdout } = await run('bash', ['scripts/chromium.sh'], { timeout: 600_000 });
    return { path: stdout.trim().split('\n').pop() };
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    return { problem: (e.stderr || e.message).trim().split('\n').slice(-3).join(' ') };
  }
}

// A mocha `before` body: resolves to the Chromium path, skips the suite loudly when none can be
// installed, and fails instead under CI (the CI environment variable), where a skip would hide it.
export async function chromiumOrSkip(ctx: Mocha.Context): Promise<string> {
  ctx.timeout(600_000);
  const found = await installChromium();
  if (found.path) return found.path;
  const message = `Chromium could not be installed (${found.problem}); the browser tests cannot run`;
  if (process.env.CI) throw new Error(`${message}, and CI must not skip them`);
  console.error(
    `\n${'!'.repeat(100)}\n!! SKIPPING BROWSER TESTS: ${message}.\n!! Run scripts/chromium.sh as root to install it.\n${'!'.repeat(100)}\n`,
  );
  skipBecause(ctx, message);
}

export interface LaunchedChromium {
  // The persistent context of the fresh profile; browser.newContext() gives more.
  context: BrowserContext;
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(
  executablePath: string,
  extraArgs: string[] = [],
  env?: Record<string, string>,
): Promise<LaunchedChromium> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...extraArgs],
    ...(env && { env: { ...process.env, ...env } as Record<string, string> }),
  });
  const browser = context.browser();
  if (!browser) throw new Error('chromium launched without a browser handle');
  return {
    context,
    browser,
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
