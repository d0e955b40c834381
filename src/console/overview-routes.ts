// /console/api/overview (verdicts per hour, top reason codes, review backlog, webhook health,
// and "what changed?": the last 24 h against the day before and the same day a week earlier),
// redelivery of a webhook through the existing use case (admins), and the audit log (admins).
// HTTP only.
import { Router } from 'express';
import type { ConsoleDeps } from './console-deps.js';
import { decodeCursor, encodeCursor } from '../db/keyset-cursor.js';
import { reviewBacklog } from '../reviews/review-store.js';
import { redeliver, webhookDeliveries } from '../webhooks/manage-webhooks.js';
import { findEndpoint } from '../webhooks/webhook-store.js';
import { actorOf, audit, listAudit } from '../audit/audit-store.js';
import { requireRole } from './auth/console-guard.js';
import { consoleValidated } from './console-schemas.js';
import { accountsFirstSeen, activityByWindow, deliveryCounts, publications, reasonsByWindow, topReasonCodes, verdictsByWindow, verdictsPerHour, type Window } from './overview-store.js';
import { clusterGrowth } from './cluster-picture.js';
import type { Scope } from '../scope.js';
import type { AuditPage, Overview, Redelivered, WindowName } from './generated/console-wire.js';

const HOURS = 24;
const DAY = 86_400_000;
// Accounts first seen in a window looked up in the graph, at most.
const NEW_ACCOUNTS_CAP = 5_000;

// "What changed?": the last 24 h against the 24 h before and the same 24 h a week earlier, for
// verdicts, each reason, reviews opened and resolved, feedback, policy publications, and the
// clusters new accounts made or grew (the graph's part; null when it does not answer).
// The store answers for the windows it is given; the wire names the three.
const byWindow = <T>(values: Record<string, T>): Record<WindowName, T> => ({
  today: values.today!, yesterday: values.yesterday!, last_week: values.last_week!,
});

async function compare(
  deps: Pick<ConsoleDeps, 'db' | 'clock' | 'graph' | 'cypher' | 'config' | 'logger'>, scope: Scope,
): Promise<Pick<Overview, 'windows' | 'compare' | 'clusters_today'>> {
  const now = deps.clock.now().getTime();
  const windows: (Window & { name: WindowName })[] = [
    { name: 'today', from: new Date(now - DAY), to: new Date(now) },
    { name: 'yesterday', from: new Date(now - 2 * DAY), to: new Date(now - DAY) },
    { name: 'last_week', from: new Date(now - 8 * DAY), to: new Date(now - 7 * DAY) },
  ];
  const growthIn = async (w: Window) => {
    const first = await accountsFirstSeen(deps.db, scope, w, NEW_ACCOUNTS_CAP);
    try {
      return { growth: await clusterGrowth(deps, scope, first.accounts), capped: first.capped };
    } catch (err) {
      deps.logger.warn({ err: String(err) }, 'console: cluster growth unavailable');
      return null;
    }
  };
  const [verdicts, reasons, activity, published, growth] = await Promise.all([
    verdictsByWindow(deps.db, scope, windows), reasonsByWindow(deps.db, scope, windows, 15), activityByWindow(deps.db, scope, windows),
    publications(deps.db, scope, windows[2]!.from), Promise.all(windows.map(growthIn)),
  ]);
  const clusters = Object.fromEntries(windows.map((w, i) => {
    const g = growth[i];
    return [w.name, g ? { made: g.growth.made.length, grown: g.growth.grown.length, capped: g.capped } : null];
  }));
  const newest = growth[0]?.growth ?? null;
  return {
    windows: windows.map((w) => ({ name: w.name, from: w.from.toISOString(), to: w.to.toISOString() })),
    compare: {
      verdicts: byWindow(verdicts), reasons: reasons.map((r) => ({ code: r.code, counts: byWindow(r.counts) })), activity: byWindow(activity),
      clusters: byWindow(clusters), publications: published,
    },
    clusters_today: newest && { made: newest.made.slice(0, 10), grown: newest.grown.slice(0, 10) },
  };
}

export function overviewRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  router.get('/overview', async (req, res) => {
    const scope = req.console!.scope;
    const since = new Date(deps.clock.now().getTime() - HOURS * 3_600_000);
    const [perHour, reasons, backlog, deliveries, failed, endpoint, changed] = await Promise.all([
      verdictsPerHour(deps.db, scope, since), topReasonCodes(deps.db, scope, since, 10), reviewBacklog(deps.db, scope),
      deliveryCounts(deps.db, scope, since), webhookDeliveries(deps, scope, 'failed', 20), findEndpoint(deps.db, scope), compare(deps, scope),
    ]);
    res.json({
      since: since.toISOString(), hours: HOURS, verdicts_per_hour: perHour, top_reasons: reasons, ...changed,
      backlog: { pending: backlog.pending, oldest_created_at: backlog.oldest?.toISOString() ?? null },
      webhook: { endpoint: endpoint ? { url: endpoint.url, enabled: endpoint.enabled } : null, last_24h: deliveries, failed },
    } satisfies Overview);
  });

  router.post('/deliveries/:id/redeliver', requireRole('admin'), async (req, res) => {
    const session = req.console!;
    const { deliveryId } = await redeliver(deps, session.scope, String(req.params.id));
    await audit(deps.db, actorOf(session), 'webhook.redeliver', deliveryId);
    res.json({ ok: true, delivery_id: deliveryId } satisfies Redelivered);
  });

  router.get('/audit', requireRole('admin'), async (req, res) => {
    const q = consoleValidated('PageQuery', { ...(req.query as Record<string, unknown>) }, 'query');
    const before = q.cursor ? decodeCursor(q.cursor) : undefined;
    const page = await listAudit(deps.db, req.console!.scope.tenantId, q.limit, before && { at: before.createdAt, id: before.id });
    const last = page.entries.at(-1);
    res.json({
      entries: page.entries.map((e) => ({ id: e.id, at: e.at.toISOString(), mode: e.mode, analyst: e.analystEmail, action: e.action, subject: e.subject, detail: e.detail })),
      ...(page.more && last && { next_cursor: encodeCursor({ createdAt: last.at, id: last.id }) }),
    } satisfies AuditPage);
  });

  return router;
}
