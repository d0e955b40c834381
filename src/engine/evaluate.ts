// evaluate(): Signals → Decision. Precedence is written here and only here:
//   0. an integrator's test fixture (test keys only) → its outcome, whatever else fired;
//   1. blocklisted → block, whatever else fired;
//   2. allowlisted → allow, whatever else fired;
//   3. codes suppressed for the cluster by false_positive feedback are dropped;
//   4. a trusted cluster turns a review caused only by velocity, ip or cluster-size rules into allow;
//   5. otherwise the most severe effect left: block > review > allow.
// Any exception fails open: allow with no reasons, the fault reported to the caller to log.
import { NEVER_SUPPRESSED } from './never-suppressed.js';
import type { Policy } from './policy.js';
import type { Rule } from './rule.js';
import type { Decision, Effect, Finding, RecommendedAction, Signals, Verdict } from './types.js';

const SEVERITY: Record<Effect, number> = { info: 0, allow: 0, review: 1, block: 2 };


// What trust may soften (default-policy.md: "velocity, ip or cluster-size rules").
const TRUST_SOFTENS = (code: string) =>
  code.startsWith('velocity_') || ['tor_exit', 'proxy_ip', 'datacenter_ip', 'identity_cluster'].includes(code);

function runRules(signals: Signals, rules: readonly Rule[], policy: Policy): Finding[] {
  const findings: Finding[] = [];
  for (const rule of rules) {
    const rulePolicy = policy.rules[rule.code];
    const effect = rulePolicy?.effects[signals.eventType];
    if (!rulePolicy || effect === undefined) continue;
    const result = rule.evaluate(signals, rulePolicy);
    if (result) findings.push({ code: rule.code, ...result, effect: result.effect ?? effect });
  }
  return findings;
}

function verdictOf(findings: Finding[]): Verdict {
  const fixture = findings.find((f) => f.code === 'test_fixture');
  if (fixture) return fixture.effect === 'info' ? 'allow' : fixture.effect;
  if (findings.some((f) => f.code === 'blocklisted')) return 'block';
  if (findings.some((f) => f.code === 'allowlisted')) return 'allow';
  const worst = Math.max(0, ...findings.map((f) => SEVERITY[f.effect]));
  return worst === 2 ? 'block' : worst === 1 ? 'review' : 'allow';
}

function applyTrust(findings: Finding[]): Finding[] {
  if (!findings.some((f) => f.code === 'cluster_trusted')) return findings;
  const reviews = findings.filter((f) => f.effect === 'review');
  const blocks = findings.filter((f) => f.effect === 'block');
  if (blocks.length > 0 || reviews.length === 0 || !reviews.every((f) => TRUST_SOFTENS(f.code))) return findings;
  return findings.map((f) => (f.effect === 'review' ? { ...f, effect: 'info' } : f));
}

function actionFor(findings: Finding[], verdict: Verdict): RecommendedAction | undefined {
  const actions = findings.filter((f) => f.effect === verdict && f.recommendedAction).map((f) => f.recommendedAction);
  return actions.includes('hold') ? 'hold' : actions[0];
}

export function evaluate(signals: Signals, rules: readonly Rule[], policy: Policy): Decision {
  try {
    const suppressed = new Set(signals.graph?.suppressedCodes ?? []);
    const findings = applyTrust(runRules(signals, rules, policy).filter((f) => NEVER_SUPPRESSED.has(f.code) || !suppressed.has(f.code)));
    const verdict = verdictOf(findings);
    const recommendedAction = actionFor(findings, verdict);
    return {
      verdict,
      reasons: findings.map((f) => (f.detail ? { code: f.code, detail: f.detail } : { code: f.code })),
      policyVersion: policy.version,
      ...(recommendedAction && { recommendedAction }),
    };
  } catch (err) {
    return { verdict: 'allow', reasons: [], policyVersion: policy.version, fault: err instanceof Error ? err.message : String(err) };
  }
}
