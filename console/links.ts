// Where each thing the console shows leads, in one place: an account, an event and a cluster to
// their pages; an address, an IP, a card and an identity value to the events search by it; the
// graph's identifiers (kept as the graph normalises them) to what the graph knows of them.
import { qs } from './api';

const enc = encodeURIComponent;

export const accountHref = (externalId: string): string => `/console/accounts/${enc(externalId)}`;
export const eventHref = (id: string): string => `/console/events/${enc(id)}`;
export const clusterHref = (id: string): string => `/console/clusters/${enc(id)}`;
export const queryHref = (id: string, params: Record<string, string> = {}): string => `/console/queries/${enc(id)}${qs(params)}`;

// The events search (events-page.tsx), by a value as the events received it.
export const emailHref = (address: string): string => `/console/events${qs({ email: address })}`;
export const ipHref = (ip: string): string => `/console/events${qs({ ip })}`;
export const cardHref = (fingerprint: string): string => `/console/events${qs({ card: fingerprint })}`;
export const identityHref = (key: string, value: string): string => `/console/events${qs({ identity: `${key}=${value}` })}`;

// The graph keeps an email normalised (ring0@gmail.com for Ring.0+x@gmail.com), which the events
// search by whole address would miss: it leads to its cluster's saved query, which looks it up so.
export const emailIdentifierHref = (value: string): string => queryHref('linked-to-email', { email: value });
// Events are not searchable by device (the device id is a signal, without an index): a device
// leads to the accounts that used it.
export const deviceHref = (deviceId: string): string => queryHref('accounts-on-device', { device: deviceId });

// A graph identifier by its kind; an identity entry's kind is its key, lower-cased, kept apart
// from the built-in kinds as identity.<kind> (src/graph/event-identifiers.ts).
export function identifierHref(kind: string, value: string): string {
  if (kind === 'email') return emailIdentifierHref(value);
  if (kind === 'card') return cardHref(value);
  if (kind === 'device') return deviceHref(value);
  return identityHref(kind.replace(/^identity\./, ''), value);
}

// A feedback's subject (kind:value in the audit log).
export function subjectHref(kind: string, value: string): string | undefined {
  if (kind === 'event_id') return eventHref(value);
  if (kind === 'external_user_id') return accountHref(value);
  if (kind === 'email') return emailHref(value);
  return undefined;
}
