// Velocity rules share one shape: a count in a window over a threshold, with an optional
// harsher second step. Each rule names the count it reads.
import type { Rule } from '../rule.js';
import type { VelocitySignal } from '../types.js';

export function velocityRule(code: string, count: keyof VelocitySignal): Rule {
  return {
    code,
    evaluate: (s, p) => {
      const n = s.velocity?.[count];
      if (n === undefined || p.over === undefined || n <= p.over) return undefined;
      const detail = { count: n, threshold: p.over, window_seconds: p.windowSeconds ?? 0 };
      return p.blockOver !== undefined && n > p.blockOver ? { detail, effect: 'block' } : { detail };
    },
  };
}

export const velocityIpSignups = velocityRule('velocity_ip_signups', 'ipSignups');
export const velocityDeviceSignups = velocityRule('velocity_device_signups', 'deviceSignups');
export const velocityDomainSignups = velocityRule('velocity_domain_signups', 'domainSignups');
export const velocityCardAttempts = velocityRule('velocity_card_attempts', 'cardAttempts');
export const velocityIpCardAttempts = velocityRule('velocity_ip_card_attempts', 'ipDistinctCards');
