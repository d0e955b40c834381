// End to end in Debian's Chromium (playwright-core): a customer page on another origin pastes
// the README's snippet, loads /sdk/v1/doorman.js from the API with its integrity hash, and gets
// device tokens; six signups with them fire velocity_device_signups; reloads, a resize and a
// timezone/language change keep the device id. Also a screenshot of the demo page.
import { expect } from 'chai';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { aTenant, bearer, type TestTenant } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { startHttpStandIn, type HttpStandIn } from '../support/http-stand-in.js';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { deviceIdOf } from '../support/device-tokens.js';
import { aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

const OUTPUT = path.join(process.env.TEST_OUTPUT_DIR ?? 'test-output', 'browser');

// The snippet exactly as the README shows it, pointed at this API and key.
function readmeSnippet(apiOrigin: string, publishableKey: string, integrity?: string): string {
  const readme = fs.readFileSync('README.md', 'utf8');
  const block = readme.match(/```html\n(<script type="importmap">[\s\S]*?)```/);
  if (!block) throw new Error('README has no ```html block with the importmap snippet');
  let snippet = block[1]!.replaceAll('https://doorman.example.com', apiOrigin).replace(/pk_live_…/g, publishableKey);
  if (integrity) snippet = snippet.replace(/sha384-[A-Za-z0-9+/=]+/, integrity);
  return snippet;
}

// The API on a real port, for the browser.
async function serveApi(app: http.RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
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

type Token = { device_token: string; expires_at: string } | null | 'no sdk';

describe('the browser SDK in Debian Chromium', function () {
  this.timeout(120_000);
  let h: Harness;
  let chrome: LaunchedChromium;
  let api: Awaited<ReturnType<typeof serveApi>>;
  let shop: HttpStandIn;
  let customerPage = '';
  const requested = new Set<string>();
  const posted: Array<Record<string, { value?: unknown }>> = [];

  before(async function () {
    const chromium = await chromiumOrSkip(this);
    h = await verdictHarness({ DEMO_PAGES: 'true' });
    api = await serveApi(h.app);
    // The customer's own site: another origin (another port) than the API.
    shop = await startHttpStandIn(() => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: customerPage }));
    customerPage = shopPage(h.tenant);
    chrome = await launchChromium(chromium);
    fs.mkdirSync(OUTPUT, { recursive: true });
  });

  after(async () => {
    await chrome?.close();
    await Promise.all([api?.close(), shop?.close()]);
  });

  function shopPage(tenant: TestTenant, integrity?: string): string {
    return `<!doctype html><meta charset="utf-8"><title>Shop signup</title><h1>Sign up</h1>
${readmeSnippet(api.origin, tenant.keys.pk_test, integrity)}
<script type="module">window.result = window.doorman ? window.doorman.token() : 'no sdk';</script>`;
  }

  async function watched(page: Page): Promise<Page> {
    page.on('request', (req) => {
      requested.add(new URL(req.url()).origin);
      if (req.method() === 'POST' && req.url().endsWith('/v1/device')) posted.push(req.postDataJSON().components);
    });
    return page;
  }

  const tokenOn = async (page: Page): Promise<Token> => {
    await page.waitForFunction(() => (globalThis as unknown as { result?: unknown }).result !== undefined);
    return page.evaluate(() => (globalThis as unknown as { result: Promise<Token> }).result);
  };
  const idOn = async (page: Page) => {
    const token = await tokenOn(page);
    if (!token || token === 'no sdk') throw new Error(`no token on ${page.url()}: ${String(token)}`);
    return { token: token.device_token, id: deviceIdOf(token.device_token) };
  };

  it('gets a token on each of six page loads; the sixth signup with them fires velocity_device_signups', async () => {
    const page = await watched(await chrome.context.newPage());
    const tokens: string[] = [];
    const postsBefore = posted.length;
    await page.goto(shop.url);
    for (let load = 0; load < 6; load++) {
      if (load > 0) await page.reload();
      tokens.push((await idOn(page)).token);
    }
    // Each load exchanged its own components (two tokens made in the same second are equal).
    expect(posted.length - postsBefore, 'one POST /v1/device per load').to.equal(6);
    expect(new Set(tokens.map(deviceIdOf)).size, 'one device').to.equal(1);
    const reasons: string[][] = [];
    for (const [i, token] of tokens.entries()) {
      const res = await request(h.app)
        .post('/v1/verdict')
        .set(bearer(h.tenant.keys.sk_test))
        .send(aSignup({ ip: `100.64.90.${i + 1}`, device_token: token }));
      reasons.push(res.body.reasons.map((r: { code: string }) => r.code));
    }
    // (A cold first verdict on a busy machine may also carry timeout_failopen: not the point here.)
    expect(reasons.slice(0, 5).map((codes) => codes.includes('velocity_device_signups'))).to.deep.equal([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(reasons[5]).to.include('velocity_device_signups');
    await page.close();
  });

  it('keeps the device id when the window is resized and in a context with another timezone and language', async () => {
    const page = await watched(await chrome.context.newPage());
    await page.goto(shop.url);
    const before = await idOn(page);
    const first = posted.at(-1)!;
    await page.setViewportSize({ width: 700, height: 500 });
    await page.reload();
    expect((await idOn(page)).id).to.equal(before.id);
    expect(posted.at(-1)!.screenResolution!.value, 'the resize reached FingerprintJS').to.not.deep.equal(first.screenResolution!.value);

    const abroad = await chrome.browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'ja-JP' });
    const tokyo = await watched(await abroad.newPage());
    await tokyo.goto(shop.url);
    expect((await idOn(tokyo)).id).to.equal(before.id);
    expect(posted.at(-1)!.timezone!.value).to.equal('Asia/Tokyo');
    expect(posted.at(-1)!.languages!.value).to.not.deep.equal(first.languages!.value);
    await abroad.close();
    await page.close();
  });

  it("loads nothing from any origin but the page's and the API's", () => {
    expect(posted.length).to.be.greaterThan(5);
    expect([...requested].sort()).to.deep.equal([api.origin, shop.url].sort());
  });

  it('reuses a token until it is about to expire, and resolves to null instead of throwing', async () => {
    const page = await watched(await chrome.context.newPage());
    await page.goto(shop.url);
    await tokenOn(page);
    const postsBefore = posted.length;
    const outcome = await page.evaluate(
      async ({ sdk, key, deadPort }) => {
        const { doorman } = await import(sdk);
        const client = doorman({ publishableKey: key });
        const first = await client.token();
        const again = await client.token();
        // Tokens live 900 s: asking for more than 900 s left makes every call fetch a fresh one.
        const eager = doorman({ publishableKey: key, refreshBeforeSeconds: 901 });
        const [a, b] = await Promise.all([eager.token(), eager.token()]);
        await eager.token();
        const failures = await Promise.all([
          doorman({ publishableKey: 'pk_test_' + '0'.repeat(32) }).token(),
          doorman({ publishableKey: 'sk_test_not_for_browsers' }).token(),
          doorman({ publishableKey: key, apiBase: 'http://127.0.0.1:' + deadPort }).token(),
          doorman(undefined as never).token(),
        ]);
        return { same: first === again, shared: a === b, failures };
      },
      { sdk: `${api.origin}/sdk/v1/doorman.js`, key: h.tenant.keys.pk_test, deadPort: await freePort() },
    );
    expect(outcome.same, 'a held token is reused').to.equal(true);
    expect(outcome.shared, 'concurrent calls share one exchange').to.equal(true);
    expect(outcome.failures).to.deep.equal([null, null, null, null]);
    // first (1) + eager's shared pair (1) + eager's refresh (1) + the unknown key (1) + the dead
    // port (1); the secret key is refused before any request.
    expect(posted.length - postsBefore).to.equal(5);

    // An API that never answers: null once timeoutMs has passed, not a page left waiting.
    const silent = await startHttpStandIn(() => ({ delayMs: 60_000 }));
    try {
      const waited = await page.evaluate(
        async ({ sdk, key, apiBase }) => {
          const { doorman } = await import(sdk);
          const started = Date.now();
          const token = await doorman({ publishableKey: key, apiBase, timeoutMs: 500 }).token();
          return { token, ms: Date.now() - started };
        },
        { sdk: `${api.origin}/sdk/v1/doorman.js`, key: h.tenant.keys.pk_test, apiBase: silent.url },
      );
      expect(waited.token).to.equal(null);
      expect(waited.ms).to.be.within(400, 5000);
    } finally {
      await silent.close();
    }
    await page.close();
  });

  it('refuses the SDK when the integrity hash does not match', async () => {
    customerPage = shopPage(h.tenant, `sha384-${Buffer.alloc(48, 7).toString('base64')}`);
    const page = await chrome.context.newPage();
    await page.goto(shop.url);
    expect(await tokenOn(page)).to.equal('no sdk');
    customerPage = shopPage(h.tenant);
    await page.close();
  });

  it('shows a token and verdicts made with it on the demo page (screenshot in test-output/browser/)', async () => {
    const tenant = await aTenant(h.deps);
    const page = await chrome.context.newPage();
    await page.goto(`${api.origin}/demo/device#pk=${tenant.keys.pk_test}&sk=${tenant.keys.sk_test}`);
    await page.waitForSelector('#status:text("token ready")');
    expect(await page.textContent('#device')).to.match(/^dev_[0-9a-f]{32}$/);
    for (let i = 1; i <= 6; i++) {
      await page.click('#signup');
      await page.waitForSelector(`#verdicts tr:nth-child(${i})`);
    }
    expect(await page.locator('#verdicts td:nth-child(2)').allTextContents()).to.deep.equal([
      'allow',
      'allow',
      'allow',
      'allow',
      'allow',
      'review',
    ]);
    expect((await page.locator('#verdicts td:nth-child(3)').allTextContents())[5]).to.contain('velocity_device_signups');
    const file = path.join(OUTPUT, 'demo-device.png');
    await page.screenshot({ path: file, fullPage: true });
    expect(fs.statSync(file).size).to.be.greaterThan(10_000);
    await page.close();
  });
});
