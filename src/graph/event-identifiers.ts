// The identifiers an event links through: normalised email, verified device, card, and the
// open identity map. IP addresses and user agents are deliberately absent: they cannot convict.
import { emailIdentity } from '../signals/email/normalize-email.js';

export interface GraphIdentifier {
  kind: string;
  value: string;
  // The tenant's link policy for this kind (docs/graph.md, "Link policy"), set by graphLinkOf:
  // false when the kind is off or the value excluded; the hub threshold; how long a link lasts
  // unseen (ms, none: for ever). Absent on links queued before link policies: links, default hub.
  links?: boolean;
  hub?: number;
  expiryMs?: number | null;
}

const RESERVED_KINDS = new Set(['email', 'device', 'card']);

// An identity key that collides with a built-in kind is kept apart, so a caller's `card` entry
// never merges with card fingerprints.
export function identityKind(key: string): string {
  const kind = key.trim().toLowerCase();
  return RESERVED_KINDS.has(kind) ? `identity.${kind}` : kind;
}

export function eventIdentifiers(input: {
  email?: string;
  deviceId?: string;
  card?: string;
  identity?: Record<string, string>;
}): GraphIdentifier[] {
  const ids = new Map<string, GraphIdentifier>();
  const add = (kind: string, value: string | null | undefined) => {
    const v = value?.trim();
    if (kind && v) ids.set(`${kind}\0${v}`, { kind, value: v });
  };
  if (input.email) add('email', emailIdentity(input.email));
  add('device', input.deviceId);
  add('card', input.card);
  for (const [key, value] of Object.entries(input.identity ?? {})) add(identityKind(key), value);
  // A stable order, so concurrent statements take their locks in the same order.
  return [...ids.values()].sort((a, b) => (a.kind + a.value < b.kind + b.value ? -1 : 1));
}
