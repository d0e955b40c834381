// The identity graph as the verdict path sees it: one read-only round trip for the facts of the
// cluster an event would join, and the link (plain data) that the graph writer applies after
// the event is committed. The one builder of links: the verdict uses it, and a stored event's link
// (src/events/received-event.ts) is built through it.
import neo4j, { type Driver } from 'neo4j-driver';
import type { GraphLinkPolicy } from '../engine/policy.js';
import type { Scope } from '../scope.js';
import type { CypherCatalog } from './cypher-catalog.js';
import { eventIdentifiers, type GraphIdentifier } from './event-identifiers.js';
import { kindLinkPolicy } from './link-policy.js';

// What the graph gains from one event; stored in the outbox and applied verbatim.
export interface GraphLink {
  tenantId: string;
  mode: string;
  eventId: string;
  eventType: string;
  at: number;
  account: string | null;
  ids: GraphIdentifier[];
  card: string | null;
  cardCountry: string | null;
  hubThreshold: number;
}

export interface LinkInput {
  eventId: string;
  eventType: string;
  at: number;
  account?: string;
  email?: string;
  deviceId?: string;
  card?: string;
  cardCountry?: string;
  identity?: Record<string, string>;
}

// Undefined when the event carries nothing that links (no account, no identifier). Each
// identifier carries what the tenant's link policy says of its kind and value.
export function graphLinkOf(scope: Scope, input: LinkInput, hubThreshold: number, linkPolicy?: GraphLinkPolicy): GraphLink | undefined {
  const ids = eventIdentifiers({ email: input.email, deviceId: input.deviceId, card: input.card, identity: input.identity }).map((id) => {
    const p = kindLinkPolicy(linkPolicy, id.kind, hubThreshold);
    return { ...id, links: p.links && !p.exclude.includes(id.value), hub: p.hub, expiryMs: p.expiryMs };
  });
  if (!input.account && ids.length === 0) return undefined;
  return {
    tenantId: scope.tenantId,
    mode: scope.mode,
    eventId: input.eventId,
    eventType: input.eventType,
    at: input.at,
    account: input.account ?? null,
    ids,
    card: input.card ?? null,
    cardCountry: input.cardCountry ?? null,
    hubThreshold,
  };
}

// The one builder of the keys a link joins through, unambiguous (an identity key named `account`,
// or a kind holding ':', cannot pass for another): an account is 'a:<external id>', an
// identifier 'i:<characters in its kind>:<kind>:<value>'. The verdict's read and write, PATCH, a rebuild and the outbox's `keys` all use it;
// Cypher receives the keys as parameters (the ids' `key`).
export const accountKey = (externalId: string): string => `a:${externalId}`;
export const identifierKey = (kind: string, value: string): string => `i:${[...kind].length}:${kind}:${value}`;

// What a link joins: its account and each identifier that links.
export function linkKeys(link: Pick<GraphLink, 'account' | 'ids'>): string[] {
  return [
    ...(link.account ? [accountKey(link.account)] : []),
    ...link.ids.filter((i) => i.links !== false).map((i) => identifierKey(i.kind, i.value)),
  ];
}

// A link committed and not yet applied, as a verdict folds it into its read of the graph; `keys`
// as linkKeys built them (the outbox's).
export interface PendingLink {
  account: string | null;
  ids: { kind: string; value: string; links?: boolean }[];
  keys: string[];
}

// The combined facts of the clusters the event touches, as if merged, before this event.
export interface ClusterFacts {
  clusterId: string | null;
  accounts: number;
  confirmedAbuse: boolean;
  falsePositive: boolean;
  chargebacks: number;
  convertedAt: number | null;
  lastTrialStartAt: number | null;
  suppressed: string[];
  cards: { card: string; country: string }[];
  accountHistory: boolean;
  deviceSeen: boolean;
  // Accounts first seen since `recentSince` (this event's and pending ones included).
  recentAccounts: number;
  // The identifier kinds this account shares with other accounts.
  viaKinds: string[];
  // With confirmed abuse: the kinds on the shortest live path to a marked subject, and the mark's
  // time (epoch ms); null when no path is in the graph yet (the link is still pending).
  evidence: { via: string[]; at: number } | null;
  // This event's identifiers that link (their identifierKey).
  joinKeys: string[];
  // Of this event's hubs (identifiers that no longer link, or that this event makes hubs) whose
  // other accounts carry a live confirmed_abuse mark, the one with the most such accounts: its
  // kind, its accounts, the marked ones, how long it took to become a hub (ms) and the first mark's
  // time (epoch ms). Null when none.
  hub: HubFacts | null;
  // The seq of the scope's last link applied when the read began (null: none recorded): the
  // links applied after it may be missing from this read (graph-outbox-store pendingLinksSql).
  appliedSeq: number | null;
}

export interface HubFacts {
  kind: string;
  accounts: number;
  confirmed: number;
  formedMs: number;
  markedAt: number;
}

// Hubs of more accounts than this are not searched for marked accounts (read-cluster's $hubScan).
export const HUB_SCAN_ACCOUNTS = 100;

// What makes a pending link change this event's read: it shares one of `joins` (the event's
// account, or an identifier it links through, from the read's joinKeys) and brings a key not in
// `own` (the event's account and all its identifiers: the same user's previous event, not yet
// applied, adds nothing). The verdict's write finds such links in the outbox
// (graph-outbox-store pendingLinksSql).
export function joiningKeys(link: GraphLink, joinKeys: string[]): { joins: string[]; own: string[] } {
  const account = link.account ? [accountKey(link.account)] : [];
  return { joins: [...account, ...joinKeys], own: [...account, ...link.ids.map((i) => identifierKey(i.kind, i.value))] };
}

const DAY_MS = 86_400_000;

// The read's one parameter. Neo4j caches a plan per parameter type and per size class of each
// top-level string and list parameter (0, 1, 2 to 10, 11 to 100, more: measured on 5.26), so a
// tenant id of 36 characters, an account id of 1, 8 or 40, one identifier or three, each would
// get a plan of its own; a map is one type whatever it holds. Planning this read takes about
// 0.6 s on an idle machine, four times the default signal deadline: a verdict whose read is not
// planned yet fails open on the graph. With one map, warm-up's plan is every verdict's.
export function readClusterParams(
  link: GraphLink,
  fresh: { pending?: PendingLink[]; recentSince?: number } = {},
): { read: Record<string, unknown> } {
  return {
    read: {
      tenantId: link.tenantId,
      mode: link.mode,
      account: link.account,
      ids: link.ids.map((i) => ({ ...i, key: identifierKey(i.kind, i.value) })),
      hubThreshold: link.hubThreshold,
      since: link.at - DAY_MS,
      at: link.at,
      hubScan: HUB_SCAN_ACCOUNTS,
      recentSince: fresh.recentSince ?? 0,
      pending: fresh.pending ?? [],
    },
  };
}

// Read-only: a READ session takes no write locks (and a routing driver sends it to a reader).
// `pending`: the links committed before this read began that this event joins and that the
// graph may not hold yet (graph-outbox-store pendingLinksJoining); `recentSince`: accounts first
// seen at or after it count as recent (identity_cluster's window).
export async function readClusterFacts(
  graph: Driver,
  cypher: CypherCatalog,
  link: GraphLink,
  timeoutMs: number,
  fresh: { pending?: PendingLink[]; recentSince?: number } = {},
): Promise<ClusterFacts> {
  const session = graph.session({ defaultAccessMode: neo4j.session.READ });
  try {
    const result = await session.run(cypher.get('graph/read-cluster'), readClusterParams(link, fresh), { timeout: timeoutMs });
    const record = result.records[0];
    if (!record) throw new Error('read-cluster returned no row');
    const facts = record.toObject() as ClusterFacts;
    const evidence = facts.evidence as { via: string[]; at: unknown } | null;
    const hub = facts.hub as Record<keyof HubFacts, unknown> | null;
    return {
      ...facts,
      hub: hub
        ? {
            kind: String(hub.kind),
            accounts: Number(hub.accounts),
            confirmed: Number(hub.confirmed),
            formedMs: Number(hub.formedMs),
            markedAt: Number(hub.markedAt),
          }
        : null,
      evidence: evidence && evidence.at !== null ? { via: evidence.via, at: Number(evidence.at) } : null,
      appliedSeq: facts.appliedSeq === null || facts.appliedSeq === undefined ? null : Number(facts.appliedSeq),
    };
  } finally {
    await session.close();
  }
}
