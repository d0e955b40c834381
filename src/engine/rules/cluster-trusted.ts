// cluster_trusted: a trial converted at least `minDays` ago, or false_positive feedback, and no
// abuse or chargeback. evaluate() lets it soften reviews caused by velocity, ip or cluster size.
import { fired, type Rule } from '../rule.js';

export const clusterTrusted: Rule = {
  code: 'cluster_trusted',
  evaluate: (s, p) => {
    const g = s.graph;
    if (!g || g.confirmedAbuse || g.chargebacks > 0) return undefined;
    const converted = g.daysSinceConversion !== undefined && g.daysSinceConversion >= (p.minDays ?? 30);
    return g.falsePositive || converted ? fired() : undefined;
  },
};
