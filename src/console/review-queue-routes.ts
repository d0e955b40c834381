// /console/api/reviews (the queue, oldest first, keyset-paged), its resolution through the
// resolveReview use case (the same webhook as from the CLI), and feedback through recordFeedback.
// HTTP only; every action is written to the audit log.
import { Router } from 'express';
import type { Deps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../db/keyset-cursor.js';
import { recordFeedback, type FeedbackInput } from '../feedback/record-feedback.js';
import { listFeedback } from '../feedback/feedback-store.js';
import { retractFeedback } from '../feedback/retract-feedback.js';
import { requireRole } from './auth/console-guard.js';
import { jsonBody } from '../http/json-body.js';
import { Timings } from '../timings.js';
import { validated } from '../http/validated.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { resolveReview } from '../reviews/resolve-review.js';
import { listPendingReviews, reviewBacklog } from '../reviews/review-store.js';
import { actorOf, audit } from './audit-store.js';
import { consoleValidated } from './console-schemas.js';

const BODY_LIMIT = 16 * 1024;

export function reviewQueueRoutes(deps: Deps, validator: RequestValidator): Router {
  const router = Router();

  router.get('/reviews', async (req, res) => {
    const timings = new Timings();
    const started = performance.now();
    const query = consoleValidated<{ cursor?: string; limit: number }>('Page', { ...(req.query as Record<string, unknown>) }, 'query');
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const scope = req.console!.scope;
    const [reviews, backlog] = await timings.time('db', Promise.all([
      listPendingReviews(deps.db, scope, query.limit + 1, after && { createdAt: after.createdAt, eventId: after.id }),
      reviewBacklog(deps.db, scope),
    ]));
    const page = reviews.slice(0, query.limit);
    const now = Date.now();
    const last = page.at(-1);
    timings.record('total', performance.now() - started);
    res.set('Server-Timing', timings.header());
    res.json({
      pending: backlog.pending,
      oldest_created_at: backlog.oldest?.toISOString() ?? null,
      reviews: page.map((r) => ({
        event_id: r.eventId, event_type: r.eventType, reasons: r.reasons, created_at: r.createdAt.toISOString(),
        age_seconds: Math.max(0, Math.round((now - r.createdAt.getTime()) / 1000)), policy_version: r.policyVersion,
        ...(r.externalUserId !== undefined && { external_user_id: r.externalUserId }), ...(r.email !== undefined && { email: r.email }),
      })),
      ...(reviews.length > query.limit && last && { next_cursor: encodeCursor({ createdAt: last.createdAt, id: last.eventId }) }),
    });
  });

  router.post('/reviews/:eventId/resolve', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated<{ resolution: 'approved' | 'denied'; note?: string }>('Resolve', req.body);
    const session = req.console!;
    const eventId = String(req.params.eventId);
    const resolved = await resolveReview(deps, session.scope, {
      eventId, resolution: body.resolution, note: body.note || undefined, resolvedBy: session.analyst.email,
    });
    await audit(deps.db, actorOf(session), 'review.resolve', eventId, { resolution: body.resolution, note: body.note ?? null, delivery_id: resolved.deliveryId });
    res.json({ ok: true, final_verdict: resolved.finalVerdict, resolved_at: resolved.resolvedAt.toISOString(), delivery_id: resolved.deliveryId });
  });

  // The public contract's FeedbackRequest, validated by the same schema as POST /v1/feedback.
  router.post('/feedback', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = validated<FeedbackInput>(validator, 'FeedbackRequest', req.body);
    const session = req.console!;
    await recordFeedback(deps, session.scope, body);
    await audit(deps.db, actorOf(session), 'feedback', `${body.subject.kind}:${body.subject.value}`, { outcome: body.outcome, note: body.note ?? null });
    res.json({ ok: true });
  });

  // The feedback recorded about an account, an email or an event (newest 100), with ids and
  // retractions: what `doorman feedback list` prints.
  router.get('/feedback', async (req, res) => {
    const q = consoleValidated<{ external_user_id?: string; email?: string; event_id?: string }>('FeedbackSearch', { ...req.query }, 'query');
    const rows = await listFeedback(deps.db, req.console!.scope, { externalUserId: q.external_user_id, email: q.email, eventId: q.event_id });
    res.json({ feedback: rows });
  });

  // Admins take a mark back (docs/graph.md, "Undo"); audited in the same transaction.
  router.post('/feedback/:id/retract', requireRole('admin'), ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated<{ note: string }>('Retract', req.body);
    const session = req.console!;
    const row = await retractFeedback(deps, session.scope, { feedbackId: String(req.params.id), note: body.note, actor: actorOf(session) });
    res.json({ ok: true, feedback: row });
  });

  return router;
}
