// evaluate(): Signals → Decision. Precedence is written here and only here:
//   0. an integrator's test fixture (test keys only) → its outcome, whatever else fired;
//   1. the list hits, in the policy's list precedence (default: blocklisted → block, then
//      allowlisted → allow), whatever else fired;
//   2. codes suppressed for the cluster by false_positive feedback are dropped (never those in
//      never-suppressed.ts);
//   3. a trusted cluster turns a review caused only by velocity, ip or cluster-size rules into allow;
//   4. otherwise the most severe effect left: block > review > allow.
// A rule that is off, or has no effect for the event type, does not run.
// Any exception fails open: allow with no reasons, the fault reported to the caller to log.
import { ENGINE_VERSION } from './engine-version.js';
import { NEVER_SUPPRESSED } from './never-suppressed.js';
import type { Policy } from './policy.js';
import type { Rule } from './rule.js';
import type { Decision, Effect, Finding, RecommendedAction, Signals, Verdict } from './types.js';

const SEVERITY: Record<Effect, number> = { info: 0, allow: 0, review: 1, block: 2 };
const VERDICTS: Verdict[] = ['allow', 'review', 'block'];
const LIST_CODE = { block: 'blocklisted', allow: 'allowlisted' } as const;

// What trust may soften (the default policy: "velocity, ip or cluster-size rules").
export const TRUST_SOFTENS = (code: string): boolean =>
  code.startsWith('velocity_') || ['tor_exit', 'proxy_ip', 'datacenter_ip', 'identity_cluster'].includes(code);

export function severity(verdict: Verdict): number {
  return SEVERITY[verdict];
}

function runRules(signals: Signals, rules: readonly Rule[], policy: Policy): Finding[] {
  const findings: Finding[] = [];
  for (const rule of rules) {
    const rulePolicy = policy.rules[rule.code];
    const effect = rulePolicy?.effects[signals.eventType];
    if (!rulePolicy || rulePolicy.enabled === false || effect === undefined) continue;
    const result = rule.evaluate(signals, rulePolicy);
    if (result) findings.push({ code: rule.code, ...result, effect: result.effect ?? effect });
  }
  return findings;
}

function verdictOf(findings: Finding[], policy: Policy): Verdict {
  const fixture = findings.find((f) => f.code === 'test_fixture');
  if (fixture) return fixture.effect === 'info' ? 'allow' : fixture.effect;
  for (const list of policy.listPrecedence) {
    if (findings.some((f) => f.code === LIST_CODE[list])) return list;
  }
  return VERDICTS[Math.max(0, ...findings.map((f) => SEVERITY[f.effect]))]!;
}

// Only reviews are softened, so a block stays a block whatever else fired.
function applyTrust(findings: Finding[]): Finding[] {
  if (!findings.some((f) => f.code === 'cluster_trusted')) return findings;
  const reviews = findings.filter((f) => f.effect === 'review');
  if (!reviews.every((f) => TRUST_SOFTENS(f.code))) return findings;
  return findings.map((f) => (f.effect === 'review' ? { ...f, effect: 'info' } : f));
}

// The advice that goes with the verdict: only from findings whose effect is the verdict; hold
// wins over challenge.
function actionFor(findings: Finding[], verdict: Verdict): RecommendedAction | undefined {
  const actions = findings.filter((f) => f.effect === verdict).map((f) => f.recommendedAction);
  return actions.includes('hold') ? 'hold' : actions.find((a) => a !== undefined);
}

export function evaluate(signals: Signals, rules: readonly Rule[], policy: Policy): Decision {
  try {
    const suppressed = new Set(signals.graph?.suppressedCodes);
    const findings = applyTrust(runRules(signals, rules, policy).filter((f) => NEVER_SUPPRESSED.has(f.code) || !suppressed.has(f.code)));
    const verdict = verdictOf(findings, policy);
    const recommendedAction = actionFor(findings, verdict);
    return {
      verdict,
      reasons: findings.map((f) => (f.detail ? { code: f.code, detail: f.detail } : { code: f.code })),
      policyVersion: policy.version,
      engineVersion: ENGINE_VERSION,
      ...(recommendedAction && { recommendedAction }),
    };
  } catch (err) {
    return { verdict: 'allow', reasons: [], policyVersion: policy.version, fault: err instanceof Error ? err.message : String(err) };
  }
}
