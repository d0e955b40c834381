// cluster_confirmed_abuse: the cluster carries confirmed_abuse feedback (merged clusters inherit
// it; a split keeps it only in the part the marked subject is in; a retraction takes it back).
// Its evidence (docs/graph.md, "Evidence"): `via`, the identifier kinds on the shortest path of
// live links from this event's account or identifiers to the marked subject, in path order and
// comma-separated (a reason's detail is a flat map of scalars, contract §2.3; "" when this account
// is the subject), and `marked_at`, when that mark was made. Without a path in the graph yet (the
// link is still pending), `via` names the kinds this account shares and `marked_at` is absent.
// With `verifiedOnly` (1), a block needs evidence Doorman verified itself: the account is the
// marked subject, or the path runs through an identifier Doorman derives (a normalised email, a
// device from a signed token, a card fingerprint). A path through caller-supplied identity values
// alone (a wifi name, a home address, a phone typed in a form) steps the block down to review:
// households and offices share those, and a mark on one of them is a lead, not a conviction.
// With `groupAccounts`, a block through another account of a cluster of at most that many, with
// no risk on this event (eventRisk: a disposable email, a Tor, proxy or datacenter address),
// steps down to review as well (rule `cluster_confirmed_abuse.group`): a family on one tablet or
// a household shares a device or a card too, and one member's mark does not convict the others. A
// path through an email (one mailbox behind both accounts) still blocks.
import { change, fired, type Rule } from '../rule.js';
import { eventRisk, VERIFIED_KINDS } from './group-evidence.js';

export const clusterConfirmedAbuse: Rule = {
  code: 'cluster_confirmed_abuse',
  evaluate: (s, p) => {
    const g = s.graph;
    if (!g?.confirmedAbuse) return undefined;
    const evidence = g.abuseEvidence;
    // Signals stored before evidence existed carry neither: no detail, as they were decided.
    if (!evidence) return fired(g.viaKinds ? { via: g.viaKinds.join(',') } : undefined);
    const detail = { via: evidence.via.join(','), marked_at: evidence.markedAt };
    const effect = p.effects[s.eventType];
    if (p.verifiedOnly === 1 && effect === 'block' && evidence.via.length > 0 && !evidence.via.some((k) => VERIFIED_KINDS.has(k))) {
      return { detail: { ...detail, rule: 'cluster_confirmed_abuse.verified_only' }, effect: 'review' };
    }
    if (
      p.groupAccounts !== undefined &&
      effect === 'block' &&
      evidence.via.length > 0 &&
      !evidence.via.includes('email') &&
      g.linkedAccounts <= p.groupAccounts &&
      eventRisk(s) === undefined
    ) {
      return { detail: { ...detail, rule: 'cluster_confirmed_abuse.group' }, effect: 'review' };
    }
    return fired(detail);
  },
  relax: () => [change('graph', 'confirmedAbuse', true, false, 'cluster_confirmed_abuse')],
};
