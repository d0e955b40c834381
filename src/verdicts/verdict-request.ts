// The VerdictRequest body (contract §2.1) as validated, and the event it asks about in the
// domain's words: the route maps the one to the other (verdictEventOf), the signals are gathered
// from the event, and the request is stored as received (storedRequest).
import type { EventType, PaymentSignal } from '../engine/types.js';

export interface PaymentInput {
  card_fingerprint?: string;
  card_funding?: 'credit' | 'debit' | 'prepaid' | 'unknown';
  card_country?: string;
  amount?: number;
  currency?: string;
  [unknown: string]: unknown;
}

export interface VerdictRequest {
  event_type: EventType;
  external_user_id?: string;
  email?: string;
  ip?: string;
  user_agent?: string;
  device_token?: string;
  identity?: Record<string, string>;
  payment?: PaymentInput;
  context?: Record<string, unknown>;
}

// What is stored: the request with country and currency lowercased (contract §2.2), payment
// dropped on event types that ignore it, and the device token left out (it is a bearer credential).
export function storedRequest(req: VerdictRequest): Record<string, unknown> {
  const { device_token: _token, payment, ...rest } = req;
  const stored: Record<string, unknown> = { ...rest, ...(req.device_token !== undefined && { device_token_sent: true }) };
  if (payment && req.event_type === 'checkout_attempt') {
    stored.payment = {
      ...payment,
      ...(payment.card_country !== undefined && { card_country: payment.card_country.toLowerCase() }),
      ...(payment.currency !== undefined && { currency: payment.currency.toLowerCase() }),
    };
  }
  return stored;
}

export interface VerdictEvent {
  eventType: EventType;
  externalUserId?: string;
  email?: string;
  ip?: string;
  deviceToken?: string;
  identity?: Record<string, string>;
  // On a checkout attempt only (other event types ignore it): country and currency lowercased.
  payment?: PaymentSignal;
  // The card named, whatever the event type (a test key's probe card is honoured on any).
  cardFingerprint?: string;
}

export function verdictEventOf(req: VerdictRequest): VerdictEvent {
  const p = req.payment;
  return {
    eventType: req.event_type,
    ...(req.external_user_id !== undefined && { externalUserId: req.external_user_id }),
    ...(req.email !== undefined && { email: req.email }),
    ...(req.ip !== undefined && { ip: req.ip }),
    ...(req.device_token !== undefined && { deviceToken: req.device_token }),
    ...(req.identity !== undefined && { identity: req.identity }),
    ...(p &&
      req.event_type === 'checkout_attempt' && {
        payment: {
          ...(p.card_fingerprint !== undefined && { cardFingerprint: p.card_fingerprint }),
          ...(p.card_funding !== undefined && { funding: p.card_funding }),
          ...(p.card_country !== undefined && { country: p.card_country.toLowerCase() }),
          ...(p.amount !== undefined && { amount: p.amount }),
          ...(p.currency !== undefined && { currency: p.currency.toLowerCase() }),
        },
      }),
    ...(p?.card_fingerprint !== undefined && { cardFingerprint: p.card_fingerprint }),
  };
}
