// invalid_mx: the domain has no MX and no address record, or publishes a null MX.
import { change, fired, type Rule } from '../rule.js';

export const invalidMx: Rule = {
  code: 'invalid_mx',
  evaluate: (s) => (s.email?.mx === 'no_mx' || s.email?.mx === 'null_mx' ? fired({ mx: s.email.mx }) : undefined),
  relax: (s) => [change('email', 'mx', s.email?.mx, 'ok', 'invalid_mx')],
};
