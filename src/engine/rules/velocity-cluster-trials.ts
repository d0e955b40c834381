// velocity_cluster_trials: the cluster already started a trial within the window (90 days).
import type { Rule } from '../rule.js';

export const velocityClusterTrials: Rule = {
  code: 'velocity_cluster_trials',
  evaluate: (s, p) => {
    const days = s.graph?.daysSinceLastTrialStart;
    return days !== undefined && days * 86_400 < (p.windowSeconds ?? 90 * 86_400) ? { detail: { days_since_last_trial: days } } : undefined;
  },
};
