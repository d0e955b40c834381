// Seeds stored decisions straight into Postgres for backtest and shadow tests: each event is
// judged by the engine under the shipped default, so what is stored is what would have been
// decided (and replays the same), with the labels a test needs added beside it.
import { newId } from '../../src/db/new-id.js';
import type { Queryable } from '../../src/db/queryable.js';
import type { Scope } from '../../src/scope.js';
import { ENGINE_VERSION } from '../../src/engine/engine-version.js';
import { evaluate } from '../../src/engine/evaluate.js';
import { defaultPolicy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import type { Decision, Signals } from '../../src/engine/types.js';
import { noteGraphScope } from '../support/graph-scopes.js';

export interface Seed {
  signals: Partial<Signals> & Pick<Signals, 'eventType'>;
  createdAt: Date;
  externalUserId?: string;
  email?: string;
}

// Seeded straight into Postgres, past the verdict's write: the graph never hears of these events,
// so the suite's graph check (scripts/verify-graphs.ts) leaves the scope out.
const noted = new Set<string>();
async function noteSeeded(db: Queryable, scope: Scope): Promise<void> {
  if (noted.has(scope.tenantId)) return;
  noted.add(scope.tenantId);
  await noteGraphScope(db, scope.tenantId, { drift: 'decisions seeded straight into Postgres (test/policies/seed-decisions.ts)' });
}

export async function seedDecision(db: Queryable, scope: Scope, seed: Seed): Promise<{ id: string; decision: Decision }> {
  await noteSeeded(db, scope);
  const id = newId('evt');
  const signals: Signals = { missing: [], lists: [], ...seed.signals };
  const d = evaluate(signals, defaultRules, defaultPolicy);
  await db.query(
    `INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version, engine_version, recommended_action,
       created_at, external_user_id, email, request, signals)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      scope.tenantId,
      scope.mode,
      id,
      signals.eventType,
      d.verdict,
      JSON.stringify(d.reasons),
      d.policyVersion,
      ENGINE_VERSION,
      d.recommendedAction ?? null,
      seed.createdAt,
      seed.externalUserId ?? null,
      seed.email ?? null,
      JSON.stringify({ event_type: signals.eventType }),
      JSON.stringify(signals),
    ],
  );
  if (d.verdict === 'review')
    await db.query('INSERT INTO reviews (tenant_id, mode, event_id, created_at) VALUES ($1, $2, $3, $4)', [
      scope.tenantId,
      scope.mode,
      id,
      seed.createdAt,
    ]);
  return { id, decision: d };
}

export async function seedFeedback(
  db: Queryable,
  scope: Scope,
  kind: 'event_id' | 'external_user_id' | 'email',
  value: string,
  outcome: 'confirmed_abuse' | 'false_positive' | 'chargeback',
): Promise<void> {
  await noteSeeded(db, scope);
  await db.query('INSERT INTO feedback (tenant_id, mode, subject_kind, subject_value, outcome) VALUES ($1, $2, $3, $4, $5)', [
    scope.tenantId,
    scope.mode,
    kind,
    value,
    outcome,
  ]);
}

export async function resolveSeededReview(db: Queryable, scope: Scope, eventId: string, status: 'approved' | 'denied'): Promise<void> {
  await db.query('UPDATE reviews SET status = $4, resolved_at = now() WHERE tenant_id = $1 AND mode = $2 AND event_id = $3', [
    scope.tenantId,
    scope.mode,
    eventId,
    status,
  ]);
}

export { defaultPolicy };
