// cluster_trusted: a trial converted at least `minDays` ago, or false_positive feedback, and no
// abuse or chargeback. evaluate() lets it soften reviews caused by velocity, ip or cluster size.
import { fired, type Rule } from '../rule.js';

export const clusterTrusted: Rule = {
  code: 'cluster_trusted',
  evaluate: (s, p) => {
    const g = s.graph;
    if (!g || g.confirmedAbuse || g.chargebacks > 0) return undefined;
    if (g.falsePositive) return fired({ false_positive: true });
    const days = g.daysSinceConversion;
    return days !== undefined && p.minDays !== undefined && days >= p.minDays
      ? fired({ count: days, threshold: p.minDays, rule: 'cluster_trusted.min_days' })
      : undefined;
  },
};
