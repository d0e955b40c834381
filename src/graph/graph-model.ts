// The identity graph a scope must hold, as plain data: the projection's rows (links and standing
// marks, src/lifecycle/graph-projection.ts) folded in order with the graph writer's rules
// (cypher/graph/apply-links, apply-marks, recompute-clusters; docs/graph.md), without Neo4j.
// `doorman graph verify` compares it with the graph. It holds the scope's accounts, identifiers,
// account-identifier links, the identifiers of events without an account, and the standing
// marks: never the events themselves, which are compared page by page as they are read.
// Pure: no I/O.
import type { GraphLink } from './identity-graph.js';
import type { GraphMark } from './graph-outbox-store.js';
import { UnionFind } from './recluster.js';

// An identifier's name in the model and in differences: '<kind>:<value>' would be ambiguous
// (a kind or a value may hold ':'), a JSON pair is not.
export const identifierName = (kind: string, value: string): string => JSON.stringify([kind, value]);

export interface ModelIdentifier {
  kind: string;
  value: string;
  // Whether its kind links and its value is not excluded (the link policy in force).
  links: boolean;
  hubAt: number;
  // Accounts linked to it (each account-identifier link counted once, as apply-links counts).
  accounts: number;
  anonymous: number;
  // Filled from the graph by the checker (undefined: not found there).
  graphCluster?: string | null;
}

export interface ModelAccount {
  firstSeenAt: number;
  graphCluster?: string | null;
  // Its `confirmedAt` in the graph (filled by the checker; null: none).
  graphConfirmedAt?: number | null;
}

export interface ModelLink {
  lastSeenAt: number;
  // Epoch ms after which the link no longer joins (null: never expires).
  expiresAt: number | null;
  // Whether the graph holds it live (filled by the checker; undefined: not in the graph).
  graphLive?: boolean;
}

export class GraphModel {
  readonly accounts = new Map<string, ModelAccount>();
  readonly identifiers = new Map<string, ModelIdentifier>();
  // account -> identifier name -> link
  readonly linked = new Map<string, Map<string, ModelLink>>();
  // event without an account -> identifier name -> its use (expiresAt as for links)
  readonly anonymous = new Map<string, Map<string, ModelLink>>();
  readonly marks = new Map<string, GraphMark>();
  links = 0;

  apply(link: GraphLink): void {
    const account = link.account;
    if (account !== null && !this.accounts.has(account)) this.accounts.set(account, { firstSeenAt: link.at });
    const own = account === null ? undefined : (this.linked.get(account) ?? new Map<string, ModelLink>());
    if (account !== null) this.linked.set(account, own!);
    // An event stored with its account never was anonymous: a rebuild links it with its account.
    const uses = account === null ? (this.anonymous.get(link.eventId) ?? new Map<string, ModelLink>()) : undefined;
    if (uses) this.anonymous.set(link.eventId, uses);
    for (const id of link.ids) {
      const name = identifierName(id.kind, id.value);
      let i = this.identifiers.get(name);
      if (!i) {
        i = { kind: id.kind, value: id.value, links: id.links ?? true, hubAt: id.hub ?? link.hubThreshold, accounts: 0, anonymous: 0 };
        this.identifiers.set(name, i);
      }
      const expiryMs = id.expiryMs ?? null;
      const seen = (prev: ModelLink | undefined): ModelLink =>
        prev && prev.lastSeenAt >= link.at ? prev : { lastSeenAt: link.at, expiresAt: expiryMs === null ? null : link.at + expiryMs };
      if (own) {
        const prev = own.get(name);
        if (!prev) {
          i.accounts += 1;
          this.links += 1;
        }
        own.set(name, seen(prev));
      } else if (!uses!.has(name)) {
        i.anonymous += 1;
        uses!.set(name, { lastSeenAt: link.at, expiresAt: expiryMs === null ? null : link.at + expiryMs });
      }
    }
  }

  mark(mark: GraphMark): void {
    this.marks.set(mark.key, mark);
  }

  // Counts past the threshold made it a hub (cypher/graph/apply-links, apply-link-policy).
  isHub(i: ModelIdentifier): boolean {
    return i.accounts + i.anonymous > i.hubAt;
  }

  // A member of a cluster: every account; an identifier that links and is no hub.
  isMember(i: ModelIdentifier): boolean {
    return i.links && !this.isHub(i);
  }
}

// A link's state as the checker expects it at `now`: live, expired, or either (its time ran out
// within `graceMs`, and the graph writer's sweep may not have come yet).
export function expectedLive(link: ModelLink, now: number, graceMs: number): boolean | 'either' {
  if (link.expiresAt === null || link.expiresAt > now) return true;
  return link.expiresAt <= now - graceMs ? false : 'either';
}

// A member's name across kinds: accounts and identifiers in one namespace.
export const accountMember = (externalId: string): string => JSON.stringify(['account', externalId]);
export const identifierMember = (name: string): string => `i${name}`;

// The clusters the model's live links make: the connected parts of accounts and member
// identifiers, joined by live account links and by events without an account that used several
// identifiers (cypher/graph/cluster-members). A link that is live "either way" counts as the graph
// holds it. Returns member -> part root.
export function componentsOf(model: GraphModel, now: number, graceMs: number): Map<string, string> {
  const uf = new UnionFind();
  const live = (l: ModelLink) => {
    const e = expectedLive(l, now, graceMs);
    return e === 'either' ? l.graphLive === true : e;
  };
  for (const a of model.accounts.keys()) uf.add(accountMember(a));
  for (const [name, i] of model.identifiers) if (model.isMember(i)) uf.add(identifierMember(name));
  for (const [account, links] of model.linked) {
    for (const [name, l] of links) {
      const i = model.identifiers.get(name)!;
      if (model.isMember(i) && live(l)) uf.union(accountMember(account), identifierMember(name));
    }
  }
  for (const uses of model.anonymous.values()) {
    let first: string | undefined;
    for (const [name, l] of uses) {
      const i = model.identifiers.get(name)!;
      if (!model.isMember(i) || !live(l)) continue;
      if (first === undefined) first = identifierMember(name);
      else uf.union(first, identifierMember(name));
    }
  }
  const roots = new Map<string, string>();
  for (const a of model.accounts.keys()) roots.set(accountMember(a), uf.find(accountMember(a)));
  for (const [name, i] of model.identifiers) if (model.isMember(i)) roots.set(identifierMember(name), uf.find(identifierMember(name)));
  return roots;
}

// What a cluster's facts must be: its members and the standing marks about it
// (cypher/graph/recompute-clusters).
export interface ExpectedFacts {
  size: number;
  accounts: number;
  confirmedAbuse: boolean;
  falsePositive: boolean;
  chargebacks: number;
  abuse: string[];
}

// Facts per part root. `eventMembers` names, for each event a mark is about, the members whose
// clusters the mark is in: its account, or (no account) the member identifiers it used.
export function factsOf(model: GraphModel, roots: Map<string, string>, eventMembers: Map<string, string[]>): Map<string, ExpectedFacts> {
  const facts = new Map<string, ExpectedFacts>();
  const of = (root: string) => {
    let f = facts.get(root);
    if (!f) facts.set(root, (f = { size: 0, accounts: 0, confirmedAbuse: false, falsePositive: false, chargebacks: 0, abuse: [] }));
    return f;
  };
  for (const [member, root] of roots) {
    const f = of(root);
    f.size += 1;
    if (member.startsWith('[')) f.accounts += 1;
  }
  for (const m of model.marks.values()) {
    const members =
      m.anchorKind === 'account'
        ? [accountMember(m.anchorValue)]
        : m.anchorKind === 'email'
          ? [identifierMember(identifierName('email', m.anchorValue))]
          : (eventMembers.get(m.anchorValue) ?? []);
    const parts = new Set(members.map((x) => roots.get(x)).filter((r): r is string => r !== undefined));
    for (const root of parts) {
      const f = of(root);
      if (m.outcome === 'confirmed_abuse') {
        f.confirmedAbuse = true;
        f.abuse.push(m.key);
      } else if (m.outcome === 'false_positive') f.falsePositive = true;
      else f.chargebacks += 1;
    }
  }
  for (const f of facts.values()) f.abuse.sort();
  return facts;
}

// What each account's `confirmedAt` must be (cypher/graph/recompute-account-marks): the time of the
// earliest standing confirmed_abuse mark about it (on the account, on an event of its own, or on
// an email it links, live or expired). Accounts without one are absent. `eventMembers` as for
// factsOf: an event's members name its account when it has one.
export function confirmedAtOf(model: GraphModel, eventMembers: Map<string, string[]>): Map<string, number> {
  const at = new Map<string, number>();
  const mark = (account: string, t: number) => {
    if (!model.accounts.has(account)) return;
    const prev = at.get(account);
    if (prev === undefined || t < prev) at.set(account, t);
  };
  const emails = new Map<string, number[]>();
  for (const m of model.marks.values()) {
    if (m.outcome !== 'confirmed_abuse') continue;
    if (m.anchorKind === 'account') mark(m.anchorValue, m.at);
    else if (m.anchorKind === 'event') {
      for (const member of eventMembers.get(m.anchorValue) ?? []) {
        if (member.startsWith('[')) mark(JSON.parse(member)[1] as string, m.at);
      }
    } else {
      const name = identifierName('email', m.anchorValue);
      const list = emails.get(name);
      if (list) list.push(m.at);
      else emails.set(name, [m.at]);
    }
  }
  if (emails.size > 0) {
    for (const [account, links] of model.linked) {
      for (const name of links.keys()) for (const t of emails.get(name) ?? []) mark(account, t);
    }
  }
  return at;
}
