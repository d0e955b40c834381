// proxy_ip: the address is a known proxy or VPN endpoint.
import { change, fired, type Rule } from '../rule.js';

export const proxyIp: Rule = {
  code: 'proxy_ip',
  evaluate: (s) => (s.ip?.proxy ? fired() : undefined),
  relax: () => [change('ip', 'proxy', true, false, 'proxy_ip')],
};
