// Integrators' test fixtures, Stripe-test-card style: values that force an outcome so every branch
// of a caller's code can be exercised. Honoured for test keys only: collect-signals.ts asks for
// them only in test mode, so a live key with the same values is judged like any other event.
import type { TestFixture } from '../engine/types.js';
import type { VerdictEvent } from './verdict-request.js';

export const FIXTURE_OUTCOMES = ['allow', 'review', 'block', 'challenge', 'hold'] as const;
// external_user_id `test_<outcome>_…`, or an email at `<outcome>.doorman.test` (a reserved TLD:
// no real mailbox can collide).
const USER_PREFIX = /^test_(allow|review|block|challenge|hold)_/;
const EMAIL_DOMAIN = /@(allow|review|block|challenge|hold)\.doorman\.test$/i;
// payment.card_fingerprint that always shows card testing (card_probe_pattern on checkout_attempt).
export const PROBE_CARD = 'card_test_probe';
// A device_token that is always dropped (it is never a valid token, in either mode).
export const DROPPED_DEVICE_TOKEN = 'dev_test_dropped';

export function testFixtureOf(event: VerdictEvent): TestFixture | undefined {
  const outcome = (USER_PREFIX.exec(event.externalUserId ?? '') ?? EMAIL_DOMAIN.exec(event.email ?? ''))?.[1] as TestFixture['outcome'];
  const cardProbe = event.cardFingerprint === PROBE_CARD;
  if (!outcome && !cardProbe) return undefined;
  return { ...(outcome && { outcome }), ...(cardProbe && { cardProbe }) };
}
