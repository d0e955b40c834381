// One normal form per list kind, used both when an entry is added and when an event is matched,
// so `Bob+x@GMail.com` on a block list matches `bob@gmail.com` and `::ffff:1.2.3.4` matches `1.2.3.4`.
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import { emailIdentity } from '../signals/email/normalize-email.js';

export const LIST_KINDS = ['email', 'email_domain', 'ip', 'device', 'card_fingerprint', 'external_user_id'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

export function normalizeListValue(kind: ListKind, raw: string): string | undefined {
  const value = raw.trim();
  if (!value) return undefined;
  switch (kind) {
    case 'email':
      return emailIdentity(value);
    case 'email_domain':
      return domainToASCII(value.toLowerCase().replace(/^@/, '').replace(/\.$/, '')) || undefined;
    case 'ip':
      return ipaddr.isValid(value) ? ipaddr.process(value).toString() : undefined;
    default:
      return value;
  }
}

export interface EventIdentifiers {
  email?: string;
  emailDomains?: string[];
  ip?: string;
  deviceId?: string;
  cardFingerprint?: string;
  externalUserId?: string;
}

// The (kind, value) pairs of an event that lists can match.
export function listCandidates(ids: EventIdentifiers): { kind: ListKind; value: string }[] {
  const pairs: { kind: ListKind; value: string }[] = [];
  const add = (kind: ListKind, raw: string | undefined) => {
    const value = raw === undefined ? undefined : normalizeListValue(kind, raw);
    if (value !== undefined) pairs.push({ kind, value });
  };
  add('email', ids.email);
  for (const d of new Set(ids.emailDomains ?? [])) add('email_domain', d);
  add('ip', ids.ip);
  add('device', ids.deviceId);
  add('card_fingerprint', ids.cardFingerprint);
  add('external_user_id', ids.externalUserId);
  return pairs;
}
