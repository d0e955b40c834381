// ato_account_device_burst: more than `over` distinct devices logged into one account within the
// window. Advice: hold the account.
import type { Rule } from '../rule.js';

export const atoAccountDeviceBurst: Rule = {
  code: 'ato_account_device_burst',
  evaluate: (s, p) => {
    const n = s.velocity?.accountDistinctDevices;
    return n !== undefined && n > (p.over ?? 3)
      ? { detail: { devices: n, window_seconds: p.windowSeconds ?? 3600 }, recommendedAction: 'hold' }
      : undefined;
  },
};
