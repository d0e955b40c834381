// hub_confirmed_abuse: an identifier this event uses is a hub (shared past its kind's hub
// threshold, so it links no cluster) and other accounts on it carry a live confirmed_abuse mark.
// A ring larger than the hub threshold is split into clusters that no longer see each other's
// marks; the hub still says which accounts share it. Its detail: `via` (the hub's kind),
// `hub_accounts`, `confirmed_accounts` (the marked accounts on it), `formed_seconds` (how long it
// took from its first account to passing its threshold) and `marked_at` (the first mark).
// A hub is a place as often as a farm (a kiosk, an office network, a placeholder), so its effect
// follows the evidence:
// - a farm: an identifier Doorman verified (an email, a device from a signed token, a card) that
//   became a hub within `windowSeconds` (many accounts created in a short time): the policy's
//   effect stands;
// - a lead: a verified identifier, or one that became a hub within the window, or one whose
//   accounts are at least one in five confirmed: a block steps down to review (rule
//   `hub_confirmed_abuse.farm`); a caller-supplied identity value never blocks;
// - a place: a value the caller supplied that grew slowly, with few of its accounts confirmed (an
//   office network with one colleague marked): informational (rule `hub_confirmed_abuse.place`).
import { change, fired, type Rule } from '../rule.js';
import { VERIFIED_KINDS } from './group-evidence.js';

export const hubConfirmedAbuse: Rule = {
  code: 'hub_confirmed_abuse',
  evaluate: (s, p) => {
    const hub = s.graph?.hub;
    if (!hub || hub.confirmedAccounts <= 0) return undefined;
    const detail = {
      via: hub.kind,
      hub_accounts: hub.accounts,
      confirmed_accounts: hub.confirmedAccounts,
      formed_seconds: hub.formedSeconds,
      marked_at: hub.markedAt,
    };
    const verified = VERIFIED_KINDS.has(hub.kind);
    const fast = p.windowSeconds !== undefined && hub.formedSeconds <= p.windowSeconds;
    if (verified && fast) return fired(detail);
    if (verified || fast || hub.confirmedAccounts * 5 >= hub.accounts)
      return p.effects[s.eventType] === 'block'
        ? { detail: { ...detail, rule: 'hub_confirmed_abuse.farm' }, effect: 'review' }
        : fired(detail);
    return { detail: { ...detail, rule: 'hub_confirmed_abuse.place' }, effect: 'info' };
  },
  relax: (s) => [change('graph', 'hub', s.graph?.hub ? s.graph.hub.kind : null, null, 'hub_confirmed_abuse')],
};
