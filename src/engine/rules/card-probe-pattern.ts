// card_probe_pattern: at least `atLeast` small attempts (≤ maxAmount minor units) in the window
// on one card or from one ip: the shape of card testing. The test-mode fixture card always
// shows it (src/verdicts/test-fixtures.ts).
import type { Rule } from '../rule.js';

export const cardProbePattern: Rule = {
  code: 'card_probe_pattern',
  evaluate: (s, p) => {
    const forced = s.testFixture?.cardProbe ? (p.atLeast ?? 5) : 0;
    const attempts = Math.max(s.velocity?.cardSmallAttempts ?? 0, s.velocity?.ipSmallAttempts ?? 0, forced);
    return attempts >= (p.atLeast ?? 5) ? { detail: { attempts_10m: attempts } } : undefined;
  },
};
