// malformed_email: the address is not a deliverable address syntax.
import { change, fired, type Rule } from '../rule.js';

export const malformedEmail: Rule = {
  code: 'malformed_email',
  evaluate: (s) => (s.email?.malformed ? fired() : undefined),
  relax: () => [change('email', 'malformed', true, false, 'malformed_email')],
};
