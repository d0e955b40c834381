// velocity_cluster_trials: the cluster already started a trial within the window (90 days):
// fires while days × 86,400 < window_seconds.
import { change, type Rule } from '../rule.js';

const DAY = 86_400;

export const velocityClusterTrials: Rule = {
  code: 'velocity_cluster_trials',
  evaluate: (s, p) => {
    const days = s.graph?.daysSinceLastTrialStart;
    if (days === undefined || p.windowSeconds === undefined || days * DAY >= p.windowSeconds) return undefined;
    return {
      detail: {
        days_since_last_trial: days,
        count: days,
        threshold: Math.ceil(p.windowSeconds / DAY),
        window_seconds: p.windowSeconds,
        rule: 'velocity_cluster_trials.window_seconds',
      },
    };
  },
  // The first whole day outside the window.
  relax: (s, p) => [
    change(
      'graph',
      'daysSinceLastTrialStart',
      s.graph?.daysSinceLastTrialStart,
      Math.ceil((p.windowSeconds ?? 0) / DAY),
      'velocity_cluster_trials.window_seconds',
    ),
  ],
};
