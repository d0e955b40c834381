// cluster_confirmed_abuse: the cluster carries confirmed_abuse feedback (merged clusters inherit
// it; a split keeps it only in the part the marked subject is in; a retraction takes it back).
// Its evidence (docs/graph.md, "Evidence"): `via`, the identifier kinds on the shortest path of
// live links from this event's account or identifiers to the marked subject, in path order and
// comma-separated (a reason's detail is a flat map of scalars, contract §2.3; "" when this account
// is the subject), and `marked_at`, when that mark was made. Without a path in the graph yet (the
// link is still pending), `via` names the kinds this account shares and `marked_at` is absent.
import { change, fired, type Rule } from '../rule.js';

export const clusterConfirmedAbuse: Rule = {
  code: 'cluster_confirmed_abuse',
  evaluate: (s) => {
    const g = s.graph;
    if (!g?.confirmedAbuse) return undefined;
    const evidence = g.abuseEvidence;
    // Signals stored before evidence existed carry neither: no detail, as they were decided.
    if (evidence) return fired({ via: evidence.via.join(','), marked_at: evidence.markedAt });
    return fired(g.viaKinds ? { via: g.viaKinds.join(',') } : undefined);
  },
  relax: () => [change('graph', 'confirmedAbuse', true, false, 'cluster_confirmed_abuse')],
};
