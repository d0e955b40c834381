// POST /v1/feedback: HTTP only. {ok: true}; an identical repost, deduplicated, adds `duplicate: true`
// (an additive field: the first report's answer is exactly the contract's).
import { Router } from 'express';
import type { Config } from '../config.js';
import { authenticate, type AuthDeps } from '../http/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { validated } from '../http/validated.js';
import type { RequestValidator } from '../contract/request-validator.js';
import { feedbackAnswer, recordFeedback, type FeedbackDeps, type FeedbackInput } from './record-feedback.js';

export function feedbackRoutes(
  deps: FeedbackDeps & AuthDeps & { config: Pick<Config, 'bodyLimitBytes'> },
  validator: RequestValidator,
): Router {
  const router = Router();
  router.post('/v1/feedback', authenticate(deps, 'secret'), ...jsonBody(deps.config.bodyLimitBytes), async (req, res) => {
    const body = validated<FeedbackInput>(validator, 'FeedbackRequest', req.body);
    res.json(feedbackAnswer(await recordFeedback(deps, req.scope!, body)));
  });
  return router;
}
