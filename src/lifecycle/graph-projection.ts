// What the identity graph of a scope must hold, computed from Postgres alone: every stored event's
// link (its bound user id included) under the scope's link policy in force, and every mark that
// stands, in the order they happened, page by page. `doorman graph rebuild` queues these rows
// through the outbox; `doorman graph verify` folds the same rows into the graph they must make
// (src/graph/graph-model.ts) and compares. One projection, so the two can never disagree.
import type pg from 'pg';
import type { Config } from '../config.js';
import type { GraphLinkPolicy } from '../engine/policy.js';
import { markOf } from '../graph/graph-outbox.js';
import type { GraphOp } from '../graph/graph-outbox-store.js';
import { linkOfStoredEvent } from '../events/received-event.js';
import type { PolicyRegistry } from '../policies/documents/policy-registry.js';
import type { Scope } from '../scope.js';
import { eventsPage, storedOutcomes, type PageEnd, type StoredOutcome } from './graph-history-store.js';

const PAGE = 1000;

// What the projection needs; the composition root (src/deps.ts) passes its Deps.
export interface ProjectionDeps {
  db: pg.Pool;
  config: Pick<Config, 'hubThreshold'>;
  policies: PolicyRegistry;
}

const markOfOutcome = (scope: Scope, o: StoredOutcome): GraphOp => ({
  kind: 'mark',
  payload: markOf(scope, {
    source: o.kind === 'resolution' ? 'review' : 'feedback',
    subject: { kind: o.subjectKind, value: o.value },
    outcome: o.outcome,
    at: o.at,
    codes: o.codes,
  }),
});

// The scope's link policy as the projection applies it: the one in force in Postgres now.
export async function linkPolicyInForce(deps: Pick<ProjectionDeps, 'policies'>, scope: Scope): Promise<GraphLinkPolicy | undefined> {
  await deps.policies.refresh(scope);
  return deps.policies.forScope(scope).graph;
}

export interface ProjectionPage {
  ops: GraphOp[];
  // The events this page read (those without a link included).
  events: number;
  last: boolean;
}

// Pages of the scope's projection, in the order the graph writer must apply them: an outcome
// before the events judged after it, as they happened.
export async function* projectScope(
  deps: Pick<ProjectionDeps, 'db' | 'config'>,
  scope: Scope,
  linkPolicy: GraphLinkPolicy | undefined,
  pageSize = PAGE,
): AsyncGenerator<ProjectionPage> {
  const outcomes = await storedOutcomes(deps.db, scope);
  let next = 0;
  let after: PageEnd | undefined;
  for (;;) {
    const { events: page, end } = await eventsPage(deps.db, scope, after, pageSize);
    const ops: GraphOp[] = [];
    for (const e of page) {
      while (next < outcomes.length && outcomes[next]!.at < e.createdAt) ops.push(markOfOutcome(scope, outcomes[next++]!));
      const link = linkOfStoredEvent(scope, e, deps.config.hubThreshold, linkPolicy);
      if (link) ops.push({ kind: 'link', payload: link });
    }
    const last = page.length < pageSize;
    if (last) while (next < outcomes.length) ops.push(markOfOutcome(scope, outcomes[next++]!));
    yield { ops, events: page.length, last };
    if (last) return;
    after = end;
  }
}
