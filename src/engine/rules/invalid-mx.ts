// invalid_mx: the domain has no MX and no address record, or publishes a null MX.
import { fired, type Rule } from '../rule.js';

export const invalidMx: Rule = {
  code: 'invalid_mx',
  evaluate: (s) => (s.email?.mx === 'no_mx' || s.email?.mx === 'null_mx' ? fired({ mx: s.email.mx }) : undefined),
};
