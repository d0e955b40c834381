// ato_new_device: a login to an account with history from a device never seen for it. Advice:
// challenge (ask for a second factor) rather than refuse.
import { change, type Rule } from '../rule.js';

export const atoNewDevice: Rule = {
  code: 'ato_new_device',
  evaluate: (s) =>
    s.deviceId && s.graph?.accountHasHistory && !s.graph.deviceSeenForAccount ? { recommendedAction: 'challenge' } : undefined,
  relax: () => [change('graph', 'deviceSeenForAccount', false, true, 'ato_new_device')],
};
