// tor_exit: the address is a Tor exit node.
import { change, fired, type Rule } from '../rule.js';

export const torExit: Rule = {
  code: 'tor_exit',
  evaluate: (s) => (s.ip?.torExit ? fired() : undefined),
  relax: () => [change('ip', 'torExit', true, false, 'tor_exit')],
};
