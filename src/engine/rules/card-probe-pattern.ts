// card_probe_pattern: at least `atLeast` small attempts (≤ maxAmount minor units) in the window
// on one card or from one ip: the shape of card testing.
import type { Rule } from '../rule.js';

export const cardProbePattern: Rule = {
  code: 'card_probe_pattern',
  evaluate: (s, p) => {
    const attempts = Math.max(s.velocity?.cardSmallAttempts ?? 0, s.velocity?.ipSmallAttempts ?? 0);
    return attempts >= (p.atLeast ?? 5) ? { detail: { attempts_10m: attempts } } : undefined;
  },
};
