// cluster_chargeback: chargeback feedback was recorded against the cluster (at least review on a
// checkout attempt; informational elsewhere).
import { change, type Rule } from '../rule.js';

export const clusterChargeback: Rule = {
  code: 'cluster_chargeback',
  evaluate: (s) => ((s.graph?.chargebacks ?? 0) > 0 ? { detail: { chargebacks: s.graph!.chargebacks } } : undefined),
  relax: (s) => [change('graph', 'chargebacks', s.graph?.chargebacks, 0, 'cluster_chargeback')],
};
