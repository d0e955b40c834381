// tor_exit: the address is a Tor exit node.
import { fired, type Rule } from '../rule.js';

export const torExit: Rule = { code: 'tor_exit', evaluate: (s) => (s.ip?.torExit ? fired() : undefined) };
