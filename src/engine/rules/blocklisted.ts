// blocklisted: an identifier of the event is on the tenant's block list. Beats everything
// (unless the policy's list precedence puts the allow list first).
import { fired, type Rule } from '../rule.js';

export const blocklisted: Rule = {
  code: 'blocklisted',
  evaluate: (s) => {
    const hit = s.lists?.find((h) => h.list === 'block');
    return hit ? fired({ kind: hit.kind }) : undefined;
  },
  relax: (s) => {
    const hit = s.lists?.find((h) => h.list === 'block');
    return hit ? [{ input: 'lists.block', from: hit.kind, to: null, rule: 'blocklisted' }] : [];
  },
};
