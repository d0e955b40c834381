// What the randomized histories found, each with the smallest history found that shows
// it. Every run replays these histories first, as regressions: a mended finding's history must
// hold every invariant. A finding not yet mended (no `mended`) is known: an anomaly it explains is
// printed, marked `[known K…]`, and fails a run only with HISTORY_STRICT=1; anything else fails
// it. Give a finding its `mended` once it is, so that it fails again.
import type { Op } from './history-ops.js';
import type { Anomaly, HistoryState } from './history-state.js';

export interface Finding {
  id: string;
  title: string;
  history: Op[];
  // The commit that mended it.
  mended?: string;
  explains(a: Anomaly, s: HistoryState): boolean;
}

const v = (
  inst: 0 | 1,
  type: string,
  fields: Partial<Record<'account' | 'email' | 'phone' | 'device' | 'card', number>>,
  tor = false,
): Op => ({
  op: 'verdict',
  inst,
  type: type as never,
  account: null,
  email: null,
  phone: null,
  device: null,
  card: null,
  tor,
  keyed: false,
  ...fields,
});
const differences = (a: Anomaly) =>
  a.kind === 'graph_differs' ? (a.detail.differences as { type: string; what: string; subject: string }[]) : [];

export const FINDINGS: Finding[] = [
  {
    id: 'K1',
    mended: 'c0fe046 (a heartbeat proves each LISTEN connection current)',
    title:
      'an instance whose LISTEN connection is cut silently misses the announcements sent meanwhile and keeps trusting its memory: a revoked key stays accepted, a list change or a policy unseen, for good',
    history: [
      v(1, 'login', { account: 0 }),
      { op: 'keyCreate', inst: 0 },
      { op: 'fault', fault: 'listenCut', inst: 1, hold: 1, during: false, latencyMs: 150, jitterMs: 0 },
      { op: 'keyRevoke', inst: 0, pick: 0 },
    ],
    explains: (a, s) => {
      const what = { revoked_key_accepted: 'key', list_differs: 'list', policy_differs: 'policy' }[a.kind];
      return what !== undefined && s.changedWhileCut[a.detail.instance === 'A' ? 0 : 1].has(what);
    },
  },
  {
    id: 'K2',
    mended: '41fc249 (a cluster a hub left is recomputed even when its members do not move)',
    title:
      'a mark on an event without an account stays on the cluster of its other identifiers once the identifier that joined them becomes a hub: the part keeps confirmedAbuse, and a fresh verdict through it is convicted',
    history: [
      { op: 'policy', inst: 0, off: [], exclude: null, hub: 2 },
      v(0, 'signup', { email: 1 }, true),
      { op: 'feedback', inst: 0, subject: 'event_id', pick: 0, outcome: 'confirmed_abuse' },
      v(0, 'signup', { email: 1, device: 0 }),
      { op: 'settle', inst: 0 },
      v(0, 'trial_start', { email: 1, phone: 2 }),
    ],
    explains: (a, s) =>
      s.flags.has('hub-policy') &&
      ((a.kind === 'graph_differs' &&
        differences(a).every(
          (d) => d.type === 'wrong_facts' && /(confirmedAbuse|abuse|falsePositive|chargebacks|suppressed)$/.test(d.subject),
        )) ||
        (a.kind === 'marks_differ' && a.detail.expected === false && typeof a.detail.identifier === 'string')),
  },
  {
    id: 'K3',
    mended: '41fc249 (an erasure by email takes every event of the accounts that used it)',
    title:
      "an erasure by email forgets in the graph every account of the events it found, while Postgres keeps those accounts' other events bound to them (BY missing, the account gone)",
    history: [v(0, 'signup', { account: 4 }), v(0, 'login', { account: 4, email: 1 }), { op: 'erase', inst: 0, kind: 'email', pick: 1 }],
    explains: (a, s) =>
      s.flags.has('erased-by-email') &&
      a.kind === 'graph_differs' &&
      differences(a).some((d) => (d.type === 'missing_node' && d.what === 'account') || (d.type === 'missing_link' && d.what === 'BY')),
  },
  {
    id: 'K4',
    mended: '7483c75 (the policy in force is read from Postgres while its connection cannot prove it current)',
    title:
      'policies are trusted while their LISTEN is down (keys and lists are not): for the 5 s an instance takes to reconnect after a Postgres restart it links under the previous link policy, and the graph keeps those links against the policy in force until the next recluster',
    history: [
      { op: 'fault', fault: 'pgRestart', inst: 1, hold: 4, during: false, latencyMs: 150, jitterMs: 0 },
      { op: 'policy', inst: 0, off: ['phone'], exclude: null, hub: null },
      v(1, 'signup', { account: 1, phone: 1 }),
      v(1, 'signup', { account: 2, phone: 1 }),
    ],
    explains: (a, s) => s.flags.has('stale-link-policy') && (a.kind === 'graph_differs' || a.kind === 'marks_differ'),
  },
  {
    id: 'K5',
    mended: '5a78a6b, 701204b (a hub follows its count both ways; a cluster whose last member became a hub goes)',
    title:
      'an identifier stays a hub when a PATCH binds one of its events without an account to an account it already counts: its count falls back to the threshold, and the projection from Postgres (rebuild, verify) says it links; the live graph keeps it out of every cluster, and an empty cluster behind',
    history: [
      { op: 'policy', inst: 0, off: [], exclude: null, hub: 2 },
      v(0, 'signup', { email: 1 }),
      v(0, 'signup', { email: 1 }),
      v(0, 'signup', { account: 0, email: 1 }),
      { op: 'settle', inst: 0 },
      { op: 'attach', inst: 0, pick: 0, account: 0 },
    ],
    explains: (a, s) =>
      s.flags.has('patched') &&
      a.kind === 'graph_differs' &&
      differences(a).some((d) => d.type === 'wrong_hub' && (d as { expected?: { hub?: boolean } }).expected?.hub === false) &&
      differences(a).every((d) => ['wrong_hub', 'wrong_cluster', 'wrong_facts'].includes(d.type)),
  },
  {
    id: 'K6',
    mended: '2a2cac4 (nothing commits under a policy published over: the write checks it and the event is judged again)',
    title:
      'a link carries the link policy its instance held at the verdict: in the window an instance may answer from memory after a publication it has not heard of (up to MEMORY_STALENESS_MS after its LISTEN connection is cut silently; milliseconds on a healthy one), it links under the previous policy, and the graph keeps those links against the policy in force until the next recluster',
    history: [
      { op: 'fault', fault: 'listenCut', inst: 1, hold: 1, during: false, latencyMs: 150, jitterMs: 0 },
      { op: 'policy', inst: 0, off: ['phone'], exclude: null, hub: null },
      v(1, 'signup', { account: 1, phone: 1 }),
      v(1, 'signup', { account: 2, phone: 1 }),
    ],
    explains: (a, s) => s.flags.has('stale-link-policy') && (a.kind === 'graph_differs' || a.kind === 'marks_differ'),
  },
  {
    id: 'K7',
    mended: "25fc1d6 (an erased person's event: its review resolution and feedback mark nothing)",
    title:
      "a review resolved (or feedback given) after its person was erased put a mark in the graph that Postgres does not stand behind: the erasure had taken the person's marks out, and a rebuild from Postgres leaves them out",
    history: [
      { op: 'verdict', inst: 0, type: 'signup', account: 4, email: null, phone: null, device: null, card: null, tor: true, keyed: false },
      { op: 'verdict', inst: 1, type: 'login', account: null, email: 2, phone: null, device: null, card: 1, tor: true, keyed: true },
      { op: 'verdict', inst: 1, type: 'trial_start', account: 3, email: null, phone: null, device: 2, card: 2, tor: false, keyed: false },
      { op: 'verdict', inst: 0, type: 'login', account: null, email: 3, phone: 0, device: 1, card: 0, tor: true, keyed: false },
      { op: 'resolve', inst: 1, pick: 26, resolution: 'denied' },
      { op: 'attach', inst: 0, pick: 10, account: 0 },
      { op: 'policy', inst: 0, off: [], exclude: null, hub: 4 },
      { op: 'feedback', inst: 1, subject: 'event_id', pick: 19, outcome: 'confirmed_abuse' },
      { op: 'erase', inst: 1, kind: 'external_user_id', pick: 14 },
      { op: 'verdict', inst: 1, type: 'signup', account: null, email: null, phone: null, device: 0, card: 0, tor: false, keyed: false },
      { op: 'keyRevoke', inst: 1, pick: 13 },
      { op: 'resolve', inst: 0, pick: 8, resolution: 'approved' },
      { op: 'settle', inst: 0 },
      { op: 'list', inst: 0, action: 'remove', list: 'block', kind: 'email', pick: 23 },
      { op: 'retry', inst: 0, pick: 12 },
      { op: 'verdict', inst: 1, type: 'trial_convert', account: null, email: null, phone: 2, device: 0, card: 0, tor: false, keyed: false },
      { op: 'feedback', inst: 1, subject: 'external_user_id', pick: 26, outcome: 'false_positive' },
    ],
    explains: (a) => a.kind === 'graph_differs' && differences(a).some((d) => d.type === 'stale_mark'),
  },
  {
    id: 'K8',
    mended: 'f379a1a (a link puts the marks waiting for its subject on it)',
    title:
      'a mark given before its subject was in the graph (feedback on an event that linked nothing, later bound by PATCH to an account in a cluster) never reached the cluster: the projection from Postgres convicted it, the graph did not',
    history: [
      v(0, 'signup', { account: 0, phone: 0 }),
      v(0, 'checkout_attempt', {}),
      { op: 'settle', inst: 0 },
      { op: 'feedback', inst: 1, subject: 'event_id', pick: 1, outcome: 'confirmed_abuse' },
      { op: 'settle', inst: 0 },
      { op: 'attach', inst: 0, pick: 0, account: 0 },
    ],
    explains: (a) => (a.kind === 'graph_differs' && differences(a).some((d) => d.type === 'wrong_facts')) || a.kind === 'marks_differ',
  },
  {
    id: 'K9',
    mended: '7c20cb9 (a hub follows its count for every kind)',
    title:
      "under a link policy that turned phones off, a PATCH brought a phone hub's count back to its threshold and it stayed a hub, where the projection from Postgres has none",
    history: [
      { op: 'verdict', inst: 0, type: 'signup', account: 2, email: null, phone: 1, device: null, card: null, tor: true, keyed: false },
      { op: 'verdict', inst: 1, type: 'trial_start', account: 3, email: 2, phone: 1, device: 0, card: 0, tor: false, keyed: true },
      {
        op: 'verdict',
        inst: 1,
        type: 'checkout_attempt',
        account: null,
        email: 0,
        phone: null,
        device: 0,
        card: 0,
        tor: false,
        keyed: false,
      },
      { op: 'policy', inst: 1, off: ['phone'], exclude: { kind: 'card', pick: 24 }, hub: null },
      { op: 'attach', inst: 1, pick: 25, account: 3 },
      { op: 'fault', fault: 'pgRestart', inst: 1, hold: 3, during: true, latencyMs: 400, jitterMs: 33 },
      { op: 'verdict', inst: 0, type: 'trial_start', account: 3, email: 3, phone: 1, device: 1, card: 1, tor: false, keyed: true },
      { op: 'verdict', inst: 1, type: 'trial_convert', account: null, email: 3, phone: 0, device: 0, card: null, tor: false, keyed: false },
      { op: 'policy', inst: 0, off: ['phone', 'email'], exclude: { kind: 'card', pick: 3 }, hub: 2 },
      { op: 'keyRevoke', inst: 1, pick: 8 },
      { op: 'retry', inst: 1, pick: 16 },
      {
        op: 'verdict',
        inst: 0,
        type: 'trial_convert',
        account: null,
        email: null,
        phone: 1,
        device: 0,
        card: null,
        tor: false,
        keyed: false,
      },
      { op: 'verdict', inst: 0, type: 'trial_convert', account: 0, email: 1, phone: null, device: null, card: 0, tor: false, keyed: false },
      { op: 'attach', inst: 0, pick: 17, account: 2 },
      { op: 'resolve', inst: 1, pick: 3, resolution: 'denied' },
      { op: 'verdict', inst: 1, type: 'trial_start', account: 4, email: null, phone: null, device: 1, card: 1, tor: false, keyed: false },
      { op: 'feedback', inst: 1, subject: 'external_user_id', pick: 8, outcome: 'false_positive' },
      { op: 'feedback', inst: 0, subject: 'email', pick: 13, outcome: 'chargeback' },
    ],
    explains: (a) => a.kind === 'graph_differs' && differences(a).some((d) => d.type === 'wrong_hub'),
  },
];

// The findings not mended yet.
export const KNOWN = FINDINGS.filter((f) => !f.mended);
