// datacenter_ip: the address is in a hosting or cloud provider's range.
import { change, fired, type Rule } from '../rule.js';

export const datacenterIp: Rule = {
  code: 'datacenter_ip',
  evaluate: (s) => (s.ip?.datacenter ? fired() : undefined),
  relax: () => [change('ip', 'datacenter', true, false, 'datacenter_ip')],
};
