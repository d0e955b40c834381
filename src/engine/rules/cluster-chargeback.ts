// cluster_chargeback: chargeback feedback was recorded against the cluster (at least review on a
// checkout attempt; informational elsewhere).
import type { Rule } from '../rule.js';

export const clusterChargeback: Rule = {
  code: 'cluster_chargeback',
  evaluate: (s) => ((s.graph?.chargebacks ?? 0) > 0 ? { detail: { chargebacks: s.graph!.chargebacks } } : undefined),
};
