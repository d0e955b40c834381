// POST /v1/feedback: HTTP only. Always {ok: true}, also for an identical repost.
import { Router } from 'express';
import type { Deps } from '../deps.js';
import { authenticate } from '../http/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { validated } from '../http/validated.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { recordFeedback, type FeedbackInput } from './record-feedback.js';

export function feedbackRoutes(deps: Deps, validator: RequestValidator): Router {
  const router = Router();
  router.post('/v1/feedback', authenticate(deps, 'secret'), ...jsonBody(deps.config.bodyLimitBytes), async (req, res) => {
    const body = validated<FeedbackInput>(validator, 'FeedbackRequest', req.body);
    await recordFeedback(deps, req.scope!, body);
    res.json({ ok: true });
  });
  return router;
}
