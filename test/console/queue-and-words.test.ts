/// <reference lib="dom" />
// The queue's edges and the console's words, against the real stores and in Debian's Chromium: the
// queue's header counts the reviews its filters match (Postgres's filters and the graph's), the
// pane says when none is left under the filters and the URL stops naming the resolved review, one
// word for undoing a resolution's marks ("Undo marks"), amounts in their currency's units, and the
// analyst's email and role in the header at 1024 and at 1440 px.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import type { Deps } from '../../src/deps.js';
import { startWorkers } from '../../src/start-workers.js';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { anAnalyst, type ConsoleClient } from '../support/console-session.js';
import { expectedNoise, serveApp, signedInAnalyst } from '../support/console-browser.js';
import { testDeps } from '../support/test-deps.js';
import { aCheckout, aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

type Box = { x: number; y: number; width: number; height: number };

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_UNIT_MS: '10', CONSOLE_SIGN_IN_PER_IP: '1000' };
const PAIR_PHONE = '+15556660000';

describe('the queue counts what its filters match, says when none is left, and the console says one word for undo and money in currency units (Chromium)', function () {
  this.timeout(180_000);
  let h: Harness;
  let chrome: LaunchedChromium;
  let page: Page;
  let site: Awaited<ReturnType<typeof serveApp>>;
  let worker: { close(): Promise<void> };
  let workerDeps: Deps;
  let api: ConsoleClient;
  let email: string;
  // Three lone signups from a proxy (alpha_*), and two from a proxy sharing a phone (beta_*): five
  // pending reviews.
  const alphas: string[] = [];
  const betas: string[] = [];
  const payments: Record<string, string> = {};
  const noise: string[] = [];
  const at = () => ({ origin: site.origin, deps: h.deps, tenantId: h.tenant.tenantId, noise });

  before(async function () {
    const chromium = await chromiumOrSkip(this);
    workerDeps = testDeps(ENV);
    worker = await startWorkers(workerDeps);
    h = await verdictHarness(ENV);
    site = await serveApp(h.app);
    for (let i = 0; i < 3; i++)
      alphas.push((await h.verdict(aSignup({ ip: IPS.proxy, external_user_id: `alpha_${i}`, email: `alpha.${i}@gmail.com` }))).body.id);
    for (let i = 0; i < 2; i++)
      betas.push(
        (
          await h.verdict(
            aSignup({ ip: IPS.proxy, external_user_id: `beta_${i}`, email: `beta.${i}@gmail.com`, identity: { phone: PAIR_PHONE } }),
          )
        ).body.id,
      );
    // Checkouts in currencies of 2, 0 and 3 decimals, one Intl does not know, and one without a
    // currency.
    for (const [name, payment] of [
      ['usd', { amount: 9900, currency: 'USD' }],
      ['jpy', { amount: 500, currency: 'jpy' }],
      ['kwd', { amount: 1234, currency: 'kwd' }],
      ['unknown', { amount: 9900, currency: 'xyz' }],
      ['none', { amount: 250, currency: undefined }],
    ] as const) {
      const res = await h.verdict(aCheckout({ external_user_id: `payer_${name}` }, { card_fingerprint: `card_${name}`, ...payment }));
      payments[name] = res.body.id;
    }
    api = await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'admin');
    chrome = await launchChromium(chromium);
    ({ page, email } = await signedInAnalyst(chrome.browser, at(), { role: 'admin', prefix: 'qw', ready: '.queue' }));
  });

  after(async () => {
    await chrome?.close();
    await site?.close();
    await worker?.close();
    await workerDeps?.boss.stop({ graceful: false, wait: true });
  });

  const ids = (body: { reviews: { event_id: string }[] }) => body.reviews.map((r) => r.event_id);

  it("answers, under filters, how many pending reviews match them, Postgres's filters and the graph's alike", async () => {
    const all = (await api.get('/reviews').expect(200)).body;
    expect(all.pending).to.equal(5);
    expect(all).not.to.have.property('matching');
    const alpha = (await api.get('/reviews?text=alpha&limit=2').expect(200)).body;
    expect(ids(alpha)).to.deep.equal(alphas.slice(0, 2));
    expect(alpha).to.include({ pending: 5 }).and.have.property('next_cursor');
    expect(alpha.matching).to.deep.equal({ count: 3, complete: true });
    expect((await api.get('/reviews?text=nobody').expect(200)).body.matching).to.deep.equal({ count: 0, complete: true });
    expect((await api.get('/reviews?event_type=signup&reason=proxy_ip').expect(200)).body.matching).to.deep.equal({
      count: 5,
      complete: true,
    });
    // The cluster filter counts past a full page, and a later page carries no count.
    const pair = (await api.get('/reviews?min_accounts=2&limit=1').expect(200)).body;
    expect(ids(pair)).to.deep.equal([betas[0]]);
    expect(pair.matching).to.deep.equal({ count: 2, complete: true });
    const rest = (await api.get(`/reviews?min_accounts=2&limit=1&cursor=${encodeURIComponent(pair.next_cursor)}`).expect(200)).body;
    expect(ids(rest)).to.deep.equal([betas[1]]);
    expect(rest).not.to.have.property('matching');
    expect(rest).not.to.have.property('next_cursor');
    const both = (await api.get('/reviews?min_accounts=2&text=beta_1').expect(200)).body;
    expect(ids(both)).to.deep.equal([betas[1]]);
    expect(both.matching).to.deep.equal({ count: 1, complete: true });
  });

  it('keeps the filters the analyst types while the queue redraws (a review selected), and filters with them', async () => {
    await page.goto(`${site.origin}/console/queue`);
    await page.waitForFunction(() => document.querySelectorAll('.queue li').length === 5);
    await page.fill('form.filters input[name=text]', 'beta');
    await page.fill('form.filters input[name=min_accounts]', '2');
    await page.selectOption('form.filters select[name=event_type]', 'signup');
    await page.check('form.filters input[name=confirmed]');
    // Selecting another review redraws the queue, its filters included.
    await page.click('.queue li:nth-child(3)');
    await page.waitForSelector('.queue li:nth-child(3).selected');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
    expect([
      await page.inputValue('form.filters input[name=text]'),
      await page.inputValue('form.filters input[name=min_accounts]'),
      await page.inputValue('form.filters select[name=event_type]'),
      await page.isChecked('form.filters input[name=confirmed]'),
    ]).to.deep.equal(['beta', '2', 'signup', true]);
    await page.uncheck('form.filters input[name=confirmed]');
    await page.click('form.filters button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('.queue li').length === 2);
    const url = new URL(page.url());
    expect([url.searchParams.get('text'), url.searchParams.get('min_accounts'), url.searchParams.get('event_type')]).to.deep.equal([
      'beta',
      '2',
      'signup',
    ]);
    expect(url.searchParams.get('confirmed')).to.equal(null);
    expect(await page.textContent('.queue h1 .count')).to.equal('2 of 5 pending match');
  });

  it('says in the header how many of the pending reviews match the filters', async () => {
    await page.goto(`${site.origin}/console/queue`);
    await page.waitForSelector('.queue li');
    expect(await page.textContent('.queue h1 .count')).to.equal('5 pending');
    await page.goto(`${site.origin}/console/queue?min_accounts=2`);
    await page.waitForFunction(() => document.querySelectorAll('.queue li').length === 2);
    expect(await page.textContent('.queue h1 .count')).to.equal('2 of 5 pending match');
    await page.goto(`${site.origin}/console/queue?text=alpha`);
    await page.waitForFunction(() => document.querySelectorAll('.queue li').length === 3);
    expect(await page.textContent('.queue h1 .count')).to.equal('3 of 5 pending match');
  });

  it('after the last review that matches is resolved, the pane says none is left with a way to clear the filters, and the URL names no review', async () => {
    for (const [i, id] of alphas.entries()) {
      await page.waitForSelector(`.detail .event[data-event-id="${id}"] button.approve`);
      await page.waitForFunction((at) => new URLSearchParams(location.search).get('at') === at, id);
      await page.keyboard.press('a');
      await page.waitForSelector(`.notice:text("Approved ${id}")`);
      await page.waitForFunction(
        (n) => document.querySelector('.queue h1 .count')?.textContent === n,
        `${2 - i} of ${4 - i} pending match`,
      );
    }
    await page.waitForSelector('.detail .queue-empty');
    expect(await page.textContent('.detail .queue-empty .said')).to.equal('No review left that matches these filters.');
    expect(await page.textContent('.detail .queue-empty')).to.contain('2 reviews pending without them.');
    expect(await page.locator('.detail .event').count()).to.equal(0);
    expect(await page.locator('.queue li').count()).to.equal(0);
    await page.waitForFunction(() => !new URLSearchParams(location.search).has('at'));
    expect(new URL(page.url()).search).to.equal('?text=alpha');
    // The undo of the last resolution is still offered beside it.
    await page.click('.undo-notice button:text("Undo marks…")');
    await page.fill('.undo-notice input[name=undo-note]', 'approved by mistake');
    await page.click('.undo-notice button[type=submit]');
    await page.waitForSelector(`.undo-notice:text("Marks of ${alphas[2]} undone (the approval and its webhook stand).")`);
    // A reload of that URL says the same, without a resolution here: none matches.
    await page.reload();
    await page.waitForSelector('.detail .queue-empty');
    expect(await page.textContent('.detail .queue-empty .said')).to.equal('No pending reviews match these filters.');
    await page.click('.detail a.clear-filters');
    await page.waitForURL(/\/console\/queue(\?at=[^&]+)?$/);
    await page.waitForFunction(() => document.querySelectorAll('.queue li').length === 2);
    expect(await page.textContent('.queue h1 .count')).to.equal('2 pending');
    expect(await page.getAttribute('.queue li.selected', 'data-event-id')).to.equal(betas[0]);
  });

  it('calls undoing a resolution\'s marks "Undo marks" on the event page, before and after, and in its answer to a second undo', async () => {
    await page.goto(`${site.origin}/console/events/${alphas[1]}`);
    await page.waitForSelector('.review-actions form.undo');
    expect(await page.textContent('.review-actions form.undo label')).to.match(/^Undo marks \(the approval and its webhook stand\); why/);
    expect(await page.textContent('.review-actions form.undo button[type=submit]')).to.equal('Undo marks');
    await page.fill('.review-actions input[name=undo-note]', 'the customer was right');
    await page.click('.review-actions form.undo button[type=submit]');
    await page.waitForSelector('.review-actions .notice:text("Marks undone: later verdicts no longer carry them")');
    await page.waitForSelector('.review-actions .marks-retracted');
    expect(await page.textContent('.review-actions .marks-retracted')).to.match(
      new RegExp(
        `^Marks undone by ${email.replace(/[.]/g, '\\.')} at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC: “the customer was right”\\.$`,
      ),
    );
    const again = await api.post(`/reviews/${alphas[1]}/undo-marks`, { note: 'again' });
    expect(again.status).to.equal(409);
    expect(again.body.message).to.equal(`The marks of the review of ${alphas[1]} were already undone.`);
    // The wire and audit names stay as scripts know them.
    const { rows } = await h.deps.db.query(
      "SELECT subject FROM console_audit WHERE tenant_id = $1 AND action = 'review.undo_marks' ORDER BY at",
      [h.tenant.tenantId],
    );
    expect(rows.map((r) => r.subject)).to.deep.equal([alphas[2], alphas[1]]);
    for (const [where, said] of [
      [`/console/events/${alphas[1]}`, /Marks undone by/],
      [`/console/events/${alphas[0]}`, /Undo marks \(the approval/],
      ['/console/queue', /Review queue/],
    ] as const) {
      await page.goto(`${site.origin}${where}`);
      await page.waitForSelector('.review-actions, .queue li');
      const text = await page.textContent('main');
      expect(text, where).to.match(said);
      expect(text, where).not.to.match(/Undo its marks|Take the marks back|Took back|marks were taken back/i);
    }
  });

  it("shows a payment's amount in its currency's units, and minor units where the currency is unknown or missing", async () => {
    const expected: Record<string, string> = {
      usd: '99.00 USD',
      jpy: '500 JPY',
      kwd: '1.234 KWD',
      unknown: '9,900 minor units of XYZ',
      none: '250 minor units (no currency given)',
    };
    const shown: Record<string, { why: string | null; signals: string | null }> = {};
    for (const [name, id] of Object.entries(payments)) {
      await page.goto(`${site.origin}/console/events/${id}`);
      await page.waitForSelector('.why .payment dd.amount');
      shown[name] = { why: await page.textContent('.why .payment dd.amount'), signals: await page.textContent('.signals .amount') };
    }
    expect(shown).to.deep.equal(Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, { why: v, signals: v }])));
  });

  // Where the header's parts are at a width: the analyst's email and role (shown whole, on how many
  // lines), the other parts' boxes, the navigation's lines, and whether the page scrolls sideways.
  async function headerAt(p: Page, width: number) {
    await p.setViewportSize({ width, height: 800 });
    const part = async (sel: string) => {
      const el = p.locator(sel);
      return {
        text: await el.textContent(),
        box: (await el.boundingBox())!,
        shown: await el.isVisible(),
        whole: await el.evaluate((e) => e.scrollWidth <= e.clientWidth),
        lines: await el.evaluate((e) => {
          const range = document.createRange();
          range.selectNodeContents(e);
          return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
        }),
      };
    };
    const others: { s: string; box: Box }[] = [];
    for (const s of ['.top nav', '.top .tenant', '.top .mode-switch', '.top .sign-out'])
      others.push({ s, box: (await p.locator(s).boundingBox())! });
    return {
      email: await part('.top .who .email'),
      role: await part('.top .who .role'),
      others,
      header: (await p.locator('.top').boundingBox())!,
      title: await p.getAttribute('.top .account', 'title'),
      navTops: new Set(await p.locator('.top nav a').evaluateAll((els) => els.map((e) => (e as HTMLElement).offsetTop))).size,
      fits: await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      innerWidth: width,
    };
  }

  it("keeps the analyst's email and role in the header at 1024 and at 1440 px, for an admin and an analyst with a long address", async () => {
    // An address longer than the bar has room for at 1024 px.
    const {
      context: plain,
      page: other,
      email: analystEmail,
    } = await signedInAnalyst(chrome.browser, at(), { role: 'analyst', prefix: 'an-analyst-with-a-long-address', ready: '.queue' });
    const overlap = (a: Box, b: Box) =>
      a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
    for (const [p, who, role] of [
      [page, email, 'admin'],
      [other, analystEmail, 'analyst'],
    ] as const) {
      for (const where of ['/console/queue', `/console/events/${payments.usd}`]) {
        await p.goto(`${site.origin}${where}`);
        await p.waitForSelector('.queue, .event');
        for (const width of [1024, 1440]) {
          const at = `${role} at ${width} px on ${where}`;
          const hdr = await headerAt(p, width);
          // A long address ends in an ellipsis at 1024 px, whole in the title.
          const whole = role === 'admin' || width === 1440;
          expect(hdr.email, at).to.include({ text: who, shown: true, whole, lines: 1 });
          expect(hdr.title, at).to.equal(`Signed in as ${who} (${role})`);
          expect(hdr.role, at).to.include({ text: role, shown: true, lines: 1 });
          for (const part of [hdr.email, hdr.role]) {
            expect(part.box.x + part.box.width, at).to.be.at.most(hdr.innerWidth);
            expect(part.box.x, at).to.be.at.least(0);
            expect(part.box.y + part.box.height, at).to.be.at.most(hdr.header.y + hdr.header.height);
            for (const o of hdr.others) expect(overlap(part.box, o.box), `${at}: ${o.s} clear of the email and role`).to.equal(false);
          }
          expect(overlap(hdr.email.box, hdr.role.box), at).to.equal(false);
          expect(hdr.navTops, `${at}: navigation on one line`).to.equal(1);
          expect(hdr.fits, `${at}: no sideways scroll`).to.equal(true);
          expect(hdr.header.height, `${at}: one bar`).to.be.below(64);
        }
      }
    }
    await plain.close();
    await page.setViewportSize({ width: 1440, height: 900 });
  });

  it('wrote no error or warning to the browser console', () => {
    expect(noise.filter((n) => !expectedNoise(n))).to.deep.equal([]);
  });
});
