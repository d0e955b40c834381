// Velocity rules share one shape: a count in a window over a threshold, with an optional
// harsher second step. Each rule names the count it reads. The detail says which step fired
// (`rule`) and the threshold that was crossed; `relax` is the highest count that would not have
// crossed it (the counterfactual).
import { change, type Rule } from '../rule.js';
import type { Signals, VelocitySignal } from '../types.js';
import { corporateEmail } from './group-evidence.js';

// Colleagues behind their office's one address: the event's email is on a company's own,
// established domain (corporateEmail) that had at least as many signups in its window as the
// address had in this one.
const colleagues = (s: Signals, n: number): boolean => corporateEmail(s) && (s.velocity?.domainSignups ?? 0) >= n;

export function velocityRule(code: string, count: keyof VelocitySignal): Rule {
  return {
    code,
    evaluate: (s, p) => {
      const n = s.velocity?.[count];
      if (n === undefined || p.over === undefined || n <= p.over) return undefined;
      const blocks = p.blockOver !== undefined && n > p.blockOver;
      const threshold = blocks ? p.blockOver! : p.over;
      const detail = { count: n, threshold, window_seconds: p.windowSeconds ?? 0, rule: `${code}.${blocks ? 'block_over' : 'over'}` };
      if (blocks) return { detail, effect: 'block' };
      // With `corporateDomain`, the first step is informational for a team behind its office's address.
      if (p.corporateDomain === 1 && colleagues(s, n)) return { detail: { ...detail, group: 'team' }, effect: 'info' };
      return { detail };
    },
    // The harsher step first, so the nearest milder verdict comes first.
    relax: (s, p) => [
      ...(p.blockOver === undefined ? [] : [change('velocity', count, s.velocity![count], p.blockOver, `${code}.block_over`)]),
      change('velocity', count, s.velocity![count], p.over!, `${code}.over`),
    ],
  };
}

export const velocityIpSignups = velocityRule('velocity_ip_signups', 'ipSignups');
export const velocityDeviceSignups = velocityRule('velocity_device_signups', 'deviceSignups');
export const velocityDomainSignups = velocityRule('velocity_domain_signups', 'domainSignups');
export const velocityCardAttempts = velocityRule('velocity_card_attempts', 'cardAttempts');
export const velocityIpCardAttempts = velocityRule('velocity_ip_card_attempts', 'ipDistinctCards');
