/// <reference lib="dom" />
// Typed results in Debian's Chromium: what a Cypher query or a saved query returns reads as what
// it is (a time in UTC, never epoch digits; a graph node with its kind and a link to its page;
// accounts, events, clusters, cards, devices and emails as links), what links two accounts names
// the kind of the identifier they share and keeps both accounts in the URL, and the audit log's
// detail reads as key: value pairs with its ids linked, never raw JSON or markup. At 1440 and
// 1024 px nothing scrolls sideways and the browser's console stays quiet.
import { expect } from 'chai';
import request from 'supertest';
import type { Page } from 'playwright-core';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { expectedNoise, serveApp, signedInAnalyst } from '../support/console-browser.js';
import { bearer } from '../support/fixtures.js';
import { aCheckout, aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

const ENV = { CONSOLE_SIGN_IN_PER_IP: '1000' };
const PHONE = '+15556660001';
const CARD = 'card_typed';
const UTC = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/;
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 10)} ${new Date(ms).toISOString().slice(11, 19)} UTC`;

describe('typed query results and audit detail in the console (Chromium)', function () {
  this.timeout(180_000);
  let h: Harness;
  let chrome: LaunchedChromium;
  let page: Page;
  let site: Awaited<ReturnType<typeof serveApp>>;
  let device: string;
  let checkout: string;
  const noise: string[] = [];

  // What the graph holds about ana, read directly: the times the console must show.
  const graphFacts = async () => {
    const { records } = await h.deps.graph.executeQuery(
      `MATCH (a:Account {tenantId: $tenantId, mode: 'test', externalId: 'ana'})-[l:LINKED]->(c:Card {value: $card})
       MATCH (a)-[:IN]->(k:Cluster)
       RETURN l.firstSeenAt AS firstSeenAt, k.id AS cluster`,
      { tenantId: h.tenant.tenantId, card: CARD },
    );
    return records[0]!.toObject() as { firstSeenAt: number; cluster: string };
  };

  async function runCypher(text: string): Promise<void> {
    await page.goto(`${site.origin}/console/cypher`);
    await page.waitForSelector('.cm-content');
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(text);
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('table.result tbody tr');
  }

  // The cells of the result table's column, by its header.
  async function column(name: string) {
    const headers = await page.locator('table.result thead th').allTextContents();
    const at = headers.indexOf(name);
    expect(at, `column ${name} in ${headers.join(', ')}`).to.be.at.least(0);
    return page.locator(`table.result tbody tr td:nth-child(${at + 1})`);
  }

  // Neither width scrolls the page sideways (a wide result scrolls in its own box), resized from
  // the wide screen as an analyst's window is; the message names what sticks out.
  async function fitsBothWidths(where: string): Promise<void> {
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(150);
      const wide = await page.evaluate(() =>
        document.documentElement.scrollWidth <= window.innerWidth
          ? []
          : [...document.querySelectorAll('body *')]
              .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
              .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
      );
      expect(wide, `sideways scroll at ${width} px on ${where}`).to.deep.equal([]);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  before(async function () {
    const chromium = await chromiumOrSkip(this);
    h = await verdictHarness(ENV);
    site = await serveApp(h.app);
    // ana and bob share a phone; ana paid with a card and signed in from a verified device.
    await h.verdict(aSignup({ external_user_id: 'ana', email: 'Ana.Typed+shop@gmail.com', identity: { phone: PHONE } }));
    await h.verdict(aSignup({ external_user_id: 'bob', identity: { phone: PHONE } }));
    checkout = (await h.verdict(aCheckout({ external_user_id: 'ana' }, { card_fingerprint: CARD }))).body.id;
    const token = (
      await request(h.app)
        .post('/v1/device')
        .set(bearer(h.tenant.keys.pk_test))
        .send({ components: { gpu: 'typed' } })
        .expect(200)
    ).body.device_token;
    await h.verdict({ event_type: 'login', external_user_id: 'ana', device_token: token });
    await h.graphSettled();
    const { records } = await h.deps.graph.executeQuery(
      "MATCH (:Account {tenantId: $tenantId, mode: 'test', externalId: 'ana'})-[:LINKED]->(d:Device) RETURN d.value AS device",
      { tenantId: h.tenant.tenantId },
    );
    device = records[0]!.get('device') as string;
    chrome = await launchChromium(chromium);
    ({ page } = await signedInAnalyst(
      chrome.browser,
      { origin: site.origin, deps: h.deps, tenantId: h.tenant.tenantId, noise },
      { role: 'admin', prefix: 'typed' },
    ));
  });

  after(async () => {
    await chrome?.close();
    await site?.close();
  });

  it('shows a Cypher result typed: firstSeenAt in UTC, nodes with their kind and page, ids as links', async () => {
    const facts = await graphFacts();
    await runCypher(
      `MATCH (a:Account {externalId: 'ana'})-[l:LINKED]->(c:Card) MATCH (a)-[:IN]->(k:Cluster) MATCH (e:Event {id: '${checkout}'})-[:BY]->(a) RETURN a, c, l.firstSeenAt AS firstSeenAt, l.firstSeenAt, e.id AS event, k.id AS cluster, c.value AS card, a.externalId AS account LIMIT 5`,
    );
    expect(await page.locator('table.result tbody tr').count()).to.equal(1);
    // Times read as UTC times, aliased or not; the epoch digits stay in the title.
    expect(await (await column('firstSeenAt')).textContent())
      .to.equal(utc(facts.firstSeenAt))
      .and.match(UTC);
    expect(await (await column('l.firstSeenAt')).textContent()).to.equal(utc(facts.firstSeenAt));
    expect(await (await column('firstSeenAt')).locator('time').getAttribute('title')).to.equal(String(facts.firstSeenAt));
    // Nodes with their kind, linked to where they lead.
    const account = await column('a');
    expect(await account.locator('.kind').textContent()).to.equal('Account');
    expect(await account.locator('a').getAttribute('href')).to.equal('/console/accounts/ana');
    const card = await column('c');
    expect(await card.locator('.kind').textContent()).to.equal('Card');
    expect(await card.locator('a').getAttribute('href')).to.equal(`/console/events?card=${CARD}`);
    // Ids as links by their column.
    expect(await (await column('event')).locator('a').getAttribute('href')).to.equal(`/console/events/${checkout}`);
    expect(await (await column('cluster')).locator('a').getAttribute('href')).to.equal(`/console/clusters/${facts.cluster}`);
    expect(await (await column('card')).locator('a').getAttribute('href')).to.equal(`/console/events?card=${CARD}`);
    expect(await (await column('account')).locator('a').getAttribute('href')).to.equal('/console/accounts/ana');
    for (const text of await page.locator('table.result td').allTextContents()) expect(text).not.to.match(/^\d+$/);
    await fitsBothWidths('the Cypher page');
    // The card's link finds the events that used it.
    await (await column('c')).locator('a').click();
    await page.waitForURL(/\/console\/events\?card=/);
    await page.waitForSelector('table.rows.events tbody tr');
    expect(
      await page.locator('table.rows.events tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-event-id'))),
    ).to.deep.equal([checkout]);
  });

  it('names every identifier kind and leads an email to its cluster and a device to the accounts that used it', async () => {
    await runCypher("MATCH (a:Account {externalId: 'ana'})-[:LINKED]->(i:Identifier) RETURN i ORDER BY i.kind LIMIT 10");
    const cells = await column('i');
    expect(await cells.locator('.kind').allTextContents()).to.deep.equal(['Card', 'Device', 'Email', 'phone']);
    expect(await cells.locator('a').evaluateAll((els) => els.map((e) => e.getAttribute('href')))).to.deep.equal([
      `/console/events?card=${CARD}`,
      `/console/queries/accounts-on-device?device=${encodeURIComponent(device)}`,
      '/console/queries/linked-to-email?email=anatyped%40gmail.com',
      `/console/events?identity=${encodeURIComponent(`phone=${PHONE}`)}`,
    ]);
    // A device: the saved query runs at once, its times in UTC, its accounts linked.
    await cells.locator('a').nth(1).click();
    await page.waitForURL(/accounts-on-device/);
    await page.waitForSelector('table.result tbody tr');
    expect(await (await column('account')).locator('a').getAttribute('href')).to.equal('/console/accounts/ana');
    expect(await (await column('firstSeenAt')).textContent()).to.match(UTC);
    expect(await (await column('lastSeenAt')).textContent()).to.match(UTC);
    // An email: its cluster, looked up as the graph keeps it.
    await runCypher("MATCH (a:Account {externalId: 'ana'})-[:LINKED]->(i:Identifier) RETURN i ORDER BY i.kind LIMIT 10");
    await (await column('i')).locator('a').nth(2).click();
    await page.waitForSelector('table.result tbody tr');
    expect(await page.locator('table.result a[href="/console/accounts/bob"]').count()).to.be.at.least(1);
  });

  it("shows what links two accounts with the shared identifier's kind, and keeps both accounts in the URL", async () => {
    // From the account page's link: one account given, the other typed.
    await page.goto(`${site.origin}/console/queries/what-links-accounts?account=ana`);
    await page.fill('input[name=other]', 'bob');
    await page.click('button:text("Run")');
    await page.waitForSelector('.graph.small canvas');
    expect(new URL(page.url()).search).to.equal('?account=ana&other=bob');
    const labels = () =>
      page.$eval('.graph.small', (el) =>
        (el as HTMLElement & { cy: { nodes(): { map(f: (n: { data(k: string): string }) => string): string[] } } }).cy
          .nodes()
          .map((n) => n.data('label')),
      );
    expect(await labels()).to.have.members(['ana', `phone: ${PHONE}`, 'bob']);
    // A reload (or the link shared) shows the same result.
    await page.reload();
    await page.waitForSelector('.graph.small canvas');
    expect(await page.inputValue('input[name=other]')).to.equal('bob');
    expect(await labels()).to.have.members(['ana', `phone: ${PHONE}`, 'bob']);
    await fitsBothWidths('what-links-accounts');
    await page.click('button:text("Show as table")');
    const path = await column('path');
    expect(await path.locator('.kind').allTextContents()).to.deep.equal(['Account', 'phone', 'Account']);
    expect(await path.textContent()).to.equal(`Account ana — phone ${PHONE} — Account bob`);
    const shared = await column('identifiers');
    expect(await shared.locator('.kind').textContent()).to.equal('phone');
    expect(await shared.locator('a').getAttribute('href')).to.equal(`/console/events?identity=${encodeURIComponent(`phone=${PHONE}`)}`);
    expect(await (await column('accounts')).locator('a').evaluateAll((els) => els.map((e) => e.getAttribute('href')))).to.deep.equal([
      '/console/accounts/ana',
      '/console/accounts/bob',
    ]);
  });

  it("reads the audit log's detail as key: value pairs with ids linked, text only, not raw JSON", async () => {
    // A console feedback with a note that looks like markup (audited with its subject).
    const status = await page.evaluate(async () => {
      const me = await (await fetch('/console/api/me')).json();
      const res = await fetch('/console/api/feedback', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrf_token },
        body: JSON.stringify({
          subject: { kind: 'external_user_id', value: 'bob' },
          outcome: 'confirmed_abuse',
          note: '<b>not bold</b> {"raw": 1}',
        }),
      });
      return res.status;
    });
    expect(status).to.equal(200);
    await page.goto(`${site.origin}/console/audit`);
    await page.waitForSelector('table.audit tbody tr');
    const row = (action: string) =>
      page.locator('table.audit tbody tr', { has: page.locator(`td:nth-child(4):text-is("${action}")`) }).first();
    // The saved query's run: its parameters as pairs, the accounts linked; its subject leads to the run.
    const run = row('query.run');
    const rerun = new URL((await run.locator('td:nth-child(5) a').getAttribute('href'))!, site.origin);
    expect(rerun.pathname).to.equal('/console/queries/what-links-accounts');
    expect(Object.fromEntries(rerun.searchParams)).to.deep.equal({ account: 'ana', other: 'bob' });
    const detail = run.locator('td.detail');
    expect(await detail.locator('dl.fields > dt').allTextContents()).to.include.members(['params', 'rows', 'truncated']);
    // (Postgres keeps a detail's keys shortest first: other before account.)
    expect(await detail.locator('dl.fields dl.fields a').evaluateAll((els) => els.map((e) => e.getAttribute('href')))).to.have.members([
      '/console/accounts/ana',
      '/console/accounts/bob',
    ]);
    // The feedback: its subject named and linked, its note as text.
    const feedback = row('feedback');
    expect(await feedback.locator('td:nth-child(5) .kind').textContent()).to.equal('external_user_id');
    expect(await feedback.locator('td:nth-child(5) a').getAttribute('href')).to.equal('/console/accounts/bob');
    expect(await feedback.locator('td.detail dd').allTextContents()).to.have.members(['confirmed_abuse', '<b>not bold</b> {"raw": 1}']);
    expect(await feedback.locator('td.detail b').count()).to.equal(0);
    // A free-form run: its statement as text among the pairs.
    const cypher = row('cypher.run');
    expect(await cypher.locator('td.detail dt').allTextContents()).to.include.members(['text', 'params', 'rows', 'ms']);
    expect(await cypher.locator('td.detail dt:text-is("text") + dd').textContent()).to.match(/^MATCH \(a:Account/);
    // No detail cell is JSON: none starts with a brace.
    for (const text of await page.locator('table.audit td.detail').allTextContents()) expect(text.trim()).not.to.match(/^[{[]/);
    // The pairs do not overlap: each value starts right of its key.
    const overlaps = await page.locator('table.audit td.detail dl.fields').evaluateAll(
      (dls) =>
        dls.flatMap((dl) =>
          [...dl.querySelectorAll(':scope > dt')].filter((dt) => {
            const dd = dt.nextElementSibling!;
            return dd.getBoundingClientRect().left < dt.getBoundingClientRect().right;
          }),
        ).length,
    );
    expect(overlaps).to.equal(0);
    await fitsBothWidths('the audit log');
    // Its times stay on one line at 1024 px, beside the wider detail.
    await page.setViewportSize({ width: 1024, height: 900 });
    const lines = await page.locator('table.audit td.time').evaluateAll((tds) =>
      tds.map((td) => {
        const r = document.createRange();
        r.selectNodeContents(td);
        return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
      }),
    );
    expect(new Set(lines)).to.deep.equal(new Set([1]));
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('wrote no error or warning to the browser console', () => {
    expect(noise.filter((n) => !expectedNoise(n))).to.deep.equal([]);
  });
});
