/// <reference lib="dom" />
// The analyst and a ring of twelve, in Debian's Chromium: from one blocked member's Why panel to
// the ring's member table on its account page, actions on a selection (each stated before it acts,
// each audited), the cluster picture drawn from the account (the convicted subjects outlined, the
// evidence path, events hidden above 5 accounts, no label over another at 1440 and 1024 px), and
// the retraction of the mark from the Why panel, which then lists it struck through with who, when
// and why. No console error or warning.
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import request from 'supertest';
import type { Deps } from '../../src/deps.js';
import { startWorkers } from '../../src/start-workers.js';
import { chromiumOrSkip, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { expectedNoise, serveApp, shoot, signedInAnalyst } from '../support/console-browser.js';
import { bearer } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { aCheckout, aSignup, IPS, verdictHarness, type Harness } from '../support/verdict-harness.js';

const ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_UNIT_MS: '10', CONSOLE_SIGN_IN_PER_IP: '1000' };
const RING = 12;
const member = (i: number) => `ring12_${i}`;

type Box = { x1: number; y1: number; x2: number; y2: number };
interface Cy {
  nodes(sel?: string): {
    length: number;
    map<T>(f: (n: { id(): string; visible(): boolean; boundingBox(o: object): Box; data(k: string): string }) => T): T[];
  };
  edges(sel?: string): { length: number; map<T>(f: (e: { id(): string }) => T): T[] };
}

describe('the ring view: a ring of twelve from one blocked member (Chromium)', function () {
  this.timeout(180_000);
  let h: Harness;
  let chrome: LaunchedChromium;
  let page: Page;
  let site: Awaited<ReturnType<typeof serveApp>>;
  let worker: { close(): Promise<void> };
  let workerDeps: Deps;
  let email: string;
  let blocked: string;
  const noise: string[] = [];
  const at = () => ({ origin: site.origin, deps: h.deps, tenantId: h.tenant.tenantId, noise });

  // The pairs of drawn labels whose boxes overlap, in the picture's own coordinates.
  const overlappingLabels = () =>
    page.$eval('.graph', (el) => {
      const cy = (el as HTMLElement & { cy: Cy }).cy;
      const boxes = cy
        .nodes()
        .map((n) =>
          n.visible() ? { id: n.id(), b: n.boundingBox({ includeNodes: false, includeEdges: false, includeLabels: true }) } : null,
        )
        .filter((x): x is { id: string; b: Box } => x !== null && x.b.x2 > x.b.x1);
      const found: string[] = [];
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i]!.b, boxes[j]!.b];
          if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) found.push(`${boxes[i]!.id} / ${boxes[j]!.id}`);
        }
      return found;
    });

  const audited = async (action: string): Promise<number> =>
    (
      await h.deps.db.query('SELECT count(*)::int AS n FROM console_audit WHERE tenant_id = $1 AND action = $2', [
        h.tenant.tenantId,
        action,
      ])
    ).rows[0].n;

  before(async function () {
    const chromium = await chromiumOrSkip(this);
    workerDeps = testDeps(ENV);
    worker = await startWorkers(workerDeps);
    h = await verdictHarness(ENV);
    site = await serveApp(h.app);
    // Twelve signups from a proxy (each a review), then checkouts: the first seven pay with one
    // card, the last six with another (the seventh with both), so one cluster of twelve is held
    // together by verified cards, each shared by fewer accounts than a hub.
    for (let i = 0; i < RING; i++)
      await h.verdict(aSignup({ ip: IPS.proxy, external_user_id: member(i), email: `ring12.${i}+x@gmail.com` }));
    for (let i = 0; i < RING; i++) {
      const cards = i < 6 ? ['card_r12_a'] : i === 6 ? ['card_r12_a', 'card_r12_b'] : ['card_r12_b'];
      for (const card of cards) await h.verdict(aCheckout({ external_user_id: member(i) }, { card_fingerprint: card, amount: 9900 }));
    }
    await h.graphSettled();
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: member(0) }, outcome: 'confirmed_abuse', note: 'stolen cards, said the bank' })
      .expect(200);
    await h.graphSettled();
    const last = await h.verdict(aCheckout({ external_user_id: member(11) }, { card_fingerprint: 'card_r12_b', amount: 9900 }));
    expect(last.body.verdict, JSON.stringify(last.body.reasons)).to.equal('block');
    blocked = last.body.id;
    chrome = await launchChromium(chromium);
    ({ page, email } = await signedInAnalyst(chrome.browser, at(), { role: 'admin', prefix: 'ring', ready: '.queue' }));
  });

  after(async () => {
    await chrome?.close();
    await site?.close();
    await worker?.close();
    await workerDeps?.boss.stop({ graceful: false, wait: true });
  });

  it("explains the block by the mark, with the path's identifiers by value", async () => {
    await page.goto(`${site.origin}/console/events/${blocked}`);
    await page.waitForSelector('.why .mark');
    const mark = await page.textContent('.why .mark');
    expect(mark)
      .to.contain(`confirmed abuse on account ${member(0)}`)
      .and.contain('“stolen cards, said the bank”');
    expect(mark).to.contain('path: this account → card card_r12_b → card card_r12_a → the subject');
    expect(await page.locator('.why .mark button.take-back').textContent()).to.equal('Retract');
  });

  it('leads from the blocked member to the member table: every account with its first sight, verdicts, reviews and marks', async () => {
    await page.click(`.event dd.external-user-id a`);
    await page.waitForSelector('.ring table.ring-members tbody tr');
    expect(await page.textContent('.ring h2')).to.contain(`${RING}, first seen first`);
    const rows = await page.locator('.ring-members tbody tr').evaluateAll((els) => els.map((e) => e.getAttribute('data-account')));
    expect(rows).to.deep.equal(Array.from({ length: RING }, (_, i) => member(i)));
    const first = page.locator(`.ring-members tr[data-account="${member(0)}"]`);
    expect(await first.locator('td.marks').textContent()).to.equal('confirmed abuse');
    expect(await first.locator('td.account .flag').textContent()).to.equal('confirmed');
    expect(await first.locator('td.reviews').textContent()).to.equal('1 pending');
    const verdicts = await h.deps.db.query(
      "SELECT count(*) FILTER (WHERE verdict = 'review')::int AS r, count(*) FILTER (WHERE verdict = 'block')::int AS b FROM events WHERE tenant_id = $1 AND external_user_id = $2",
      [h.tenant.tenantId, member(11)],
    );
    expect(await page.locator(`.ring-members tr[data-account="${member(11)}"] td.verdicts`).textContent()).to.match(
      new RegExp(`${verdicts.rows[0].r} review.*${verdicts.rows[0].b} block`),
    );
    expect(await page.locator('.ring-members tr.self').getAttribute('data-account')).to.equal(member(11));
    // One line per row at both widths: no value breaks.
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      const heights = await page.locator('.ring-members tbody tr').evaluateAll((els) => els.map((e) => (e as HTMLElement).offsetHeight));
      expect(new Set(heights).size, `rows of one height at ${width} px`).to.equal(1);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await shoot(page, 'ring', { fullPage: true });
  });

  it('denies the pending reviews of a selection, saying what it will do first; each resolution audited', async () => {
    const before = await audited('review.resolve');
    for (const i of [1, 2, 3]) await page.check(`.ring-members tr[data-account="${member(i)}"] input[type=checkbox]`);
    expect(await page.textContent('.ring .selection strong')).to.equal('3 accounts selected');
    await page.fill('input[name=ring-note]', 'the card ring');
    await page.click('.ring-actions button:text("Deny the pending reviews")');
    expect(await page.textContent('.ring .confirm .consequence')).to.match(
      /^Deny 3 pending reviews of 3 accounts: each gets the final verdict block \(a review\.resolved webhook to your backend\)/,
    );
    const pending = async () =>
      (
        await h.deps.db.query(
          `SELECT e.external_user_id FROM reviews r JOIN events e ON e.tenant_id = r.tenant_id AND e.mode = r.mode AND e.id = r.event_id
            WHERE r.tenant_id = $1 AND r.status = 'pending' ORDER BY 1`,
          [h.tenant.tenantId],
        )
      ).rows.map((r) => r.external_user_id);
    expect(await pending(), 'nothing acts before it is confirmed').to.have.length(RING);
    await page.click('.ring .confirm button:text("Confirm: deny the pending reviews")');
    await page.waitForSelector('.ring .notice:text("Denied 3 reviews of 3 accounts: webhooks queued.")');
    expect(await pending()).to.not.include.members([member(1), member(2), member(3)]);
    expect(await pending()).to.have.length(RING - 3);
    expect(await audited('review.resolve')).to.equal(before + 3);
    const notes = await h.deps.db.query("SELECT DISTINCT note FROM reviews WHERE tenant_id = $1 AND status = 'denied'", [
      h.tenant.tenantId,
    ]);
    expect(notes.rows).to.deep.equal([{ note: 'the card ring' }]);
    await page.locator(`.ring-members tr[data-account="${member(1)}"] td.reviews`, { hasText: '1 denied' }).waitFor();
    expect(await page.textContent(`.ring-members tr[data-account="${member(1)}"] td.marks`)).to.equal('confirmed abuse');
  });

  it('reports confirmed abuse about a selection with a note, which it asks for first; each report audited', async () => {
    const before = await audited('feedback');
    await page.check(`.ring-members tr[data-account="${member(4)}"] input[type=checkbox]`);
    await page.check(`.ring-members tr[data-account="${member(5)}"] input[type=checkbox]`);
    await page.click('.ring-actions button:text("Report confirmed abuse")');
    expect(await page.textContent('.ring .notice')).to.contain('Say why in the note first');
    await page.fill('input[name=ring-note]', 'same card as the others');
    await page.click('.ring-actions button:text("Report confirmed abuse")');
    expect(await page.textContent('.ring .confirm .consequence')).to.match(/^Report confirmed abuse about 2 accounts, with your note/);
    await page.click('.ring .confirm button:text("Confirm: report confirmed abuse")');
    await page.waitForSelector('.ring .notice:text("Reported confirmed abuse about 2 accounts")');
    const { rows } = await h.deps.db.query(
      "SELECT subject_value, note FROM feedback WHERE tenant_id = $1 AND outcome = 'confirmed_abuse' AND subject_value = ANY($2) ORDER BY 1",
      [h.tenant.tenantId, [member(4), member(5)]],
    );
    expect(rows).to.deep.equal([
      { subject_value: member(4), note: 'same card as the others' },
      { subject_value: member(5), note: 'same card as the others' },
    ]);
    expect(await audited('feedback')).to.equal(before + 2);
    // Open the account: one selected.
    await page.check(`.ring-members tr[data-account="${member(7)}"] input[type=checkbox]`);
    await page.click('.ring-actions button:text("Open the account")');
    await page.waitForSelector(`.account-page[data-account="${member(7)}"]`);
  });

  it('draws the picture from the account: convicted subjects outlined, the evidence path, events hidden above 5 accounts, no label over another', async () => {
    await h.graphSettled();
    await page.goto(`${site.origin}/console/accounts/${member(11)}/cluster`);
    // The page draws once the session is known: until then there is no picture to ask.
    await page.waitForFunction(
      () => ((document.querySelector('.graph') as unknown as { cy?: Cy } | null)?.cy?.edges('.evidence').length ?? 0) > 0,
    );
    const seen = await page.$eval('.graph', (el) => {
      const cy = (el as HTMLElement & { cy: Cy }).cy;
      return {
        origin: cy.nodes('.origin').map((n) => n.id()),
        subjects: cy.nodes('.subject').map((n) => n.id()),
        path: cy.nodes('.evidence').map((n) => n.id()),
        events: cy.nodes('[kind = "event"]').length,
        hidden: cy.nodes('.hidden-event').length,
      };
    });
    expect(seen.origin).to.deep.equal([`account:${member(11)}`]);
    expect(seen.subjects).to.include.members([`account:${member(0)}`, `account:${member(4)}`, `account:${member(5)}`]);
    expect(seen.path).to.have.members([
      `account:${member(11)}`,
      'id:card:card_r12_b',
      `account:${member(6)}`,
      'id:card:card_r12_a',
      `account:${member(0)}`,
    ]);
    expect(seen.events).to.be.greaterThan(0);
    expect(seen.hidden, 'events hidden at first above 5 accounts').to.equal(seen.events);
    expect(await page.isChecked('input[name=hide-events]')).to.equal(true);
    // The ring view under the picture, this account marked.
    await page.waitForSelector('.cluster-page .ring-members tr.self');
    for (const width of [1440, 1024]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(200);
      expect(await overlappingLabels(), `labels overlapping at ${width} px`).to.deep.equal([]);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await shoot(page, 'ring-cluster', { fullPage: true });
    // Shown, the events' labels too stand clear of every other.
    await page.uncheck('input[name=hide-events]');
    expect(await page.$eval('.graph', (el) => (el as HTMLElement & { cy: Cy }).cy.nodes('.hidden-event').length)).to.equal(0);
    expect(await overlappingLabels(), 'labels overlapping with the events shown').to.deep.equal([]);
  });

  it('retracts the mark from the Why panel, which then lists it struck through with who, when and why', async () => {
    await page.goto(`${site.origin}/console/events/${blocked}`);
    await page.waitForSelector('.why .mark button.take-back');
    const mark = page.locator('.why .mark', { hasText: `on account ${member(0)}` });
    await mark.locator('button.take-back').click();
    expect(await mark.locator('.consequence').textContent()).to.match(/^Retract this report: the mark stops counting/);
    await mark.locator('input[name=take-back-note]').fill('the bank withdrew its claim');
    await mark.locator('button[type=submit]:text("Retract")').click();
    const taken = page.locator('.why .taken-back li.retracted', { hasText: `on account ${member(0)}` });
    await taken.waitFor();
    // Still the mark behind this verdict, now taken back; the marks standing are not.
    expect(await taken.locator('.flag.behind').count()).to.equal(1);
    expect(await page.locator('.why .mark .flag.behind').count()).to.equal(0);
    expect(await taken.locator('s').count()).to.equal(1);
    expect(await taken.locator('.retracted-by').textContent()).to.match(
      new RegExp(
        `^ Taken back by ${email.replace(/[.]/g, '\\.')}, \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC: “the bank withdrew its claim”\\.$`,
      ),
    );
    const { rows } = await h.deps.db.query(
      "SELECT retracted_by, retract_note FROM feedback WHERE tenant_id = $1 AND subject_value = $2 AND outcome = 'confirmed_abuse'",
      [h.tenant.tenantId, member(0)],
    );
    expect(rows).to.deep.equal([{ retracted_by: email, retract_note: 'the bank withdrew its claim' }]);
    expect(await audited('feedback.retract')).to.equal(1);
    // After the writer has applied it, the graph says the same, and the page still lists it.
    await h.graphSettled();
    await page.reload();
    await page.locator('.why .taken-back li.retracted', { hasText: `on account ${member(0)}` }).waitFor();
    await shoot(page, 'why-retracted', { fullPage: true });
  });

  it("an analyst who is not an admin may neither retract a report nor undo another's review", async () => {
    const { context: other, page: p } = await signedInAnalyst(chrome.browser, at(), { role: 'analyst', prefix: 'ring-analyst' });
    await p.goto(`${site.origin}/console/events/${blocked}`);
    await p.waitForSelector('.why .mark');
    // The standing marks: reports by the admin, and the admin's denials.
    expect(await p.locator('.why .mark').count()).to.be.greaterThan(0);
    expect(await p.locator('.why button.take-back').count()).to.equal(0);
    await other.close();
  });

  it('leaves no console error or warning', () => {
    expect(noise.filter((n) => !expectedNoise(n))).to.deep.equal([]);
  });
});
