// What a running history knows about itself: its tenant and keys, every verdict it was
// answered (acknowledged, failed with 500, or without a clear answer), what it bound and erased,
// the faults active, the lines of its log and the anomalies found. The invariants compare this
// with what the stores hold once the history has settled.
import type { Scope } from '../../src/scope.js';
import { FAULTS, type FaultKind, type Inst } from './history-ops.js';

export interface Ack {
  tag: string;
  id: string;
  body: Record<string, unknown>;
  verdict: string;
  // The external user id sent or bound by a PATCH answered 200; undefined when none.
  account?: string;
  // A PATCH of it had no clear answer: its binding is unknown (maybeAccount, or none).
  bindingUnknown?: boolean;
  maybeAccount?: string;
}

export interface Failed {
  tag: string;
  body: Record<string, unknown>;
  idempotencyKey?: string;
  inst: Inst;
}

export interface Anomaly {
  kind: string;
  detail: Record<string, unknown>;
  // Set when it matches a finding already reported (histories.test.ts KNOWN).
  known?: string;
}

export interface HistoryState {
  scope: Scope;
  keys: { key: string; revoked: boolean }[];
  pk: string;
  deviceTokens: string[];
  // The device id each token carries (its subject), as the graph names the device.
  deviceIds: string[];
  acks: Ack[];
  // Answered 500 and not (yet) acknowledged by a retry with the same key.
  failed: Failed[];
  // No HTTP answer, or one that leaves the outcome unknown (a 503, a cut connection).
  ambiguousTags: Set<string>;
  erased: Set<string>;
  // Events an erasure that failed midway may or may not have erased.
  maybeErased: Set<string>;
  listValues: { kind: 'external_user_id' | 'email'; value: string }[];
  // Per instance: changes to announced tables made while its LISTEN connections were cut (for the fault's `hold`).
  changedWhileCut: [Set<string>, Set<string>];
  // Per instance: a policy was published while its LISTEN connections were down (after a Postgres
  // restart, until they reconnect), and it has not reconnected since.
  missedWhileDown: [boolean, boolean];
  // When a policy was last published (epoch ms; 0: never).
  publishedAt: number;
  // What the history did that a finding's `explains` needs (findings.ts): 'hub-policy',
  // 'erased-by-email', 'stale-link-policy' (a verdict or PATCH on an instance that missed a
  // policy's announcement), 'patched' (a PATCH bound an event).
  flags: Set<string>;
  active: { fault: FaultKind; inst: Inst; left: number }[];
  counters: { tags: number; statuses: Record<string, number>; skipped: number; faults: Record<FaultKind, number> };
  log: string[];
  anomalies: Anomaly[];
}

export function newState(scope: Scope, keys: { sk: string; pk: string }): HistoryState {
  return {
    scope,
    keys: [{ key: keys.sk, revoked: false }],
    pk: keys.pk,
    deviceTokens: [],
    deviceIds: [],
    acks: [],
    failed: [],
    ambiguousTags: new Set(),
    erased: new Set(),
    maybeErased: new Set(),
    listValues: [],
    changedWhileCut: [new Set(), new Set()],
    missedWhileDown: [false, false],
    publishedAt: 0,
    flags: new Set(),
    active: [],
    counters: { tags: 0, statuses: {}, skipped: 0, faults: Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<FaultKind, number> },
    log: [],
    anomalies: [],
  };
}

export const cutOff = (s: HistoryState, inst: Inst) => s.active.some((a) => a.fault === 'listenCut' && a.inst === inst);

// Notes a change to keys, lists or policies: an instance whose LISTEN is cut may miss its
// announcement.
export function changed(s: HistoryState, what: 'key' | 'list' | 'policy'): void {
  for (const inst of [0, 1] as Inst[]) if (cutOff(s, inst)) s.changedWhileCut[inst].add(what);
}

export const liveKey = (s: HistoryState) => s.keys.filter((k) => !k.revoked).at(-1)!.key;
export const account = (n: number) => `u${n}`;
export const email = (n: number) => `e${n}@shop-mail.com`;
