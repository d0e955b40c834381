// StoredEvent on the wire (contract §2.5): snake_case, optional fields absent rather than null.
import type { StoredEvent } from './event-store.js';

export function toWire(e: StoredEvent): Record<string, unknown> {
  return {
    id: e.id,
    event_type: e.eventType,
    verdict: e.verdict,
    reasons: e.reasons,
    policy_version: e.policyVersion,
    created_at: e.createdAt.toISOString(),
    ...(e.externalUserId !== undefined && { external_user_id: e.externalUserId }),
    ...(e.recommendedAction !== undefined && { recommended_action: e.recommendedAction }),
    ...(e.context !== undefined && { context: e.context }),
    ...(e.review && {
      review: {
        status: e.review.status,
        ...(e.review.status !== 'pending' && { final_verdict: e.review.status === 'denied' ? 'block' : 'allow' }),
        ...(e.review.resolvedAt && { resolved_at: e.review.resolvedAt.toISOString() }),
      },
    }),
  };
}
