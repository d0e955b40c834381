// The operations of a randomized history and their fast-check arbitraries: what users
// and operators do (verdicts of every event type over small pools of identifiers, PATCH, feedback
// and its retraction, review resolution and its undo, link policies, erasure, rebuild, keys and
// lists) and the faults interleaved with them. An operation names earlier things by a small
// number (`pick`) resolved against what the history has made so far, so any shrunk history still
// runs: a pick with nothing to pick from is a no-op.
import fc from 'fast-check';

export const POOL = { accounts: 5, emails: 4, phones: 3, devices: 3, cards: 3 };
export const EVENT_TYPES = ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'] as const;
export const FAULTS = ['writerStop', 'writerKill', 'workerKill', 'pgRestart', 'listenCut', 'neo4jSlow'] as const;
export type FaultKind = (typeof FAULTS)[number];
export type Inst = 0 | 1;

export type VerdictOp = {
  op: 'verdict';
  inst: Inst;
  type: (typeof EVENT_TYPES)[number];
  account: number | null;
  email: number | null;
  phone: number | null;
  device: number | null;
  card: number | null;
  tor: boolean;
  keyed: boolean;
};

export type Op =
  | VerdictOp
  // Verdicts sent at once (to either instance), as concurrent users do.
  | { op: 'burst'; inst: Inst; verdicts: VerdictOp[] }
  | { op: 'retry'; inst: Inst; pick: number }
  | { op: 'attach'; inst: Inst; pick: number; account: number }
  | {
      op: 'feedback';
      inst: Inst;
      subject: 'event_id' | 'external_user_id' | 'email';
      pick: number;
      outcome: 'confirmed_abuse' | 'false_positive' | 'chargeback';
    }
  | { op: 'retract'; inst: Inst; pick: number }
  | { op: 'resolve'; inst: Inst; pick: number; resolution: 'approved' | 'denied' }
  | { op: 'undo'; inst: Inst; pick: number }
  | { op: 'policy'; inst: Inst; off: string[]; exclude: { kind: 'email' | 'phone' | 'card'; pick: number } | null; hub: number | null }
  | { op: 'erase'; inst: Inst; kind: 'external_user_id' | 'email'; pick: number }
  | { op: 'rebuild'; inst: Inst }
  | { op: 'keyCreate'; inst: Inst }
  | { op: 'keyRevoke'; inst: Inst; pick: number }
  | { op: 'list'; inst: Inst; action: 'add' | 'remove'; list: 'allow' | 'block'; kind: 'external_user_id' | 'email'; pick: number }
  // The user's next step after the link lag: waits (bounded) until the scope's outbox is applied.
  | { op: 'settle'; inst: Inst }
  // A fault on one instance, healed after `hold` more operations (or when the history ends);
  // `during`: injected a few milliseconds into the next operation (on the instance it runs on)
  // rather than before it.
  | { op: 'fault'; fault: FaultKind; inst: Inst; hold: number; during: boolean; latencyMs: number; jitterMs: number };

const inst = fc.constantFrom<Inst>(0, 1);
const maybe = (n: number) => fc.option(fc.nat({ max: n - 1 }), { nil: null, freq: 3 });
const pick = fc.nat({ max: 30 });

const verdict: fc.Arbitrary<VerdictOp> = fc.record({
  op: fc.constant('verdict' as const),
  inst,
  type: fc.constantFrom(...EVENT_TYPES),
  account: maybe(POOL.accounts),
  email: maybe(POOL.emails),
  phone: maybe(POOL.phones),
  device: maybe(POOL.devices),
  card: maybe(POOL.cards),
  // One in five from a Tor exit: a review to resolve.
  tor: fc.nat({ max: 4 }).map((n) => n === 0),
  keyed: fc.boolean(),
});

const fault = fc.record({
  op: fc.constant('fault' as const),
  fault: fc.constantFrom(...FAULTS),
  inst,
  hold: fc.integer({ min: 1, max: 4 }),
  during: fc.boolean(),
  latencyMs: fc.constantFrom(150, 400, 900),
  jitterMs: fc.integer({ min: 0, max: 40 }),
});

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 12, arbitrary: verdict },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('burst' as const), inst, verdicts: fc.array(verdict, { minLength: 2, maxLength: 4 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('retry' as const), inst, pick }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('attach' as const), inst, pick, account: fc.nat({ max: POOL.accounts - 1 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('feedback' as const),
      inst,
      subject: fc.constantFrom('event_id' as const, 'external_user_id' as const, 'email' as const),
      pick,
      outcome: fc.constantFrom('confirmed_abuse' as const, 'confirmed_abuse' as const, 'false_positive' as const, 'chargeback' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('retract' as const), inst, pick }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('resolve' as const),
      inst,
      pick,
      resolution: fc.constantFrom('denied' as const, 'denied' as const, 'approved' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('undo' as const), inst, pick }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('policy' as const),
      inst,
      off: fc.subarray(['phone', 'card', 'device', 'email']).map((a) => a.slice(0, 2)),
      exclude: fc.option(fc.record({ kind: fc.constantFrom('email' as const, 'phone' as const, 'card' as const), pick }), { nil: null }),
      hub: fc.option(fc.integer({ min: 2, max: 4 }), { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('erase' as const),
      inst,
      kind: fc.constantFrom('external_user_id' as const, 'email' as const),
      pick,
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rebuild' as const), inst }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('keyCreate' as const), inst }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('keyRevoke' as const), inst, pick }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('list' as const),
      inst,
      action: fc.constantFrom('add' as const, 'remove' as const),
      list: fc.constantFrom('allow' as const, 'block' as const),
      kind: fc.constantFrom('external_user_id' as const, 'email' as const),
      pick,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('settle' as const), inst }) },
  { weight: 5, arbitrary: fault },
);

export const historyArb = (maxLength: number): fc.Arbitrary<Op[]> => fc.array(opArb, { minLength: Math.min(5, maxLength), maxLength });

// One line per operation, as the failure report prints a (shrunk) history.
export function describeOp(o: Op): string {
  const at = `@${'AB'[o.inst]}`;
  switch (o.op) {
    case 'burst':
      return `at once: ${o.verdicts.map(describeOp).join(' | ')}`;
    case 'verdict': {
      const parts = [
        o.type,
        o.account !== null && `u${o.account}`,
        o.email !== null && `e${o.email}`,
        o.phone !== null && `phone${o.phone}`,
        o.device !== null && `dev${o.device}`,
        o.type === 'checkout_attempt' && o.card !== null && `card${o.card}`,
        o.tor && 'tor',
        o.keyed && 'keyed',
      ];
      return `verdict ${parts.filter(Boolean).join(' ')} ${at}`;
    }
    case 'retry':
      return `retry failed verdict #${o.pick} ${at}`;
    case 'attach':
      return `PATCH event #${o.pick} external_user_id=u${o.account} ${at}`;
    case 'feedback':
      return `feedback ${o.outcome} on ${o.subject} #${o.pick} ${at}`;
    case 'retract':
      return `retract feedback #${o.pick} ${at}`;
    case 'resolve':
      return `resolve review #${o.pick} ${o.resolution} ${at}`;
    case 'undo':
      return `undo review marks #${o.pick} ${at}`;
    case 'policy':
      return `publish link policy off=[${o.off.join(',')}]${o.exclude ? ` exclude ${o.exclude.kind} #${o.exclude.pick}` : ''}${o.hub ? ` hub=${o.hub}` : ''} + recluster ${at}`;
    case 'erase':
      return `erase ${o.kind} #${o.pick} ${at}`;
    case 'rebuild':
      return `rebuild graph ${at}`;
    case 'keyCreate':
      return `key create ${at}`;
    case 'keyRevoke':
      return `key revoke #${o.pick} ${at}`;
    case 'list':
      return `list ${o.action} ${o.list} ${o.kind} #${o.pick} ${at}`;
    case 'settle':
      return 'wait for the link lag';
    case 'fault':
      return `FAULT ${o.fault}${o.during ? ' during the next op' : ` on ${'AB'[o.inst]}`} for ${o.hold} op(s)${o.fault === 'neo4jSlow' ? ` ${o.latencyMs} ms` : ''}`;
  }
}
