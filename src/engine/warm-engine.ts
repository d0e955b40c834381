// The engine run a few hundred times on made-up signals, so the JIT has compiled it before the
// first verdict pays for that.
import { evaluate } from './evaluate.js';
import type { Policy } from './policy.js';
import type { Rule } from './rule.js';

export function warmEngine(rules: readonly Rule[], policy: Policy): void {
  for (let i = 0; i < 500; i++) {
    evaluate(
      { eventType: i % 2 ? 'signup' : 'checkout_attempt', velocity: { ipSignups: i % 30, cardAttempts: i % 9 }, missing: [] },
      rules,
      policy,
    );
  }
}
