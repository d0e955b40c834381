// datacenter_ip: the address is in a hosting or cloud provider's range.
import { fired, type Rule } from '../rule.js';

export const datacenterIp: Rule = { code: 'datacenter_ip', evaluate: (s) => (s.ip?.datacenter ? fired() : undefined) };
