// card_probe_pattern: at least `atLeast` small attempts (≤ maxAmount minor units) in the window
// on one card or from one ip: the shape of card testing. `attempts_10m` is the contract's key.
// The test-mode fixture card always shows it (src/verdicts/test-fixtures.ts).
import { change, type Rule } from '../rule.js';

export const cardProbePattern: Rule = {
  code: 'card_probe_pattern',
  evaluate: (s, p) => {
    const forced = s.testFixture?.cardProbe ? (p.atLeast ?? 0) : 0;
    const attempts = Math.max(s.velocity?.cardSmallAttempts ?? 0, s.velocity?.ipSmallAttempts ?? 0, forced);
    if (p.atLeast === undefined || attempts < p.atLeast) return undefined;
    return {
      detail: {
        attempts_10m: attempts,
        count: attempts,
        threshold: p.atLeast,
        window_seconds: p.windowSeconds ?? 0,
        max_amount: p.maxAmount ?? 0,
        rule: 'card_probe_pattern.at_least',
      },
    };
  },
  // Either count may be the one that fired; lowering the other changes nothing, and is dropped.
  relax: (s, p) =>
    (['cardSmallAttempts', 'ipSmallAttempts'] as const).map((field) =>
      change('velocity', field, s.velocity![field], p.atLeast! - 1, 'card_probe_pattern.at_least'),
    ),
};
