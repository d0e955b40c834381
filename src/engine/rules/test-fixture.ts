// test_fixture: an integrator's forced outcome (test keys only; the collector never sets the
// signal for a live key). It decides the verdict outright (evaluate.ts), so every branch of the
// integrator's code can be reached on demand, whatever else the event carries.
import type { Rule } from '../rule.js';
import type { Effect, FixtureOutcome, RecommendedAction } from '../types.js';

const OUTCOMES: Record<FixtureOutcome, { effect: Effect; recommendedAction?: RecommendedAction }> = {
  allow: { effect: 'allow' },
  review: { effect: 'review' },
  block: { effect: 'block' },
  challenge: { effect: 'review', recommendedAction: 'challenge' },
  hold: { effect: 'block', recommendedAction: 'hold' },
};

export const testFixture: Rule = {
  code: 'test_fixture',
  evaluate: (s) => {
    const outcome = s.testFixture?.outcome;
    return outcome ? { ...OUTCOMES[outcome], detail: { outcome } } : undefined;
  },
};
