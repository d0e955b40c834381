// /console/api/reviews (the queue, oldest first, keyset-paged), its resolution through the
// resolveReview use case (the same webhook as from the CLI), and feedback through recordFeedback.
// HTTP only; every action is written to the audit log, in the use case's own transaction.
import { Router } from 'express';
import type { ConsoleDeps } from './console-deps.js';
import { decodeCursor, encodeCursor } from '../db/keyset-cursor.js';
import { feedbackAnswer, recordFeedback, type FeedbackInput } from '../feedback/record-feedback.js';
import { listFeedback } from '../feedback/feedback-store.js';
import { retractFeedback } from '../feedback/retract-feedback.js';
import { requireRole } from './auth/console-guard.js';
import { jsonBody } from '../http/json-body.js';
import { Timings } from '../timings.js';
import { validated } from '../http/validated.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { resolveReview } from '../reviews/resolve-review.js';
import { undoReviewMarks } from '../reviews/undo-review-marks.js';
import { AppError } from '../errors.js';
import { reviewQueuePage, type QueuedReview, type QueueQuery } from './review-queue-page.js';
import { actorOf } from '../audit/audit-store.js';
import { consoleValidated, type ValidatedQuery } from './console-schemas.js';
import type {
  FeedbackList,
  FeedbackManyAnswer,
  FeedbackRecorded,
  FeedbackRetracted,
  MarksUndone,
  Resolved,
  ResolveManyAnswer,
  ReviewQueue,
  ReviewRow,
} from './generated/console-wire.js';

const BODY_LIMIT = 16 * 1024;

// The query string as the use case's query; ages in minutes become moments before `now`.
function queueQuery(q: ValidatedQuery<'ReviewQueueQuery'>, now: number): QueueQuery {
  return {
    filter: {
      eventType: q.event_type,
      reason: q.reason,
      text: q.text,
      ...(q.older_than_minutes !== undefined && { queuedBefore: new Date(now - q.older_than_minutes * 60_000) }),
      ...(q.newer_than_minutes !== undefined && { queuedAfter: new Date(now - q.newer_than_minutes * 60_000) }),
    },
    ...(q.min_accounts !== undefined && { minAccounts: q.min_accounts }),
    ...(q.confirmed !== undefined && { confirmedSinceQueued: true }),
    limit: q.limit,
    ...(q.cursor && { after: decodeCursor(q.cursor) }),
  };
}

const reviewRow = ({ review: r, cluster }: QueuedReview, now: number): ReviewRow => ({
  event_id: r.eventId,
  event_type: r.eventType,
  reasons: r.reasons,
  created_at: r.createdAt.toISOString(),
  age_seconds: Math.max(0, Math.round((now - r.createdAt.getTime()) / 1000)),
  policy_version: r.policyVersion,
  ...(r.externalUserId !== undefined && { external_user_id: r.externalUserId }),
  ...(r.email !== undefined && { email: r.email }),
  ...(cluster && {
    cluster: {
      id: cluster.clusterId,
      accounts: cluster.accounts,
      confirmed_abuse: cluster.confirmedAbuse,
      confirmed_since_queued_at: cluster.confirmedAt === null ? null : new Date(cluster.confirmedAt).toISOString(),
    },
  }),
});

export function reviewQueueRoutes(deps: ConsoleDeps, validator: RequestValidator): Router {
  const router = Router();

  // The queue, oldest first, with filters: one page of reviewQueuePage (review-queue-page.ts), each
  // review with its cluster's size and whether the cluster was confirmed as abuse since it was
  // queued, the whole backlog and, under filters, how many match; where Postgres and the graph
  // spent their time in Server-Timing.
  router.get('/reviews', async (req, res) => {
    const timings = new Timings();
    const started = performance.now();
    const q = consoleValidated('ReviewQueueQuery', { ...(req.query as Record<string, unknown>) }, 'query');
    const now = deps.clock.now().getTime();
    const page = await reviewQueuePage(deps, req.console!.scope, queueQuery(q, now), timings);
    timings.record('total', performance.now() - started);
    res.set('Server-Timing', timings.header());
    res.json({
      pending: page.backlog.pending,
      oldest_created_at: page.backlog.oldest?.toISOString() ?? null,
      graph: page.graph,
      reviews: page.reviews.map((queued) => reviewRow(queued, now)),
      ...(page.next && { next_cursor: encodeCursor(page.next) }),
      ...(page.matching && { matching: page.matching }),
    } satisfies ReviewQueue);
  });

  // Resolves several reviews the same way (the queue's bulk action for reviews whose cluster was
  // confirmed since they were queued): each through resolveReview, each audited in its own
  // transaction, one at a time; a review resolved meanwhile is reported, not an error for the
  // rest.
  router.post('/reviews/resolve-many', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated('ResolveManyBody', req.body);
    const session = req.console!;
    const results: ResolveManyAnswer['results'] = [];
    for (const eventId of body.event_ids) {
      try {
        const resolved = await resolveReview(deps, session.scope, {
          eventId,
          resolution: body.resolution,
          note: body.note || undefined,
          resolvedBy: session.analyst.email,
          audited: { actor: actorOf(session), bulk: true },
        });
        results.push({ event_id: eventId, ok: true, final_verdict: resolved.finalVerdict, delivery_id: resolved.deliveryId });
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'conflict' && err.code !== 'not_found')) throw err;
        results.push({ event_id: eventId, ok: false, error: err.code, message: err.message });
      }
    }
    res.json({ resolved: results.filter((r) => r.ok).length, results } satisfies ResolveManyAnswer);
  });

  // Undo of a resolution's marks (the resolution and its webhook stand); see undo-review-marks.ts.
  router.post('/reviews/:eventId/undo-marks', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated('UndoMarksBody', req.body);
    const session = req.console!;
    const done = await undoReviewMarks(deps, session.scope, {
      eventId: String(req.params.eventId),
      note: body.note,
      actor: actorOf(session),
      role: session.analyst.role,
    });
    res.json({ ok: true, marks_retracted_at: done.retractedAt.toISOString() } satisfies MarksUndone);
  });

  router.post('/reviews/:eventId/resolve', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated('ResolveBody', req.body);
    const session = req.console!;
    const eventId = String(req.params.eventId);
    const resolved = await resolveReview(deps, session.scope, {
      eventId,
      resolution: body.resolution,
      note: body.note || undefined,
      resolvedBy: session.analyst.email,
      audited: { actor: actorOf(session) },
    });
    res.json({
      ok: true,
      final_verdict: resolved.finalVerdict,
      resolved_at: resolved.resolvedAt.toISOString(),
      delivery_id: resolved.deliveryId,
    } satisfies Resolved);
  });

  // The public contract's FeedbackRequest, validated by the same schema as POST /v1/feedback.
  router.post('/feedback', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = validated<FeedbackInput>(validator, 'FeedbackRequest', req.body);
    const session = req.console!;
    const recorded = await recordFeedback(deps, session.scope, body, actorOf(session));
    res.json(feedbackAnswer(recorded) satisfies FeedbackRecorded);
  });

  // The ring view's report about several accounts at once (confirmed abuse or a false positive,
  // with one note): each through recordFeedback, each audited in its own transaction, one at a
  // time; an account with no events is reported, not an error for the rest.
  router.post('/feedback/many', ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated('FeedbackManyBody', req.body);
    const session = req.console!;
    const results: FeedbackManyAnswer['results'] = [];
    for (const account of body.accounts) {
      try {
        const done = await recordFeedback(
          deps,
          session.scope,
          { subject: { kind: 'external_user_id', value: account }, outcome: body.outcome, note: body.note },
          actorOf(session),
        );
        results.push({ external_user_id: account, ...feedbackAnswer(done) });
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'not_found') throw err;
        results.push({ external_user_id: account, ok: false, error: 'not_found', message: err.message });
      }
    }
    res.json({ recorded: results.filter((r) => r.ok && !('duplicate' in r)).length, results } satisfies FeedbackManyAnswer);
  });

  // The feedback recorded about an account, an email or an event (newest 100), with ids and
  // retractions: what `doorman feedback list` prints.
  router.get('/feedback', async (req, res) => {
    const q = consoleValidated('FeedbackSearchQuery', { ...req.query }, 'query');
    const rows = await listFeedback(deps.db, req.console!.scope, {
      externalUserId: q.external_user_id,
      email: q.email,
      eventId: q.event_id,
    });
    res.json({ feedback: rows } satisfies FeedbackList);
  });

  // Admins take a mark back (docs/graph.md, "Undo"); audited in the same transaction.
  router.post('/feedback/:id/retract', requireRole('admin'), ...jsonBody(BODY_LIMIT), async (req, res) => {
    const body = consoleValidated('RetractBody', req.body);
    const session = req.console!;
    const row = await retractFeedback(deps, session.scope, { feedbackId: String(req.params.id), note: body.note, actor: actorOf(session) });
    res.json({ ok: true, feedback: row } satisfies FeedbackRetracted);
  });

  return router;
}
