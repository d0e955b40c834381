// cluster_confirmed_abuse: the cluster carries confirmed_abuse feedback (merged clusters inherit it).
import { change, fired, type Rule } from '../rule.js';

export const clusterConfirmedAbuse: Rule = {
  code: 'cluster_confirmed_abuse',
  evaluate: (s) => (s.graph?.confirmedAbuse ? fired() : undefined),
  relax: () => [change('graph', 'confirmedAbuse', true, false, 'cluster_confirmed_abuse')],
};
