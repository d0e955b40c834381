// The engine's vocabulary: the Signals it reads, the Findings rules make, the Decision it returns.
// The engine is pure: no I/O, no clock, no logger, no imports from outside engine/.

export type EventType = 'signup' | 'trial_start' | 'trial_convert' | 'checkout_attempt' | 'login';
export type Verdict = 'allow' | 'review' | 'block';
// 'info' explains without changing the verdict.
export type Effect = Verdict | 'info';
export type RecommendedAction = 'challenge' | 'hold';
export type Scalar = string | number | boolean;

export interface EmailSignal {
  malformed: boolean;
  disposable: boolean;
  freemail: boolean;
  domain?: string;
  registrableDomain?: string;
  mx?: 'ok' | 'no_mx' | 'null_mx';
  domainAgeDays?: number;
}

export interface IpSignal {
  address: string;
  torExit: boolean;
  proxy: boolean;
  datacenter: boolean;
}

export interface PaymentSignal {
  cardFingerprint?: string;
  funding?: 'credit' | 'debit' | 'prepaid' | 'unknown';
  country?: string;
  amount?: number;
  currency?: string;
}

// Counts include the event being judged; windows come from the policy.
export interface VelocitySignal {
  ipSignups?: number;
  deviceSignups?: number;
  domainSignups?: number;
  cardAttempts?: number;
  ipDistinctCards?: number;
  cardSmallAttempts?: number;
  ipSmallAttempts?: number;
  accountDistinctDevices?: number;
}

export interface ListHit {
  list: 'allow' | 'block';
  kind: string;
  value: string;
}

// Facts of the event's identity cluster, read from the graph in one round trip, as they stood
// before this event. Ages are whole days, computed by the collector (the engine has no clock).
export interface GraphSignal {
  clusterId?: string;
  linkedAccounts: number;
  // Of those, accounts first seen within identity_cluster's window (all, without a window).
  recentAccounts?: number;
  // The identifier kinds that link this account to the others.
  viaKinds?: string[];
  // With confirmed abuse: the identifier kinds on the shortest path to the marked subject ([]:
  // this account is the subject) and when that mark was made (RFC 3339).
  abuseEvidence?: { via: string[]; markedAt: string };
  // A hub this event uses (an identifier shared past its kind's hub threshold, which links no
  // cluster) whose other accounts include confirmed abusers: its kind, its accounts, the
  // confirmed ones, how many seconds it took to become a hub, and when the first of them was
  // marked (RFC 3339).
  hub?: { kind: string; accounts: number; confirmedAccounts: number; formedSeconds: number; markedAt: string };
  daysSinceLastTrialStart?: number;
  confirmedAbuse: boolean;
  falsePositive: boolean;
  chargebacks: number;
  daysSinceConversion?: number;
  suppressedCodes: string[];
  // Including this event's card.
  distinctCards24h: number;
  distinctCardCountries24h: number;
  accountHasHistory: boolean;
  deviceSeenForAccount: boolean;
}

export interface MissingSignal {
  source: string;
  reason: 'timeout' | 'unavailable';
}

// An integrator's test fixture (test keys only; src/verdicts/test-fixtures.ts): a forced outcome,
// or a card that always looks like card testing.
export type FixtureOutcome = 'allow' | 'review' | 'block' | 'challenge' | 'hold';
export interface TestFixture {
  outcome?: FixtureOutcome;
  cardProbe?: boolean;
}

export interface Signals {
  eventType: EventType;
  email?: EmailSignal;
  ip?: IpSignal;
  deviceId?: string;
  payment?: PaymentSignal;
  velocity?: VelocitySignal;
  lists?: ListHit[];
  graph?: GraphSignal;
  testFixture?: TestFixture;
  missing: MissingSignal[];
}

export interface Finding {
  code: string;
  effect: Effect;
  detail?: Record<string, Scalar>;
  recommendedAction?: RecommendedAction;
}

export interface Reason {
  code: string;
  detail?: Record<string, Scalar>;
}

export interface Decision {
  verdict: Verdict;
  reasons: Reason[];
  policyVersion: string;
  // The engine that judged (engine-version.ts); absent when the decision failed open, because
  // then no rule judged it and a replay cannot reproduce it.
  engineVersion?: string;
  recommendedAction?: RecommendedAction;
  // Set when a rule or the engine threw and the decision failed open.
  fault?: string;
}
