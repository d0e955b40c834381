// blocklisted: an identifier of the event is on the tenant's block list. Beats everything.
import { fired, type Rule } from '../rule.js';

export const blocklisted: Rule = {
  code: 'blocklisted',
  evaluate: (s) => {
    const hit = s.lists?.find((h) => h.list === 'block');
    return hit ? fired({ kind: hit.kind }) : undefined;
  },
};
