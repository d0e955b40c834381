/// <reference lib="dom" />
// The overview's counts and where they lead, and the events table, against the real stores and in
// Debian's Chromium: every cluster made or grown in a window is listed, a page at a time, with its
// accounts and whether confirmed abuse stands on it, as many as the overview counts; undone review
// marks are counted and lead to their events; each hour of the chart stands over its own tick and
// opens exactly that UTC hour's events, whatever the browser's time zone; the time boxes read and
// show UTC; and the events table keeps short values on one line at 1440 and 1024 px.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { addAnalyst } from '../../src/console/auth/manage-analysts.js';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { anAnalyst, type ConsoleClient } from '../support/console-session.js';
import { expectedNoise, serveApp, watchConsole, welcome } from '../support/console-browser.js';
import { aCheckout, aSignup, DOMAINS, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { wireChecked } from './wire-conformance.js';

const HOUR = 3_600_000;
const PAIRS = 12;
const ZONES = ['America/New_York', 'Asia/Tokyo'];
const QUIET_IP = '100.64.50.1';
// Screenshots for a person to look at; nothing compares them.
const OUTPUT = path.join(process.env.TEST_OUTPUT_DIR ?? 'test-output', 'console');

type Change = { id: string; accounts: number; new_accounts: number; change: string; confirmed_abuse: boolean };

describe('the overview and the events table', function () {
  this.timeout(180_000);
  // The harness's clock: the real time, moved back while the test makes events in an earlier hour.
  let offset = 0;
  const clock = { now: () => new Date(Date.now() + offset) };
  let h: Harness;
  let a: ConsoleClient;
  let earlyHour: string;
  const early: string[] = [];
  let recentFrom: string;
  let undoneEvent: string;
  const blocks: string[] = [];

  before(async () => {
    h = await verdictHarness({}, { clock });
    // Two accounts that share a phone, made five hours ago: the chart's known hour.
    offset = -5 * HOUR;
    earlyHour = new Date(Math.floor(clock.now().getTime() / HOUR) * HOUR).toISOString();
    for (const id of ['old_a', 'old_b'])
      early.push((await h.verdict(aSignup({ external_user_id: id, ip: '100.64.20.1', identity: { phone: '+15550100000' } }))).body.id);
    offset = 0;
    recentFrom = new Date(Date.now() - 60_000).toISOString();
    // Twelve clusters made now, each two accounts sharing a phone, each from its own address.
    for (let k = 0; k < PAIRS; k++)
      for (const side of ['a', 'b'])
        await h.verdict(
          aSignup({
            external_user_id: `pair_${k}_${side}`,
            ip: `100.64.${30 + k}.${side === 'a' ? 1 : 2}`,
            identity: { phone: `+1555020${k}` },
          }),
        );
    // One more account grows the old pair's cluster.
    await h.verdict(aSignup({ external_user_id: 'old_c', ip: '100.64.20.2', identity: { phone: '+15550100000' } }));
    // Small checkouts from a Tor exit, each card new: blocked, the later ones for several reasons,
    // with long account ids and addresses.
    for (let i = 0; i < 6; i++)
      blocks.push(
        (
          await h.verdict(
            aCheckout(
              {
                ip: IPS.tor,
                external_user_id: `u_5256_${i}`,
                email: `a.rather.long.address.for.layout.${i}@${i === 5 ? DOMAINS.disposable : DOMAINS.good}`,
              },
              { card_fingerprint: `card_tor_${i}`, amount: 50, ...(i === 5 && { card_funding: 'prepaid' }) },
            ),
          )
        ).body.id,
      );
    // Signups that fire nothing, from one address.
    for (let i = 0; i < 3; i++)
      await h.verdict(
        aSignup({ external_user_id: `quiet_account_${i}`, ip: QUIET_IP, email: `a.quiet.and.rather.long.address.${i}@${DOMAINS.corp}` }),
      );
    // A review denied, then its marks undone.
    undoneEvent = (await h.verdict(aSignup({ external_user_id: 'undo_me', ip: IPS.proxy }))).body.id;
    await h.graphSettled();
    a = wireChecked(await anAnalyst(h.deps, h.app, h.tenant.tenantId, 'admin'));
    await a
      .post('/feedback', { subject: { kind: 'external_user_id', value: 'pair_3_a' }, outcome: 'confirmed_abuse', note: 'ring' })
      .expect(200);
    await a.post(`/reviews/${undoneEvent}/resolve`, { resolution: 'denied', note: 'proxy' }).expect(200);
    await a.post(`/reviews/${undoneEvent}/undo-marks`, { note: 'wrong key' }).expect(200);
    await h.graphSettled();
  });

  const clusterOf = async (account: string): Promise<string> => (await a.get(`/accounts/${account}/cluster`).expect(200)).body.cluster_id;

  // Every page of a window's list, following next_cursor.
  async function allPages(query: string): Promise<{ pages: number; clusters: Change[]; total: number }> {
    const clusters: Change[] = [];
    let cursor = '';
    let pages = 0;
    let total = -1;
    do {
      const page = (await a.get(`/cluster-changes?${query}${cursor && `&cursor=${cursor}`}`).expect(200)).body;
      clusters.push(...page.clusters);
      total = page.total;
      cursor = page.next_cursor ?? '';
      pages += 1;
    } while (cursor);
    return { pages, clusters, total };
  }

  describe('through the API', () => {
    it('lists every cluster the overview counts as made, a page at a time, each with its accounts and confirmed flag', async () => {
      const o = (await a.get('/overview').expect(200)).body;
      const today = o.windows[0];
      expect(o.compare.clusters.today).to.deep.equal({ made: PAIRS + 1, grown: 0, confirmed: 1, capped: false });
      const all = await allPages(`from=${today.from}&to=${today.to}&limit=5`);
      expect(all.pages).to.equal(3);
      expect(all.total).to.equal(o.compare.clusters.today.made);
      expect(all.clusters).to.have.length(PAIRS + 1);
      expect(new Set(all.clusters.map((c) => c.id)).size).to.equal(PAIRS + 1);
      // Largest first (the old pair and its newcomer), then by id.
      expect(all.clusters[0]).to.deep.equal({
        id: await clusterOf('old_a'),
        accounts: 3,
        new_accounts: 3,
        change: 'made',
        confirmed_abuse: false,
      });
      const pairs = all.clusters.slice(1).map((c) => c.id);
      expect(pairs).to.deep.equal([...pairs].sort());
      const pairIds = await Promise.all(Array.from({ length: PAIRS }, (_, k) => clusterOf(`pair_${k}_a`)));
      expect(pairs).to.have.members(pairIds);
      expect(all.clusters.filter((c) => c.confirmed_abuse).map((c) => c.id)).to.deep.equal([pairIds[3]]);
      expect(all.clusters.every((c) => c.accounts === c.new_accounts)).to.equal(true);
      const confirmed = await allPages(`from=${today.from}&to=${today.to}&confirmed=1`);
      expect(confirmed.clusters.map((c) => c.id)).to.deep.equal([pairIds[3]]);
      expect((await allPages(`from=${today.from}&to=${today.to}&change=grown`)).total).to.equal(0);
    });

    it('tells a cluster grown in a window from one made in it', async () => {
      const to = new Date(Date.now() + 60_000).toISOString();
      const grown = (await a.get(`/cluster-changes?from=${recentFrom}&to=${to}&change=grown`).expect(200)).body;
      expect(grown.counts).to.deep.equal({ made: PAIRS, grown: 1, confirmed: 1 });
      expect(grown.clusters).to.deep.equal([
        { id: await clusterOf('old_c'), accounts: 3, new_accounts: 1, change: 'grown', confirmed_abuse: false },
      ]);
    });

    it('refuses a window that ends before it starts, a made-up cursor and a missing bound', async () => {
      const now = new Date().toISOString();
      const hourAgo = new Date(Date.now() - HOUR).toISOString();
      const backwards = await a.get(`/cluster-changes?from=${now}&to=${hourAgo}`).expect(400);
      expect(backwards.body.details.issues.map((i: { path: string }) => i.path)).to.deep.equal(['/to']);
      await a.get(`/cluster-changes?from=${hourAgo}&to=${now}&cursor=bm9wZQ`).expect(400);
      expect((await a.get(`/cluster-changes?from=${hourAgo}`).expect(400)).body.error).to.equal('invalid_request');
    });

    it('counts the review marks undone in each window, and leads to their events', async () => {
      const o = (await a.get('/overview').expect(200)).body;
      expect(o.compare.activity.today.marks_undone).to.equal(1);
      expect(o.compare.activity.yesterday.marks_undone).to.equal(0);
      const today = o.windows[0];
      const events = (await a.get(`/events?undone_from=${today.from}&undone_to=${today.to}`).expect(200)).body.events;
      expect(events.map((e: { id: string }) => e.id)).to.deep.equal([undoneEvent]);
      const yesterday = o.windows[1];
      expect((await a.get(`/events?undone_from=${yesterday.from}&undone_to=${yesterday.to}`).expect(200)).body.events).to.deep.equal([]);
    });

    it("counts each chart hour as a whole UTC hour, the first one's included", async () => {
      const o = (await a.get('/overview').expect(200)).body;
      const row = o.verdicts_per_hour.find((r: { hour: string }) => r.hour === earlyHour);
      expect(row.allow + row.review + row.block).to.equal(early.length);
      expect(o.verdicts_per_hour.every((r: { hour: string }) => r.hour.endsWith(':00:00.000Z'))).to.equal(true);
    });
  });

  describe('in Chromium', () => {
    let chrome: LaunchedChromium;
    let context: BrowserContext;
    let page: Page;
    let site: Awaited<ReturnType<typeof serveApp>>;
    const noise: string[] = [];
    // The test runner compiles the functions handed to the page, and names their inner functions
    // with a helper of its own (__name), which the page lacks: the page gets one that does nothing.
    const pageHelpers = (ctx: BrowserContext) => ctx.addInitScript({ content: 'window.__name = (f) => f;' });

    before(async function () {
      const chromium = await chromiumOrSkip(this);
      site = await serveApp(h.app);
      chrome = await launchChromium(chromium);
      context = await chrome.browser.newContext({ viewport: { width: 1440, height: 900 } });
      watchConsole(context, noise);
      await pageHelpers(context);
      page = await context.newPage();
      const link = await addAnalyst(h.deps, { tenantId: h.tenant.tenantId, email: `overview-${Date.now()}@example.org`, role: 'analyst' });
      await welcome(page, site.origin, link.signInUrl);
      await page.waitForSelector('.queue li');
    });

    after(async () => {
      await chrome?.close();
      await site?.close();
    });

    // A context signed in as the same analyst, its browser in the given zone.
    async function inZone(timezoneId: string): Promise<{ ctx: BrowserContext; p: Page }> {
      const ctx = await chrome.browser.newContext({
        viewport: { width: 1440, height: 900 },
        storageState: await context.storageState(),
        timezoneId,
      });
      watchConsole(ctx, noise);
      await pageHelpers(ctx);
      const p = await ctx.newPage();
      return { ctx, p };
    }

    it('leads from the overview\'s "clusters made" to all of them, a page at a time, the confirmed one flagged', async () => {
      await page.goto(`${site.origin}/console/overview`);
      const made = page.locator('.what-changed tr[data-row="clusters made (2+ new accounts)"] td a').first();
      expect(await made.textContent()).to.equal(String(PAIRS + 1));
      await made.click();
      await page.waitForSelector('table.changes tbody tr');
      expect(new URL(page.url()).pathname).to.equal('/console/clusters');
      expect(await page.textContent('.change-filters strong')).to.equal(`${PAIRS + 1} made`);
      expect(await page.locator('table.changes tbody tr').count()).to.equal(PAIRS + 1);
      fs.mkdirSync(OUTPUT, { recursive: true });
      await page.screenshot({ path: path.join(OUTPUT, 'cluster-changes.png'), fullPage: true });
      // A smaller page: "More clusters" reaches every one.
      await page.goto(`${page.url()}&limit=5`);
      await page.waitForSelector('table.changes tbody tr');
      for (const shown of [10, PAIRS + 1]) {
        await page.click('button:has-text("More clusters")');
        await page.waitForFunction((n) => document.querySelectorAll('table.changes tbody tr').length === n, shown);
      }
      expect(await page.locator('button:has-text("More clusters")').count()).to.equal(0);
      const ids = await page.locator('table.changes tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-cluster-id')));
      expect(new Set(ids).size).to.equal(PAIRS + 1);
      const flagged = await page
        .locator('table.changes tbody tr:has(.flag.bad)')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-cluster-id')));
      expect(flagged).to.deep.equal([await clusterOf('pair_3_a')]);
      await page.click('.change-filters a[data-filter="confirmed"]');
      await page.waitForFunction(() => document.querySelectorAll('table.changes tbody tr').length === 1);
      await page.click('table.changes tbody tr a');
      await page.waitForURL(/\/console\/clusters\/clu_/);
      expect(new URL(page.url()).pathname).to.equal(`/console/clusters/${encodeURIComponent(flagged[0]!)}`);
    });

    it('counts the review marks undone on the overview and leads to their event', async () => {
      await page.goto(`${site.origin}/console/overview`);
      const undone = page.locator('.what-changed tr[data-row="review marks undone"] td').first();
      expect(await undone.textContent()).to.equal('1');
      await undone.locator('a').click();
      await page.waitForSelector('.linked-filter');
      expect(await page.textContent('.linked-filter')).to.contain('marks were undone');
      await page.waitForSelector('table.rows.events tbody tr');
      expect(
        await page.locator('table.rows.events tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event-id'))),
      ).to.deep.equal([undoneEvent]);
    });

    it("stands each hour's bar over its own tick and opens exactly that UTC hour's events, in New York and in Tokyo", async () => {
      for (const zone of ZONES) {
        const { ctx, p } = await inZone(zone);
        await p.goto(`${site.origin}/console/overview`);
        await p.waitForSelector('.chart a.hour');
        // Every bar, value and label is centred on its hour's tick.
        const misplaced = await p.locator('.chart a.hour').evaluateAll((hours) =>
          hours.flatMap((a) => {
            const centre = (e: Element) => {
              const r = e.getBoundingClientRect();
              return r.left + r.width / 2;
            };
            const tick = centre(a.querySelector('.hour-tick')!);
            return [...a.querySelectorAll('rect[class^="bar-"], text.value, text.hour-label')]
              .filter((e) => Math.abs(centre(e) - tick) > 1)
              .map((e) => `${a.getAttribute('data-hour')} ${e.getAttribute('class')}`);
          }),
        );
        expect(misplaced).to.deep.equal([]);
        // Labels name UTC hours, every third one, under their own columns.
        const labels = await p
          .locator('.chart a.hour:has(text.hour-label)')
          .evaluateAll((hours) =>
            hours.map((a) => [a.getAttribute('data-hour')!.slice(11, 16), a.querySelector('text.hour-label')!.textContent]),
          );
        expect(labels.length).to.be.at.least(8);
        for (const [hour, label] of labels) expect(label).to.equal(hour);
        await p.locator('.chart').screenshot({ path: path.join(OUTPUT, `hour-chart-${zone.replace('/', '-')}.png`) });
        const column = p.locator(`.chart a.hour[data-hour="${earlyHour}"]`);
        expect(await column.locator('text.value').textContent()).to.equal(String(early.length));
        await column.locator('rect[class^="bar-"]').first().click();
        await p.waitForURL(/\/console\/events\?/);
        const url = new URL(p.url());
        expect([url.searchParams.get('from'), url.searchParams.get('to')]).to.deep.equal([
          earlyHour,
          new Date(Date.parse(earlyHour) + HOUR).toISOString(),
        ]);
        await p.waitForSelector('table.rows.events tbody tr');
        const shown = await p.locator('table.rows.events tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event-id')));
        expect(shown).to.have.members(early);
        expect(await p.inputValue('input[name=from]')).to.equal(`${earlyHour.slice(0, 10)} ${earlyHour.slice(11, 16)}`);
        await ctx.close();
      }
    });

    it('shows and reads the time boxes in UTC as 2026-11-24 22:03, whatever the zone, and says when it cannot read one', async () => {
      for (const zone of ZONES) {
        const { ctx, p } = await inZone(zone);
        // The search's answer redraws the form: type once it is drawn.
        const searched = async (act: Promise<unknown>) => {
          await Promise.all([p.waitForResponse((r) => r.url().includes('/console/api/events?')), act]);
          await p.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
        };
        await searched(p.goto(`${site.origin}/console/events?from=2026-11-24T22:03:00.000Z`));
        expect(await p.inputValue('input[name=from]')).to.equal('2026-11-24 22:03');
        await p.fill('input[name=to]', '2026-11-25 06:30');
        await searched(p.click('form.search button[type=submit]'));
        await p.waitForURL(/to=/);
        const url = new URL(p.url());
        expect([url.searchParams.get('from'), url.searchParams.get('to')]).to.deep.equal([
          '2026-11-24T22:03:00.000Z',
          '2026-11-25T06:30:00.000Z',
        ]);
        expect(await p.inputValue('input[name=to]')).to.equal('2026-11-25 06:30');
        await p.fill('input[name=from]', '11/24/2026, 10:03 PM');
        await p.click('form.search button[type=submit]');
        expect(await p.textContent('form.search [role=alert]')).to.contain('2026-11-24 22:03');
        expect(new URL(p.url()).searchParams.get('from')).to.equal('2026-11-24T22:03:00.000Z');
        await ctx.close();
      }
    });

    it("keeps what the analyst types while the page's search is still answering, and searches with it", async () => {
      const { ctx, p } = await inZone('Asia/Tokyo');
      // Hold the page's first search until the form is filled in: its answer redraws the page.
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let asked = 0;
      await p.route('**/console/api/events?*', async (route) => {
        asked += 1;
        await held;
        await route.continue();
      });
      await p.goto(`${site.origin}/console/events?verdict=allow`);
      await p.waitForSelector('form.search');
      await p.waitForSelector('p.loading');
      await p.fill('input[name=from]', '2026-11-24 22:03');
      await p.fill('input[name=email]', 'mailinator.com');
      await p.selectOption('select[name=verdict]', 'block');
      const answered = p.waitForResponse((r) => r.url().includes('/console/api/events?'));
      release();
      await answered;
      await p.waitForSelector('table.rows.events tbody tr, p.empty');
      await p.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
      expect(asked).to.equal(1);
      expect([
        await p.inputValue('input[name=from]'),
        await p.inputValue('input[name=email]'),
        await p.inputValue('select[name=verdict]'),
      ]).to.deep.equal(['2026-11-24 22:03', 'mailinator.com', 'block']);
      await p.unroute('**/console/api/events?*');
      await p.click('form.search button[type=submit]');
      await p.waitForURL(/from=/);
      const url = new URL(p.url());
      expect([url.searchParams.get('from'), url.searchParams.get('email'), url.searchParams.get('verdict')]).to.deep.equal([
        '2026-11-24T22:03:00.000Z',
        'mailinator.com',
        'block',
      ]);
      // A search from the URL starts the form again from it.
      await p.goto(`${site.origin}/console/events?ip=${QUIET_IP}`);
      await p.waitForSelector('table.rows.events tbody tr');
      expect([await p.inputValue('input[name=from]'), await p.inputValue('input[name=ip]')]).to.deep.equal(['', QUIET_IP]);
      await ctx.close();
    });

    // The table's layout: each listed cell's text on one line, no cell over its neighbour, nothing
    // past the table's box, and the width of the codes column.
    const layout = (p: Page) =>
      p.evaluate(() => {
        const lines = (el: Element): number => {
          const centres: number[] = [];
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            if (!n.textContent?.trim()) continue;
            const range = document.createRange();
            range.selectNodeContents(n);
            for (const r of range.getClientRects()) if (r.width > 0) centres.push(r.top + r.height / 2);
          }
          return new Set(centres.map((c) => Math.round(c / 8))).size;
        };
        const table = document.querySelector('table.rows.events')!;
        const rows = [...table.querySelectorAll('tbody tr')];
        const wrapped = rows.flatMap((tr) =>
          ['td.time', 'td.type', 'td.verdict-cell', 'td.user', 'td.email']
            .map((s) => tr.querySelector(s)!)
            .filter((td) => lines(td) !== 1)
            .map((td) => `${tr.getAttribute('data-event-id')} ${td.className}: ${td.textContent}`),
        );
        const overlaps = rows.flatMap((tr) => {
          const cells = [...tr.querySelectorAll('td')].map((td) => td.getBoundingClientRect());
          const inner = [...tr.querySelectorAll('td > *, td > .cut')].filter(
            (e) => e.getBoundingClientRect().right > e.closest('td')!.getBoundingClientRect().right + 0.5,
          );
          return [
            ...cells
              .slice(1)
              .flatMap((c, i) => (c.left < cells[i]!.right - 0.5 ? [`${tr.getAttribute('data-event-id')} cell ${i + 2}`] : [])),
            ...inner.map((e) => `${tr.getAttribute('data-event-id')} ${e.closest('td')!.className} overflows`),
          ];
        });
        const box = table.getBoundingClientRect();
        const main = document.querySelector('main')!.getBoundingClientRect();
        return {
          wrapped,
          overlaps,
          past: box.right > main.right + 0.5,
          codes: table.querySelector('td.codes')!.getBoundingClientRect().width,
          lineHeight: Number.parseFloat(getComputedStyle(table.querySelector('td.type')!).lineHeight),
          typeHeight: (() => {
            const range = document.createRange();
            range.selectNodeContents(table.querySelector('td.type')!);
            return range.getBoundingClientRect().height;
          })(),
          emptyCodes: rows.every((tr) => tr.querySelector('td.codes')!.textContent === '–'),
        };
      });

    it('keeps type, account, address and the verdict badge on one line at 1440 and 1024 px, and gives an empty reasons column no width', async () => {
      const problems: string[] = [];
      for (const width of [1440, 1024]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${site.origin}/console/events?verdict=block`);
        await page.waitForSelector('table.rows.events tbody tr');
        expect(await page.locator('table.rows.events tbody tr').count()).to.equal(blocks.length);
        const blocked = await layout(page);
        await page.screenshot({ path: path.join(OUTPUT, `events-blocked-${width}.png`) });
        problems.push(...[...blocked.wrapped, ...blocked.overlaps].map((p) => `${width} px: ${p}`));
        if (blocked.past) problems.push(`${width} px: the table is wider than the page`);
        // "checkout_attempt" is one line: its height is one line's.
        if (blocked.typeHeight > blocked.lineHeight + 1) problems.push(`${width} px: the type is ${blocked.typeHeight} px high`);
        // A long address is cut short, whole in its title.
        expect(await page.locator('table.rows.events td.email .cut').first().getAttribute('title')).to.match(
          /^a\.rather\.long\.address\.for\.layout\.\d@/,
        );
        // Events without reasons: the codes column is no wider than its heading needs.
        await page.goto(`${site.origin}/console/events?ip=${QUIET_IP}`);
        await page.waitForSelector('table.rows.events tbody tr');
        const quiet = await layout(page);
        expect(quiet.emptyCodes).to.equal(true);
        problems.push(...[...quiet.wrapped, ...quiet.overlaps].map((p) => `${width} px: ${p}`));
        if (quiet.codes >= 100) problems.push(`${width} px: the empty reasons column is ${Math.round(quiet.codes)} px wide`);
      }
      await page.setViewportSize({ width: 1440, height: 900 });
      expect(problems).to.deep.equal([]);
    });

    it('writes no error or warning to the browser console', () => {
      expect(noise.filter((n) => !expectedNoise(n))).to.deep.equal([]);
    });
  });
});
