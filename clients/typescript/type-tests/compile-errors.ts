// Compile-time tests: each `@ts-expect-error` line must fail to type-check (tsc fails on a directive
// with nothing to suppress), and every other line must pass, under the strictest settings
// (tsconfig.examples.json: strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess).
import { doormanClient, type Payment, type ScreenResult, type VerdictRequest, type VerdictRequestOf } from '@doorman/client';
import { verifyWebhook } from '@doorman/client/webhooks';

declare const maybe: string | undefined;
const doorman = doormanClient({ secretKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:8080' });

// ip: required on signup, trial_start and checkout_attempt; a string everywhere.
export const signup: VerdictRequest = { event_type: 'signup', ip: '203.0.113.7' };
// @ts-expect-error a signup needs its ip
export const signupWithoutIp: VerdictRequest = { event_type: 'signup', email: 'a@example.org' };
// @ts-expect-error a trial_start needs its ip
export const trialWithoutIp: VerdictRequest = { event_type: 'trial_start' };
// @ts-expect-error a checkout_attempt needs its ip
export const checkoutWithoutIp: VerdictRequest = { event_type: 'checkout_attempt', payment: { amount: 100 } };
// @ts-expect-error ip is a string (an address), not a number
export const numericIp: VerdictRequest = { event_type: 'signup', ip: 42 };
// @ts-expect-error nor an object
export const objectIp: VerdictRequest = { event_type: 'login', ip: { v4: '203.0.113.7' } };
// @ts-expect-error a maybe-absent ip is not enough where it is required
export const maybeIp: VerdictRequest = { event_type: 'signup', ip: maybe };
export const login: VerdictRequest = { event_type: 'login', external_user_id: 'usr_1' };
export const convert: VerdictRequestOf<'trial_convert'> = { event_type: 'trial_convert', ip: maybe };

// Optional fields take a value that may be absent, as is (exactOptionalPropertyTypes).
export const withMaybes: VerdictRequest = { event_type: 'signup', ip: '203.0.113.7', user_agent: maybe, email: maybe, device_token: maybe };
// @ts-expect-error event_type is a closed set
export const unknownType: VerdictRequest = { event_type: 'purchase', ip: '203.0.113.7' };
// @ts-expect-error the request is closed: an unknown top-level field is a 400
export const extraField: VerdictRequest = { event_type: 'login', plan: 'pro' };
// @ts-expect-error identity values are strings
export const identityNumber: VerdictRequest = { event_type: 'login', identity: { phone: 5550100 } };

// Payment: only on a checkout_attempt (the one event type whose rules read it; the others ignore it).
export const checkout: VerdictRequest = { event_type: 'checkout_attempt', ip: '203.0.113.7', payment: { amount: 4900, currency: 'usd' } };
// @ts-expect-error a signup takes no payment (Doorman would ignore it)
export const signupWithPayment: VerdictRequest = { event_type: 'signup', ip: '203.0.113.7', payment: { amount: 4900 } };
// @ts-expect-error nor does a trial_convert
export const convertWithPayment: VerdictRequestOf<'trial_convert'> = { event_type: 'trial_convert', payment: { amount: 4900 } };

// Payment: open (unknown keys pass), its known fields typed.
export const payment: Payment = { card_fingerprint: 'fp_1', amount: 4900, currency: 'usd', provider_reference: 'ch_1' };
// @ts-expect-error amount is an integer of minor units, not a string
export const paymentAmount: Payment = { amount: '49.00' };
// @ts-expect-error card_funding is a closed set
export const paymentFunding: Payment = { card_funding: 'gift' };

export async function results(): Promise<void> {
  const result: ScreenResult = await doorman.screen(signup);
  // @ts-expect-error `degraded` is on an answered verdict only: narrow on failedOpen first
  void result.degraded;
  if (!result.failedOpen) {
    const sources: string[] = result.degraded;
    void sources;
    // @ts-expect-error a reason's code is a string (an open set), never a number
    const code: number = result.reasons[0]?.code;
    void code;
  } else {
    const reason: 'timeout' | 'network_error' | 'server_error' | 'rate_limited' | 'invalid_response' | 'configuration_error' =
      result.reason;
    void reason;
  }
  const receipt = await doorman.feedback.report({ subject: { kind: 'email', value: 'a@example.org' }, outcome: 'chargeback', note: maybe });
  const duplicate: boolean = receipt.duplicate;
  void duplicate;
  // @ts-expect-error feedback subjects are a closed set: an ip cannot convict
  await doorman.feedback.report({ subject: { kind: 'ip', value: '203.0.113.7' }, outcome: 'chargeback' });
  // @ts-expect-error the outcome is a closed set
  await doorman.feedback.report({ subject: { kind: 'email', value: 'a@example.org' }, outcome: 'fraud' });
  for await (const event of doorman.events.list({ verdict: 'review', limit: 10, event_type: maybe === undefined ? undefined : 'login' }))
    void event.id;
  // @ts-expect-error list filters are closed sets
  doorman.events.list({ verdict: 'maybe' });
  // @ts-expect-error failOpen is a boolean
  await doorman.screen(login, { failOpen: 'no' });
  // @ts-expect-error a feedback subject needs its value
  await doorman.feedback.report({ subject: { kind: 'email' }, outcome: 'chargeback' });
  const stored = await doorman.events.get('evt_1');
  // @ts-expect-error a stored event's verdict is a closed set
  const verdict: 'maybe' = stored.verdict;
  void verdict;
  const ping = await doorman.ping();
  const mode: 'live' | 'test' = ping.mode;
  void mode;
}

// @ts-expect-error the webhook needs the raw body, not parsed JSON
verifyWebhook({ type: 'review.resolved' }, 'sha256=00', 'whsec_x');
// @ts-expect-error the client takes options, not a key alone
doormanClient('sk_test_x');
