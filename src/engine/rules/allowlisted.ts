// allowlisted: an identifier is on the tenant's allow list. Beats every rule but blocklisted
// (unless the policy's list precedence puts the allow list first).
import { fired, type Rule } from '../rule.js';

export const allowlisted: Rule = {
  code: 'allowlisted',
  evaluate: (s) => {
    const hit = s.lists?.find((h) => h.list === 'allow');
    return hit ? fired({ kind: hit.kind }) : undefined;
  },
};
