// ato_account_device_burst: more than `over` distinct devices logged into one account within the
// window. Advice: hold the account.
import { change, type Rule } from '../rule.js';

export const atoAccountDeviceBurst: Rule = {
  code: 'ato_account_device_burst',
  evaluate: (s, p) => {
    const n = s.velocity?.accountDistinctDevices;
    if (n === undefined || p.over === undefined || n <= p.over) return undefined;
    const detail = { devices: n, count: n, threshold: p.over, window_seconds: p.windowSeconds ?? 0, rule: 'ato_account_device_burst.over' };
    return { detail, recommendedAction: 'hold' };
  },
  relax: (s, p) => [
    change('velocity', 'accountDistinctDevices', s.velocity?.accountDistinctDevices, p.over ?? null, 'ato_account_device_burst.over'),
  ],
};
