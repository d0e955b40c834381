// Stored signals hold counts taken over the windows of the policy that judged each event: a
// candidate with other windows (or another small-amount limit) is evaluated on those counts,
// not re-counted. Backtests and shadow reports say so where it applies.
import type { Queryable } from '../../db/queryable.js';
import type { Scope } from '../../scope.js';
import { defaultPolicy } from '../../engine/policy.js';
import { toDocument, type PolicyDocument } from '../documents/policy-document.js';
import { versionsInForce } from '../documents/policy-store.js';

// Rules whose counts come from the velocity store, and the entries that shape the counting.
const COUNTED: Record<string, ('window_seconds' | 'max_amount')[]> = {
  velocity_ip_signups: ['window_seconds'],
  velocity_device_signups: ['window_seconds'],
  velocity_domain_signups: ['window_seconds'],
  velocity_card_attempts: ['window_seconds'],
  velocity_ip_card_attempts: ['window_seconds'],
  card_probe_pattern: ['window_seconds', 'max_amount'],
  ato_account_device_burst: ['window_seconds'],
};

export async function countedWindowWarnings(db: Queryable, scope: Scope, candidate: PolicyDocument): Promise<string[]> {
  const [inForce] = await versionsInForce(db, scope);
  const current = inForce?.document ?? toDocument(defaultPolicy);
  const warnings: string[] = [];
  for (const [code, keys] of Object.entries(COUNTED)) {
    for (const key of keys) {
      const was = current.rules[code]?.[key];
      const now = candidate.rules[code]?.[key];
      if (was !== now) {
        warnings.push(
          `${code}.${key} is ${now} here but ${was} in force: stored counts were taken under the policy that judged each event, so this change is not re-counted`,
        );
      }
    }
  }
  return warnings;
}
