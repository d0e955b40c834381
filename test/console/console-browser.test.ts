/// <reference lib="dom" />
// The analyst console end to end in Debian's Chromium (playwright-core): sign in through the
// one-time link, work the queue by keyboard (a denial's signed webhook arrives at a local
// receiver), open a cluster picture and click a node, run a saved query and their own Cypher, see hostile event data
// as text, switch modes; a cross-site form post is refused, another tenant's event is not found,
// and sign-in attempts are limited. Screenshots go to test-output/console/; with
// UPDATE_SCREENSHOTS=1 the Cypher page's also replaces docs/console-cypher.png (a test run leaves
// the tracked files alone; console-analyst-day.test.ts takes the other pages'). No page breaks its
// CSP, asks another origin, or writes an error or warning to the browser's console.
import { expect } from 'chai';
import { verify } from '@octokit/webhooks-methods';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Deps } from '../../src/deps.js';
import { addAnalyst } from '../../src/console/auth/manage-analysts.js';
import { startWorkers } from '../../src/start-workers.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { expectedNoise, serveApp, watchConsole, welcome } from '../support/console-browser.js';
import { startHttpStandIn, type HttpStandIn } from '../support/http-stand-in.js';
import { testDeps } from '../support/test-deps.js';
import { aCheckout, aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

const OUTPUT = path.join(process.env.TEST_OUTPUT_DIR ?? 'test-output', 'console');
const publishScreenshot = (name: string, docsPath: string) => {
  if (process.env.UPDATE_SCREENSHOTS === '1') fs.copyFileSync(path.join(OUTPUT, name), docsPath);
};
const ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_UNIT_MS: '10',
  WEBHOOK_TIMEOUT_MS: '2000',
  GRAPH_HUB_THRESHOLD: '5',
  CONSOLE_SIGN_IN_PER_IP: '1000',
};
const XSS = {
  email: '"<img src=x onerror=window.__xss=1>"@shop-mail.com',
  external_user_id: '<script>window.__xss=2</script>',
  identity: { phone: '<img src=x onerror="window.__xss=3">', '<b>key</b>': '</dd><script>window.__xss=4</script>' },
  context: { note: '<script>window.__xss=5</script>', nested: { html: '<svg onload=window.__xss=6>' } },
};

describe('the analyst console in Debian Chromium', function () {
  this.timeout(180_000);
  let h: Harness;
  let other: Harness;
  let chrome: LaunchedChromium;
  let context: BrowserContext;
  let page: Page;
  let site: Awaited<ReturnType<typeof serveApp>>;
  let receiver: HttpStandIn;
  let attacker: HttpStandIn;
  let attackerPage = '';
  let secret: string;
  let worker: { close(): Promise<void> };
  let workerDeps: Deps;
  let email: string;
  const reviews: string[] = [];
  const origins = new Set<string>();
  const dialogs: string[] = [];
  // Every console error or warning and uncaught page error, from every page: there must be none.
  const consoleNoise: string[] = [];
  let xssEvent: string;

  before(async function () {
    const chromium = await chromiumOrSkip(this);
    workerDeps = testDeps(ENV);
    worker = await startWorkers(workerDeps);
    h = await verdictHarness(ENV);
    other = await verdictHarness(ENV);
    site = await serveApp(h.app);
    receiver = await startHttpStandIn(() => ({ status: 200 }));
    attacker = await startHttpStandIn(() => ({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: attackerPage }));
    secret = (await setWebhook(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, `${receiver.url}/hooks`)).secret;
    // A ring of six accounts: two phones and a card shared, and an office network identifier
    // that so many use that it became a hub.
    for (let i = 0; i < 6; i++) {
      const res = await h.verdict(
        aSignup({
          ip: IPS.proxy,
          external_user_id: `ring_${i}`,
          email: `ring${i}@shop-mail.com`,
          identity: { phone: `+1555000${i % 2}`, wifi: 'office-guest' },
        }),
      );
      reviews.push(res.body.id);
    }
    for (const i of [0, 2, 4]) await h.verdict(aCheckout({ external_user_id: `ring_${i}` }, { card_fingerprint: 'card_ring' }));
    xssEvent = (await other.verdict(aSignup({ ip: IPS.proxy, ...XSS }))).body.id;
    chrome = await launchChromium(chromium);
    context = await chrome.browser.newContext({ viewport: { width: 1440, height: 900 } });
    await watch(context);
    page = await context.newPage();
    fs.mkdirSync(OUTPUT, { recursive: true });
  });

  after(async () => {
    await chrome?.close();
    await Promise.all([site?.close(), receiver?.close(), attacker?.close()]);
    await worker?.close();
    await workerDeps?.boss.stop({ graceful: false, wait: true });
  });

  // Records every CSP violation (init scripts run outside the page's CSP), dialog and origin asked.
  async function watch(ctx: BrowserContext): Promise<void> {
    await ctx.addInitScript(() => {
      const w = window as unknown as { __violations: string[] };
      w.__violations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        w.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`.trim()),
      );
    });
    ctx.on('request', (req) => origins.add(new URL(req.url()).origin));
    watchConsole(ctx, consoleNoise);
    ctx.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
  }

  const violations = (p: Page) => p.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  const noViolations = async (p: Page = page) => expect(await violations(p)).to.deep.equal([]);

  it('signs in through the one-time link and lands on the queue, oldest first, in test mode', async () => {
    email = `lead-${Date.now()}@example.org`;
    const link = await addAnalyst(h.deps, { tenantId: h.tenant.tenantId, email, role: 'admin' });
    await welcome(page, site.origin, link.signInUrl);
    await page.waitForSelector('.queue li');
    expect(new URL(page.url()).pathname).to.equal('/console/queue');
    expect(new URL(page.url()).hash).to.equal('');
    expect(await page.locator('.queue li').evaluateAll((els) => els.map((e) => e.getAttribute('data-event-id')))).to.deep.equal(reviews);
    expect(await page.textContent('.mode-switch button.on')).to.equal('test');
    expect(await page.textContent('.test-banner')).to.contain('Test mode');
    await page.waitForSelector(`.event[data-event-id="${reviews[0]}"]`);
    await page.screenshot({ path: path.join(OUTPUT, 'queue-signed-in.png') });
    await noViolations();
  });

  it('works the queue by keyboard: next, previous, a note, deny (the signed webhook arrives), approve', async () => {
    const selected = () => page.getAttribute('.queue li.selected', 'data-event-id');
    await page.keyboard.press('j');
    expect(await selected()).to.equal(reviews[1]);
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    expect(await selected()).to.equal(reviews[1]);
    await page.waitForSelector(`.event[data-event-id="${reviews[1]}"] textarea[name=note]`);
    await page.keyboard.press('n');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).to.equal('note');
    await page.keyboard.type('same phone as ring_0; denied');
    await page.keyboard.press('Escape');
    const before = receiver.requests.length;
    await page.keyboard.press('d');
    await page.waitForSelector(`.notice:text("Denied ${reviews[1]}")`);
    const [delivery] = (await receiver.waitForRequests(before + 1, 20_000)).slice(before);
    const signatures = String(delivery!.headers['service-signature']).split(' ');
    expect(await verify(secret, delivery!.body, signatures[0]!)).to.equal(true);
    expect(JSON.parse(delivery!.body)).to.include({
      event_id: reviews[1],
      resolution: 'denied',
      final_verdict: 'block',
      external_user_id: 'ring_1',
    });
    // The denied review left the queue; the one after it is selected.
    expect(await page.locator('.queue li').count()).to.equal(5);
    expect(await selected()).to.equal(reviews[2]);
    await page.waitForSelector(`.event[data-event-id="${reviews[2]}"] button.approve`);
    await page.keyboard.press('a');
    await page.waitForSelector(`.notice:text("Approved ${reviews[2]}")`);
    const { rows } = await h.deps.db.query(
      'SELECT event_id, status, resolved_by, note FROM reviews WHERE tenant_id = $1 AND status <> $2 ORDER BY event_id',
      [h.tenant.tenantId, 'pending'],
    );
    expect(rows).to.deep.equal([
      { event_id: reviews[1], status: 'denied', resolved_by: email, note: 'same phone as ring_0; denied' },
      { event_id: reviews[2], status: 'approved', resolved_by: email, note: null },
    ]);
    await noViolations();
  });

  it('opens the cluster picture of an event: hubs shown, a click on a node shows its facts', async () => {
    await h.graphSettled();
    await page.goto(`${site.origin}/console/events/${reviews[0]}`);
    await page.click('text=Open the cluster picture');
    await page.waitForSelector('.graph canvas');
    await page.waitForFunction(
      () => ((document.querySelector('.graph') as unknown as { cy?: { nodes(): { length: number } } }).cy?.nodes().length ?? 0) > 10,
    );
    const summary = await page.evaluate(() => {
      const cy = (
        document.querySelector('.graph') as unknown as {
          cy: { nodes(sel?: string): { length: number; map(f: (n: { id(): string }) => string): string[] } };
        }
      ).cy;
      return {
        accounts: cy.nodes('[kind = "account"]').map((n) => n.id()),
        hubs: cy.nodes('[kind = "hub"]').map((n) => n.id()),
        events: cy.nodes('[kind = "event"]').length,
      };
    });
    // The wifi value became a hub at the sixth account: the ring split into the accounts that share
    // a phone and a card (0, 2, 4) and those that share the other phone (1, 3, 5).
    expect(summary.accounts.sort()).to.deep.equal(['account:ring_0', 'account:ring_2', 'account:ring_4']);
    expect(summary.hubs).to.deep.equal(['id:wifi:office-guest']);
    expect(summary.events).to.equal(6);
    const at = await page.evaluate(() => {
      const graph = document.querySelector('.graph') as HTMLElement & {
        cy: { getElementById(id: string): { renderedPosition(): { x: number; y: number } } };
      };
      const p = graph.cy.getElementById('account:ring_2').renderedPosition();
      const box = graph.getBoundingClientRect();
      return { x: box.left + p.x, y: box.top + p.y };
    });
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('.node-facts h2:text("account")');
    expect(await page.textContent('.node-facts')).to.contain('ring_2');
    expect(await page.getAttribute('.node-facts a:text("Open the account")', 'href')).to.equal('/console/accounts/ring_2');
    expect(await page.getAttribute('.node-facts a:text("its events")', 'href')).to.equal('/console/events?external_user_id=ring_2');
    await page.click('.node-facts a:text("its events")');
    await page.waitForSelector('table.rows tbody tr');
    expect(await page.locator('table.rows tbody tr').count()).to.equal(2);
    await noViolations();
  });

  it('shows why an account is in a convicted cluster, and draws the path from it to the marked subject', async () => {
    // ring_1's review was denied (a mark on its event); ring_3 shares ring_1's phone.
    await page.goto(`${site.origin}/console/events/${reviews[3]}/cluster`);
    await page.waitForSelector('section.evidence li');
    expect(await page.textContent('section.evidence li')).to.match(
      /confirmed abuse on a reviewed event of account ring_1, .* via phone \S+ \(review of .*; by review by lead-/,
    );
    await page.waitForFunction(
      () =>
        ((document.querySelector('.graph') as unknown as { cy?: { nodes(sel: string): { length: number } } }).cy?.nodes('.evidence')
          .length ?? 0) === 3,
    );
    const marked = await page.evaluate(() => {
      const cy = (
        document.querySelector('.graph') as unknown as {
          cy: { elements(sel: string): { map(f: (n: { id(): string }) => string): string[] } };
        }
      ).cy;
      return {
        nodes: cy
          .elements('node.evidence')
          .map((n) => n.id())
          .sort(),
        edges: cy.elements('edge.evidence').map((n) => n.id()).length,
      };
    });
    expect(marked).to.deep.equal({ nodes: ['account:ring_1', 'account:ring_3', 'id:phone:+15550001'], edges: 2 });
    await noViolations();
  });

  it('runs a saved query and shows its paths as a table, as a picture, and offers the CSV', async () => {
    await page.goto(`${site.origin}/console/queries`);
    await page.click('a[href="/console/queries/shared-identifiers"]');
    await page.fill('input[name=account]', 'ring_0');
    await page.click('button:text("Run")');
    await page.waitForSelector('table.result tbody tr');
    const others = await page.locator('table.result tbody tr td:nth-child(4)').allTextContents();
    expect(others).to.deep.equal(['ring_2', 'ring_4', 'ring_2', 'ring_4']);
    expect(await page.getAttribute('a:text("Download CSV")', 'href')).to.equal(
      '/console/api/queries/shared-identifiers/csv?account=ring_0',
    );
    await page.click('button:text("Show as picture")');
    await page.waitForSelector('.graph.small canvas');
    await page.screenshot({ path: path.join(OUTPUT, 'query.png') });
    await noViolations();
  });

  it("runs the analyst's own Cypher: completion, Ctrl+Enter, a table, a picture, CSV, a refusal, history, save as a query", async () => {
    await page.goto(`${site.origin}/console/cypher`);
    await page.waitForSelector('.cm-content');
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('MATCH (n:Acc');
    await page.keyboard.press('Control+Space');
    await page.waitForSelector('.cm-tooltip-autocomplete li:has-text("Account")');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+A');
    await page.keyboard.type(
      'MATCH p = (a:Account)-[:LINKED]->(i:Identifier {kind: $kind}) RETURN a.externalId AS account, p ORDER BY account',
    );
    await page.fill('input[name=param-kind]', 'phone');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('table.result tbody tr');
    expect(await page.locator('table.result tbody tr td:nth-child(1)').allTextContents()).to.deep.equal([
      'ring_0',
      'ring_1',
      'ring_2',
      'ring_3',
      'ring_4',
      'ring_5',
    ]);
    await page.screenshot({ path: path.join(OUTPUT, 'cypher.png') });
    publishScreenshot('cypher.png', 'docs/console-cypher.png');
    await page.setViewportSize({ width: 1024, height: 900 });
    await page.screenshot({ path: path.join(OUTPUT, 'cypher-1024.png') });
    publishScreenshot('cypher-1024.png', 'docs/console-cypher-1024.png');
    await page.setViewportSize({ width: 1440, height: 900 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:text("Download CSV")')]);
    const csv = fs.readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(csv[0]).to.equal('account,p');
    expect(csv[1]).to.match(/^ring_0,"\{""\$path""/);
    await page.click('button:text("Show as picture")');
    await page.waitForSelector('.graph.small canvas');
    expect(
      await page.$eval('.graph.small', (el) => (el as HTMLElement & { cy: { nodes(): { length: number } } }).cy.nodes().length),
    ).to.equal(8);
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('CALL db.labels()');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.cypher-workbench .error');
    expect(await page.textContent('.cypher-workbench .error')).to.contain(
      'Refused: the procedure db.labels (procedure calls) (line 1, column 1).',
    );
    await page.waitForSelector('.cypher-history li:has-text("refused")');
    expect(await page.locator('.cypher-history li').count()).to.be.at.least(2);
    await page.click('.cypher-history li:nth-child(2) .history-entry');
    await page.fill('input[name=query-id]', 'ring-links');
    await page.fill('input[name=query-description]', 'accounts and the identifiers of a kind they link');
    await page.click('button:text("Save for this tenant")');
    await page.click('a[href="/console/queries/ring-links"]');
    await page.fill('input[name=kind]', 'phone');
    await page.click('button:text("Run")');
    await page.waitForSelector('table.result tbody tr');
    expect(await page.locator('table.result tbody tr').count()).to.equal(6);
    // Typing next to a highlighted token, Chrome's own contenteditable editing copies the token's
    // colour into a style attribute, which the CSP refuses (and reports); CodeMirror redraws from
    // its state either way. Those refusals, and nothing else.
    const left = (await violations(page)).filter((v) => !/^style-src-attr inline color: rgb\(\d+, \d+, \d+\);$/.test(v));
    expect(left).to.deep.equal([]);
  });

  it('refuses a cross-site form post that would resolve a review', async () => {
    attackerPage = `<!doctype html><form method="post" action="${site.origin}/console/api/reviews/${reviews[3]}/resolve" enctype="text/plain">
      <input name='{"resolution":"denied","x":"' value='"}'></form><script>document.forms[0].submit()</script>`;
    const evil = await context.newPage();
    const answer = evil.waitForResponse((r) => r.url().includes('/resolve'));
    await evil.goto(attacker.url);
    expect((await answer).status()).to.equal(403);
    const { rows } = await h.deps.db.query('SELECT status FROM reviews WHERE tenant_id = $1 AND event_id = $2', [
      h.tenant.tenantId,
      reviews[3],
    ]);
    expect(rows[0].status).to.equal('pending');
    await evil.close();
  });

  it("shows another tenant's event as not found, and switches to live mode with an empty queue that says what to do", async () => {
    await page.goto(`${site.origin}/console/events/${xssEvent}`);
    await page.waitForSelector('.error');
    expect(await page.textContent('.error')).to.contain(`No event ${xssEvent}`);
    await page.goto(`${site.origin}/console/queue`);
    await page.click('.mode-switch button[data-mode=live]');
    await page.waitForSelector('.empty:has-text("No pending reviews in live mode")');
    expect(await page.textContent('.empty')).to.contain('Looking for test data? Use the test switch at the top.');
    expect(await page.locator('.test-banner').count()).to.equal(0);
    await page.click('.mode-switch button[data-mode=test]');
    await page.waitForSelector('.queue li');
  });

  it('renders hostile email, external_user_id, identity and context as text', async () => {
    const link = await addAnalyst(other.deps, {
      tenantId: other.tenant.tenantId,
      email: `other-${Date.now()}@example.org`,
      role: 'analyst',
    });
    const theirs = await chrome.browser.newContext({ viewport: { width: 1440, height: 900 } });
    await watch(theirs);
    const p = await theirs.newPage();
    await welcome(p, site.origin, link.signInUrl);
    await p.waitForSelector('main');
    await p.goto(`${site.origin}/console/events`);
    await p.waitForSelector('table.rows tbody tr');
    expect(await p.locator('table.rows tbody td:nth-child(5)').allTextContents()).to.deep.equal([XSS.external_user_id]);
    expect(await p.locator('table.rows tbody td:nth-child(6)').allTextContents()).to.deep.equal([XSS.email]);
    await p.goto(`${site.origin}/console/events/${xssEvent}`);
    await p.waitForSelector(`.event[data-event-id="${xssEvent}"] .signals`);
    expect(await p.textContent('.event .email')).to.equal(XSS.email);
    expect(await p.textContent('.event .external-user-id')).to.equal(XSS.external_user_id);
    const identity = await p.textContent('.event .identity');
    expect(identity).to.contain(XSS.identity.phone).and.contain('<b>key</b>').and.contain(XSS.identity['<b>key</b>']);
    expect(await p.textContent('.event .context'))
      .to.contain(XSS.context.note)
      .and.contain(XSS.context.nested.html);
    expect(
      await p.evaluate(() => ({
        xss: (window as unknown as { __xss?: number }).__xss,
        injected: document.querySelectorAll('main img, main script, main svg:not(.chart), main b').length,
      })),
    ).to.deep.equal({ xss: undefined, injected: 0 });
    expect(dialogs).to.deep.equal([]);
    await noViolations(p);
    await theirs.close();
  });

  it('limits sign-in attempts: the sixth wrong password is refused for a while', async () => {
    const p = await context.newPage();
    await p.goto(`${site.origin}/console/sign-in`);
    const messages: string[] = [];
    for (let i = 0; i < 6; i++) {
      await p.fill('input[name=email]', email);
      await p.fill('input[name=password]', `wrong password ${i}`);
      await Promise.all([p.waitForResponse((r) => r.url().endsWith('/console/api/sign-in')), p.click('button[type=submit]')]);
      await p.waitForFunction(() => !document.querySelector('button[type=submit]')?.hasAttribute('disabled'));
      messages.push((await p.textContent('.error'))!);
    }
    expect(messages.slice(0, 5)).to.deep.equal(Array(5).fill('That email and password do not match an analyst account.'));
    expect(messages[5]).to.match(/^Too many sign-in attempts; try again in \d+ min\.$/);
    await p.close();
  });

  it('asked nothing of any origin but its own', () => {
    expect([...origins].filter((o) => o !== site.origin && o !== attacker.url)).to.deep.equal([]);
  });

  it('wrote no error or warning to the browser console on any page (the refused cross-site post aside)', () => {
    // Chrome logs every API answer in the 4xx range as a failed load: the refused cross-site post,
    // the wrong passwords, the other tenant's event are such answers on purpose. Anything else (a
    // missing asset, the favicon, a script's warning) is not.
    // On the Cypher page, Chrome's contenteditable styling refused by the CSP is reported too (the
    // known limitation the Cypher test allows, see there).
    expect(consoleNoise.filter((n) => !expectedNoise(n))).to.deep.equal([]);
  });
});
