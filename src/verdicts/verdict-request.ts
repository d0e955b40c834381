// The VerdictRequest body (contract §2.1) as the route hands it over, after validation.
import type { EventType } from '../engine/types.js';

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
