// /console/api/overview (verdicts per hour, top reason codes, review backlog, webhook health,
// and "what changed?": the last 24 h against the day before and the same day a week earlier), the
// full list of the clusters made or grown in a window (/cluster-changes, which its counts lead to),
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
import { deliveryCounts, topReasonCodes, verdictsPerHour } from './overview-store.js';
import { whatChanged } from './what-changed.js';
import { clusterChanges } from './cluster-changes.js';
import type { AuditPage, ClusterChanges, Overview, Redelivered } from './generated/console-wire.js';

const HOURS = 24;

export function overviewRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  router.get('/overview', async (req, res) => {
    const scope = req.console!.scope;
    const since = new Date(deps.clock.now().getTime() - HOURS * 3_600_000);
    const [perHour, reasons, backlog, deliveries, failed, endpoint, changed] = await Promise.all([
      verdictsPerHour(deps.db, scope, new Date(Math.floor(since.getTime() / 3_600_000) * 3_600_000)),
      topReasonCodes(deps.db, scope, since, 10),
      reviewBacklog(deps.db, scope),
      deliveryCounts(deps.db, scope, since),
      webhookDeliveries(deps, scope, 'failed', 20),
      findEndpoint(deps.db, scope),
      whatChanged(deps, scope),
    ]);
    res.json({
      since: since.toISOString(),
      hours: HOURS,
      verdicts_per_hour: perHour,
      top_reasons: reasons,
      ...changed,
      backlog: { pending: backlog.pending, oldest_created_at: backlog.oldest?.toISOString() ?? null },
      webhook: { endpoint: endpoint ? { url: endpoint.url, enabled: endpoint.enabled } : null, last_24h: deliveries, failed },
    } satisfies Overview);
  });

  router.get('/cluster-changes', async (req, res) => {
    const q = consoleValidated('ClusterChangesQuery', { ...(req.query as Record<string, unknown>) }, 'query');
    res.json((await clusterChanges(deps, req.console!.scope, q)) satisfies ClusterChanges);
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
      entries: page.entries.map((e) => ({
        id: e.id,
        at: e.at.toISOString(),
        mode: e.mode,
        analyst: e.analystEmail,
        action: e.action,
        subject: e.subject,
        detail: e.detail,
      })),
      ...(page.more && last && { next_cursor: encodeCursor({ createdAt: last.at, id: last.id }) }),
    } satisfies AuditPage);
  });

  return router;
}
