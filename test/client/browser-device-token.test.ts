// getDeviceToken() in Debian's Chromium: a customer page on its own origin imports the client's
// built browser module, which loads the SDK from the real `doorman serve` child and gets a device
// token; the client then screens a signup with it and the stored event carries that device.
// Failures resolve to null, never a throw into the page.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { doormanClient } from '../../clients/typescript/dist/doorman-client.js';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { clientServer } from '../support/client-server.js';
import { deviceIdOf } from '../support/device-tokens.js';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { startHttpStandIn, type HttpStandIn } from '../support/http-stand-in.js';
import { freePort } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';
import { aSignup } from '../support/verdict-harness.js';

const MODULE = path.join('clients', 'typescript', 'dist', 'get-device-token.js');

type Outcome = { first: { device_token: string; expires_at: string } | null; again: unknown; failures: unknown[]; threw?: string };

describe('client: getDeviceToken() in Debian Chromium', function () {
  this.timeout(120_000);
  let chrome: LaunchedChromium;
  let shop: HttpStandIn;
  let api: string;
  let tenant: TestTenant;

  before(async function () {
    const chromium = await chromiumOrSkip(this);
    api = (await clientServer()).url;
    tenant = await aTenant(testDeps());
    const deadPort = await freePort();
    // The customer's site, on another origin than Doorman: its page and its own copy of the
    // client's browser module (as a bundler would ship it).
    shop = await startHttpStandIn((req) =>
      req.path === '/get-device-token.js'
        ? { headers: { 'content-type': 'text/javascript' }, body: fs.readFileSync(MODULE, 'utf8') }
        : { headers: { 'content-type': 'text/html; charset=utf-8' }, body: page(tenant.keys.pk_test, deadPort) },
    );
    chrome = await launchChromium(chromium);
  });
  after(async () => {
    await chrome?.close();
    await shop?.close();
  });

  const page = (publishableKey: string, deadPort: number) => `<!doctype html><meta charset="utf-8"><title>Sign up</title>
<script type="module">
import { getDeviceToken } from '/get-device-token.js';
window.outcome = (async () => {
  try {
    const first = await getDeviceToken({ publishableKey: '${publishableKey}', baseUrl: '${api}' });
    const again = await getDeviceToken({ publishableKey: '${publishableKey}', baseUrl: '${api}' });
    const failures = await Promise.all([
      getDeviceToken({ publishableKey: 'sk_test_not_for_browsers', baseUrl: '${api}' }),
      getDeviceToken({ publishableKey: '${publishableKey}', baseUrl: 'http://127.0.0.1:${deadPort}' }),
      getDeviceToken(undefined),
    ]);
    return { first, again: again?.device_token === first?.device_token, failures };
  } catch (err) {
    return { threw: String(err) };
  }
})();
</script>`;

  it('gets a device token from the served SDK, reuses it, and the verdict made with it carries the device', async () => {
    const tab: Page = await chrome.context.newPage();
    const consoleLines: string[] = [];
    tab.on('console', (line) => consoleLines.push(line.text()));
    await tab.goto(shop.url);
    await tab.waitForFunction(() => (globalThis as unknown as { outcome?: unknown }).outcome !== undefined);
    const outcome = await tab.evaluate(() => (globalThis as unknown as { outcome: Promise<Outcome> }).outcome);
    await tab.close();
    expect(outcome.threw).to.equal(undefined);
    expect(outcome.first?.device_token, consoleLines.join('\n')).to.be.a('string');
    expect(outcome.again, 'the held token is reused').to.equal(true);
    expect(outcome.failures).to.deep.equal([null, null, null]);
    expect(
      consoleLines.filter((l) => l.startsWith('[doorman] no device token')),
      'each failure says why',
    ).to.have.length(3);

    const doorman = doormanClient({ secretKey: tenant.keys.sk_test, baseUrl: api });
    const result = await doorman.screen(aSignup({ device_token: outcome.first!.device_token }) as never, { failOpen: false });
    if (result.failedOpen) expect.fail('did not expect to fail open');
    const { rows } = await testDeps().db.query(`SELECT signals->>'deviceId' AS device FROM events WHERE tenant_id = $1 AND id = $2`, [
      tenant.tenantId,
      result.id,
    ]);
    expect(rows[0].device).to.equal(deviceIdOf(outcome.first!.device_token));
  });
});
