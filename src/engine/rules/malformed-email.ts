// malformed_email: the address is not a deliverable address syntax.
import { fired, type Rule } from '../rule.js';

export const malformedEmail: Rule = {
  code: 'malformed_email',
  evaluate: (s) => (s.email?.malformed ? fired() : undefined),
};
