/// <reference lib="dom" />
// The console marks a hub that ties pending reviews to confirmed abusers, in Debian's Chromium: a
// ring of 12 sharing one identity value (past its hub threshold of 10, so it links no cluster),
// signing up from a proxy (each signup a pending review), two of them confirmed. The account page
// of one still pending says "This device_id links 10 pending reviews to 2 confirmed abusers" and
// lists the 12 accounts behind the hub on demand, the confirmed ones flagged; the same in the
// cluster picture's details of the hub. No page writes an error or warning to the browser's console.
import { expect } from 'chai';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { expectedNoise, serveApp, signedInAnalyst } from '../support/console-browser.js';
import { bearer } from '../support/fixtures.js';
import { aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

describe('the console marks a hub that ties pending reviews to confirmed abusers (Chromium)', function () {
  this.timeout(180_000);
  let h: Harness;
  let chrome: LaunchedChromium;
  let page: Page;
  let site: Awaited<ReturnType<typeof serveApp>>;
  const noise: string[] = [];
  const deviceId = `farm-${Date.now().toString(36)}`;

  before(async function () {
    const chromium = await chromiumOrSkip(this);
    h = await verdictHarness({ CONSOLE_SIGN_IN_PER_IP: '1000' });
    for (let i = 0; i < 12; i++) {
      const res = await h.verdict(
        aSignup({ ip: IPS.proxy, external_user_id: `hubring_${i}`, email: `hubring${i}@shop-mail.com`, identity: { device_id: deviceId } }),
      );
      expect(res.body.verdict).to.equal('review');
    }
    for (const account of ['hubring_0', 'hubring_1'])
      await request(h.app)
        .post('/v1/feedback')
        .set(bearer(h.tenant.keys.sk_test))
        .send({ subject: { kind: 'external_user_id', value: account }, outcome: 'confirmed_abuse' })
        .expect(200);
    await h.graphSettled();
    site = await serveApp(h.app);
    chrome = await launchChromium(chromium);
    ({ page } = await signedInAnalyst(
      chrome.browser,
      { origin: site.origin, deps: h.deps, tenantId: h.tenant.tenantId, noise },
      { role: 'analyst', prefix: 'hubs', ready: '.queue li' },
    ));
  });

  after(async () => {
    await chrome?.close();
    await site?.close();
  });

  it("says on a pending account's page that its hub links 10 pending reviews to 2 confirmed abusers, and lists the 12 accounts behind it on demand", async () => {
    await page.goto(`${site.origin}/console/accounts/hubring_7`);
    const hub = page.locator(`.hub-accounts[data-kind="device_id"]`);
    await hub.locator('.hub-confirmed').waitFor();
    expect(await hub.locator('.hub-confirmed').textContent()).to.equal('This device_id links 10 pending reviews to 2 confirmed abusers.');
    expect(await hub.locator('table').count()).to.equal(0);
    await hub.getByRole('button', { name: 'Show the 12 accounts behind it' }).click();
    const rows = hub.locator('tbody tr');
    await rows.first().waitFor();
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-account')))).to.deep.equal(
      Array.from({ length: 12 }, (_, i) => `hubring_${i}`),
    );
    const confirmed = await rows.evaluateAll((trs) =>
      trs.filter((tr) => tr.querySelector('.flag.bad')?.textContent === 'confirmed').map((tr) => tr.getAttribute('data-account')),
    );
    expect(confirmed).to.deep.equal(['hubring_0', 'hubring_1']);
    // Each account's pending reviews, a link to the queue filtered to it.
    expect(await rows.nth(7).locator('td.num a').getAttribute('href')).to.equal('/console/queue?text=hubring_7');
    await hub.getByRole('button', { name: 'Hide the 12 accounts behind it' }).click();
    expect(await hub.locator('table').count()).to.equal(0);
  });

  it('says the same in the cluster picture, in the details of the hub', async () => {
    // The two confirmed accounts are alone in their clusters (the hub links nothing): the
    // picture of one of them draws the hub as a node.
    await page.goto(`${site.origin}/console/accounts/hubring_0/cluster`);
    await page.waitForSelector('.graph canvas');
    const id = `id:device_id:${deviceId}`;
    await page.waitForFunction(
      (hubId) =>
        ((document.querySelector('.graph') as unknown as { cy?: { getElementById(i: string): { length: number } } }).cy?.getElementById(
          hubId,
        ).length ?? 0) > 0,
      id,
    );
    const at = await page.evaluate((hubId) => {
      const graph = document.querySelector('.graph') as HTMLElement & {
        cy: { getElementById(i: string): { renderedPosition(): { x: number; y: number } } };
      };
      const p = graph.cy.getElementById(hubId).renderedPosition();
      const box = graph.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    }, id);
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('.node-facts h2:text("hub")');
    const details = page.locator(`.hub-accounts[data-kind="device_id"]`);
    await details.locator('.hub-confirmed').waitFor();
    expect(await details.locator('.hub-confirmed').textContent()).to.equal(
      'This device_id links 10 pending reviews to 2 confirmed abusers.',
    );
  });

  it('wrote no error or warning to the browser console', () => {
    expect(noise.filter((n) => !expectedNoise(n))).to.deep.equal([]);
  });
});
