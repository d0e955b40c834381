// The replay check: every stored decision in a range (or the whole database) re-evaluated under
// its own policy by this engine, streamed. Before a deploy it shows whether the new code still
// decides history as it was decided; differences are listed (the first `keep`), and decisions
// judged by another engine version are counted apart, since a new engine may differ on purpose.
import type pg from 'pg';
import { AppError } from '../../errors.js';
import { ENGINE_VERSION } from '../../engine/engine-version.js';
import { evaluate } from '../../engine/evaluate.js';
import type { Policy } from '../../engine/policy.js';
import { defaultRules } from '../../engine/rule-table.js';
import { compareDecisions, type Difference } from './compare-decisions.js';
import { viewOf } from './replay-event.js';
import { resolvePolicy } from '../documents/resolve-policy.js';
import { streamDecisions, type DecisionFilter } from './stored-decisions.js';

export interface ReplayCheck {
  engine_version: string;
  events: number;
  same: number;
  different: number;
  // Of the different ones, how many were judged by another (or an unrecorded) engine version.
  different_other_engine: number;
  unknown_policy: number;
  differences: {
    event_id: string;
    tenant_id: string;
    mode: string;
    policy_version: string;
    engine_version: string | null;
    differences: Difference[];
  }[];
}

export async function replayAll(
  deps: { db: pg.Pool },
  filter: DecisionFilter,
  keep = 100,
  onProgress?: (done: number) => void,
): Promise<ReplayCheck> {
  const report: ReplayCheck = {
    engine_version: ENGINE_VERSION,
    events: 0,
    same: 0,
    different: 0,
    different_other_engine: 0,
    unknown_policy: 0,
    differences: [],
  };
  const policies = new Map<string, Promise<Policy | undefined>>();
  const policyFor = (tenantId: string, mode: 'live' | 'test', version: string) => {
    const key = `${tenantId}:${mode}:${version}`;
    let hit = policies.get(key);
    // Only a version that exists nowhere is unknown; a store that fails fails the check (it would
    // otherwise be counted, and cached, as an unknown policy).
    if (!hit) {
      policies.set(
        key,
        (hit = resolvePolicy(deps.db, { tenantId, mode }, version).then(
          (r) => r.policy,
          (err: unknown) => {
            if (err instanceof AppError && err.code === 'not_found') return undefined;
            throw err;
          },
        )),
      );
    }
    return hit;
  };
  await streamDecisions(deps.db, filter, async (batch) => {
    for (const stored of batch) {
      report.events += 1;
      const policy = await policyFor(stored.tenantId, stored.mode, stored.policyVersion);
      if (!policy) {
        report.unknown_policy += 1;
        continue;
      }
      const differences = compareDecisions(viewOf(stored), viewOf(evaluate(stored.signals, defaultRules, policy)));
      if (differences.length === 0) {
        report.same += 1;
        continue;
      }
      report.different += 1;
      if (stored.engineVersion !== ENGINE_VERSION) report.different_other_engine += 1;
      if (report.differences.length < keep) {
        report.differences.push({
          event_id: stored.id,
          tenant_id: stored.tenantId,
          mode: stored.mode,
          policy_version: stored.policyVersion,
          engine_version: stored.engineVersion ?? null,
          differences,
        });
      }
    }
    onProgress?.(report.events);
  });
  return report;
}
