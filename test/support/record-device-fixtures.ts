// Records the fixtures of test/fixtures/device-components/: the exact bodies the browser SDK
// posts to /v1/device (real FingerprintJS 5 component sets) from differently configured Chromium
// contexts, so the device-id tests run on real data. Re-record after a FingerprintJS upgrade:
//   node scripts/build-sdk.mjs && npx tsx test/support/record-device-fixtures.ts
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { SDK_BUNDLE } from '../../src/devices/sdk-routes.js';
import { installChromium, launchChromium } from './chromium.js';

const OUT = path.join('test', 'fixtures', 'device-components');

// Same browser, same machine: what changes between visits. The id must not change.
// Another device: what tells devices apart (platform, hardware, GPU, fonts and canvas). It must.
interface Setup {
  name: string;
  note: string;
  context?: BrowserContextOptions;
  // Chrome DevTools Protocol overrides that a context option cannot express.
  cdp?: (send: (method: string, params: object) => Promise<unknown>) => Promise<void>;
  launch?: { args?: string[]; dejavuOnly?: boolean };
}

const SETUPS: Setup[] = [
  { name: 'desktop-load-1', note: 'a desktop page load (1280x720)' },
  { name: 'desktop-load-2', note: 'the same browser, loaded again' },
  { name: 'desktop-resized', note: 'the same browser, window resized to 800x500', context: { viewport: { width: 800, height: 500 } } },
  {
    name: 'desktop-tokyo-ja',
    note: 'the same browser, timezone Asia/Tokyo and language ja-JP',
    context: { timezoneId: 'Asia/Tokyo', locale: 'ja-JP' },
  },
  {
    name: 'phone-touch',
    note: 'a phone: touch screen, 3x pixel density, 390x844',
    context: { isMobile: true, hasTouch: true, deviceScaleFactor: 3, viewport: { width: 390, height: 844 } },
  },
  { name: 'hidpi-laptop', note: 'a laptop with a 2x pixel density display', context: { deviceScaleFactor: 2 } },
  {
    name: 'windows-16-cores',
    note: 'a Windows machine with 16 cores',
    cdp: async (send) => {
      await send('Emulation.setHardwareConcurrencyOverride', { hardwareConcurrency: 16 });
      await send('Emulation.setUserAgentOverride', {
        userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
        platform: 'Win32',
        userAgentMetadata: {
          brands: [{ brand: 'Chromium', version: '156' }],
          platform: 'Windows',
          platformVersion: '15.0.0',
          architecture: 'x86',
          model: '',
          mobile: false,
          bitness: '64',
        },
      });
    },
  },
  { name: 'no-webgl', note: 'a machine whose GPU offers no WebGL', launch: { args: ['--disable-3d-apis'] } },
  { name: 'other-fonts', note: 'a machine with other fonts installed (DejaVu only)', launch: { dejavuOnly: true } },
];

const page = (apiBase: string) => `<!doctype html><meta charset="utf-8"><title>record</title><p>recording</p>
<script type="module">
import { doorman } from '${apiBase}/sdk/doorman.js';
window.done = doorman({ publishableKey: 'pk_test_recording', apiBase: '${apiBase}' }).token();
</script>`;

async function recordingServer(): Promise<{ url: string; bodies: unknown[]; close(): Promise<void> }> {
  const bodies: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/device') {
        bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        // Recording only: the SDK then resolves to null, which is all the page needs.
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"internal","message":"recording"}');
      } else if (req.url === '/sdk/doorman.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(SDK_BUNDLE));
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end(page(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    bodies,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

// A fontconfig that sees DejaVu only (Debian's Chromium otherwise also finds Liberation).
function dejavuOnly(dir: string): string {
  const file = path.join(dir, 'fonts.conf');
  fs.writeFileSync(
    file,
    `<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>
<dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>${dir}/cache</cachedir></fontconfig>\n`,
  );
  return file;
}

async function record(
  chromiumPath: string,
  setup: Setup,
  url: string,
  bodies: unknown[],
  tmp: string,
): Promise<{ body: unknown; version: string }> {
  const env = setup.launch?.dejavuOnly ? { FONTCONFIG_FILE: dejavuOnly(tmp) } : undefined;
  const chrome = await launchChromium(chromiumPath, setup.launch?.args, env);
  try {
    const context = await chrome.browser.newContext(setup.context);
    const tab: Page = await context.newPage();
    if (setup.cdp) {
      const session = await context.newCDPSession(tab);
      await setup.cdp((method, params) => session.send(method as 'Emulation.setHardwareConcurrencyOverride', params as never));
    }
    const before = bodies.length;
    await tab.goto(url);
    await tab.waitForFunction(() => (globalThis as unknown as { done?: Promise<unknown> }).done !== undefined);
    await tab.evaluate(() => (globalThis as unknown as { done: Promise<unknown> }).done);
    if (bodies.length !== before + 1) throw new Error(`${setup.name}: expected one POST /v1/device, got ${bodies.length - before}`);
    return { body: bodies[before], version: chrome.browser.version() };
  } finally {
    await chrome.close();
  }
}

const found = await installChromium();
if (!found.path) throw new Error(`no chromium: ${found.problem}`);
const server = await recordingServer();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-record-'));
try {
  fs.mkdirSync(OUT, { recursive: true });
  for (const setup of SETUPS) {
    const { body, version } = await record(found.path, setup, server.url, server.bodies, tmp);
    fs.writeFileSync(path.join(OUT, `${setup.name}.json`), `${JSON.stringify({ note: setup.note, chromium: version, body })}\n`);
    console.error(`recorded ${setup.name}: ${JSON.stringify(body).length} bytes`);
  }
} finally {
  await server.close();
  fs.rmSync(tmp, { recursive: true, force: true });
}
