// One operation of a history against the fleet, as users and operators do it: the
// public API over HTTP for verdicts, PATCH and feedback, and the use cases behind the CLI and the
// console for the rest (key create|revoke, list add|remove, feedback retract, review resolve and
// undo, policy publish, graph recluster and rebuild, erasure). Every answer is recorded in the
// history's state for the invariants; a revoked key is polled on every instance at once.
import { AppError } from '../../src/errors.js';
import { retractFeedback } from '../../src/feedback/retract-feedback.js';
import { listFeedback } from '../../src/feedback/feedback-store.js';
import { pendingGraphOps } from '../../src/graph/graph-outbox-store.js';
import { erasePerson } from '../../src/lifecycle/erase-person.js';
import { rebuildGraph } from '../../src/lifecycle/rebuild-graph.js';
import { reclusterGraph } from '../../src/lifecycle/recluster-graph.js';
import { changeList } from '../../src/lists/manage-lists.js';
import { publishPolicy } from '../../src/policies/documents/publish-policy.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { listPendingReviews } from '../../src/reviews/review-store.js';
import { undoReviewMarks } from '../../src/reviews/undo-review-marks.js';
import { hashKey } from '../../src/tenants/api-key.js';
import { createKey, revokeApiKey } from '../../src/tenants/manage-tenants.js';
import { aDocument } from '../policies/policy-builders.js';
import { call } from '../support/api-client.js';
import { IPS } from '../support/verdict-harness.js';
import { POOL, type Inst, type Op, type VerdictOp } from './history-ops.js';
import { account, changed, email, liveKey, type Ack, type HistoryState } from './history-state.js';
import type { World } from './history-world.js';

const REVOKE_BOUND_MS = 5_000;
const WAIT_MS = 6_000;
const actor = (s: HistoryState) => ({ ...s.scope, analystId: null, analystEmail: 'history (test)' });
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const at = <T>(list: T[], pick: number): T | undefined => (list.length === 0 ? undefined : list[pick % list.length]);

function verdictBody(s: HistoryState, o: VerdictOp, tag: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    event_type: o.type,
    ip: o.tor ? IPS.tor : `100.64.30.${(s.counters.tags % 250) + 1}`,
    context: { hist: tag },
  };
  if (o.account !== null) body.external_user_id = account(o.account);
  if (o.email !== null) body.email = email(o.email);
  if (o.phone !== null) body.identity = { phone: `+1555010${o.phone}` };
  if (o.device !== null && s.deviceTokens[o.device]) body.device_token = s.deviceTokens[o.device];
  if (o.type === 'checkout_attempt')
    body.payment = { amount: 5000, currency: 'usd', ...(o.card !== null && { card_fingerprint: `card_${o.card}` }) };
  return body;
}

// Records one API answer: 200 is acknowledged, 500 failed, no answer (or a 502/503/504) unknown.
function answered(s: HistoryState, status: number): 'ok' | 'failed' | 'unknown' | 'other' {
  s.counters.statuses[status] = (s.counters.statuses[status] ?? 0) + 1;
  if (status === 200) return 'ok';
  if (status === 500) return 'failed';
  if (status === 0 || status >= 502) return 'unknown';
  return 'other';
}

async function sendVerdict(
  world: World,
  s: HistoryState,
  inst: Inst,
  tag: string,
  body: Record<string, unknown>,
  idempotencyKey?: string,
): Promise<string> {
  const res = await call(world.instances[inst].base, 'POST', '/v1/verdict', {
    key: liveKey(s),
    body,
    headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
    timeoutMs: 20_000,
  });
  const outcome = answered(s, res.status);
  if (outcome === 'ok') {
    s.failed = s.failed.filter((f) => f.tag !== tag);
    s.acks.push({
      tag,
      id: res.body.id,
      body,
      verdict: res.body.verdict,
      ...(typeof body.external_user_id === 'string' && { account: body.external_user_id }),
    });
    const missing = (res.body.reasons as { code: string }[]).some((r) => r.code === 'timeout_failopen' || r.code === 'partial_enrichment');
    if (missing) s.counters.statuses['200 with a missing signal'] = (s.counters.statuses['200 with a missing signal'] ?? 0) + 1;
    return `200 ${res.body.id} ${res.body.verdict} [${(res.body.reasons as { code: string }[]).map((r) => r.code).join(',')}]`;
  }
  if (outcome === 'failed') {
    if (!s.failed.some((f) => f.tag === tag)) s.failed.push({ tag, body, inst, ...(idempotencyKey && { idempotencyKey }) });
  } else if (outcome === 'unknown') {
    s.ambiguousTags.add(tag);
  } else {
    s.anomalies.push({
      kind: 'unexpected_status',
      detail: { request: 'POST /v1/verdict', instance: 'AB'[inst], status: res.status, body: res.body, tag },
    });
  }
  return `${res.status} ${res.body.error ?? res.body.network ?? ''}`;
}

// Until every instance refuses the key (401), each polled on its own, bounded.
async function refusedEverywhere(world: World, key: string): Promise<(number | undefined)[]> {
  const started = Date.now();
  return Promise.all(
    world.instances.map(async (i) => {
      while (Date.now() - started <= REVOKE_BOUND_MS) {
        if ((await call(i.base, 'GET', '/v1/events?limit=1', { key, timeoutMs: 3000 })).status === 401) return Date.now() - started;
        await sleep(25);
      }
      return undefined;
    }),
  );
}

// A use case's failure: a domain refusal is an answer; anything else leaves the outcome unknown.
export const refusal = (err: unknown) => (err instanceof AppError && err.code !== 'internal' ? `refused: ${err.code}` : undefined);

// The events an erasure takes (erasure-store.ts lockPersonEvents): those of the account, or those
// of the email and every event of the accounts that used it. `unsure`: those it may take, as a
// PATCH without a clear answer may have bound them.
function personEvents(s: HistoryState, kind: 'external_user_id' | 'email', value: string): { sure: string[]; unsure: string[] } {
  const live = s.acks.filter((a) => !s.erased.has(a.id));
  const ofEmail = (a: Ack) => kind === 'email' && String(a.body.email ?? '').toLowerCase() === value;
  const accounts = new Set(kind === 'email' ? live.filter(ofEmail).flatMap((a) => (a.account ? [a.account] : [])) : [value]);
  const maybeAccounts = new Set(live.filter(ofEmail).flatMap((a) => (a.maybeAccount ? [a.maybeAccount] : [])));
  const sure = live.filter((a) => ofEmail(a) || (a.account !== undefined && accounts.has(a.account)));
  const unsure = live.filter(
    (a) =>
      !sure.includes(a) &&
      ((a.maybeAccount !== undefined && (accounts.has(a.maybeAccount) || maybeAccounts.has(a.maybeAccount))) ||
        (a.account !== undefined && maybeAccounts.has(a.account))),
  );
  return { sure: sure.map((a) => a.id), unsure: unsure.map((a) => a.id) };
}

// A verdict or PATCH links under the link policy its instance holds: one that missed the latest
// publication's announcement links under the one before.
// So does one whose LISTEN was cut silently before a publication, while its memory may still
// answer from before the cut (MEMORY_STALENESS_MS, and a second more for this test's clocks).
function linksUnderStalePolicy(world: World, s: HistoryState, inst: Inst): void {
  const x = world.instances[inst];
  if (x.deps.keys.trusted()) s.missedWhileDown[inst] = false;
  const cutAt = world.lastCutAt(inst);
  const staleCut = cutAt > 0 && s.publishedAt > cutAt && Date.now() - cutAt < x.deps.config.memoryStalenessMs + 1000;
  if (s.missedWhileDown[inst] || staleCut) s.flags.add('stale-link-policy');
}

export async function runOp(world: World, s: HistoryState, o: Op): Promise<string> {
  const i = world.instances[o.inst];
  const scope = s.scope;
  if (o.op === 'verdict' || o.op === 'retry' || o.op === 'attach') linksUnderStalePolicy(world, s, o.inst);
  switch (o.op) {
    case 'verdict': {
      const tag = `${scope.tenantId}:${(s.counters.tags += 1)}`;
      return sendVerdict(world, s, o.inst, tag, verdictBody(s, o, tag), o.keyed ? tag : undefined);
    }
    case 'burst': {
      for (const v of o.verdicts) linksUnderStalePolicy(world, s, v.inst);
      const answers = await Promise.all(
        o.verdicts.map((v) => {
          const tag = `${scope.tenantId}:${(s.counters.tags += 1)}`;
          return sendVerdict(world, s, v.inst, tag, verdictBody(s, v, tag), v.keyed ? tag : undefined);
        }),
      );
      return answers.join(' | ');
    }
    case 'retry': {
      const f = at(
        s.failed.filter((x) => x.idempotencyKey),
        o.pick,
      );
      if (!f) return 'skipped: no failed keyed verdict';
      return `retry of ${f.tag}: ${await sendVerdict(world, s, o.inst, f.tag, f.body, f.idempotencyKey)}`;
    }
    case 'attach': {
      const ack = at(
        s.acks.filter((a) => !a.account && !a.bindingUnknown && !s.erased.has(a.id) && !s.maybeErased.has(a.id)),
        o.pick,
      );
      if (!ack) return 'skipped: no unbound event';
      const res = await call(i.base, 'PATCH', `/v1/events/${ack.id}`, { key: liveKey(s), body: { external_user_id: account(o.account) } });
      const outcome = answered(s, res.status);
      if (outcome === 'ok') {
        ack.account = account(o.account);
        s.flags.add('patched');
      } else if (outcome !== 'other') Object.assign(ack, { bindingUnknown: true, maybeAccount: account(o.account) });
      else
        s.anomalies.push({
          kind: 'unexpected_status',
          detail: { request: `PATCH /v1/events/${ack.id}`, instance: i.name, status: res.status, body: res.body },
        });
      return `${ack.id}: ${res.status}`;
    }
    case 'feedback': {
      const value =
        o.subject === 'event_id'
          ? at(s.acks, o.pick)?.id
          : o.subject === 'email'
            ? email(o.pick % POOL.emails)
            : account(o.pick % POOL.accounts);
      if (!value) return 'skipped: no event';
      const res = await call(i.base, 'POST', '/v1/feedback', {
        key: liveKey(s),
        body: { subject: { kind: o.subject, value }, outcome: o.outcome },
      });
      if (answered(s, res.status) === 'other' && res.status !== 404) {
        s.anomalies.push({
          kind: 'unexpected_status',
          detail: { request: 'POST /v1/feedback', instance: i.name, status: res.status, body: res.body },
        });
      }
      return `${o.subject}=${value}: ${res.status}${res.body.duplicate ? ' duplicate' : ''}`;
    }
    case 'retract': {
      const standing = (await listFeedback(i.deps.db, scope, {})).filter((f) => !f.retracted_at);
      const f = at(standing, o.pick);
      if (!f) return 'skipped: no standing feedback';
      await retractFeedback(i.deps, scope, { feedbackId: f.feedback_id, note: 'history', actor: actor(s) });
      return `${f.outcome} on ${f.subject.kind}=${f.subject.value} retracted`;
    }
    case 'resolve': {
      const review = at(await listPendingReviews(i.deps.db, scope, 100), o.pick);
      if (!review) return 'skipped: no pending review';
      await resolveReview(i.deps, scope, { eventId: review.eventId, resolution: o.resolution, resolvedBy: 'history (test)' });
      return `${review.eventId} ${o.resolution}`;
    }
    case 'undo': {
      const { rows } = await i.deps.db.query<{ event_id: string }>(
        `SELECT event_id FROM reviews WHERE tenant_id = $1 AND mode = $2 AND status <> 'pending' AND marks_retracted_at IS NULL ORDER BY resolved_at, event_id`,
        [scope.tenantId, scope.mode],
      );
      const review = at(rows, o.pick);
      if (!review) return 'skipped: no resolved review';
      await undoReviewMarks(i.deps, scope, { eventId: review.event_id, note: 'history', actor: actor(s), role: 'admin' });
      return `${review.event_id} undone`;
    }
    case 'policy': {
      const graph = structuredClone(aDocument().graph!);
      graph.kinds ??= {};
      for (const kind of o.off) graph.kinds[kind] = { ...graph.kinds[kind], links: false };
      if (o.exclude) {
        const value = {
          email: email(o.exclude.pick % POOL.emails),
          phone: `+1555010${o.exclude.pick % POOL.phones}`,
          card: `card_${o.exclude.pick % POOL.cards}`,
        }[o.exclude.kind];
        graph.kinds[o.exclude.kind] = { ...graph.kinds[o.exclude.kind], exclude: [value] };
      }
      if (o.hub) {
        graph.default = { ...graph.default, hub_threshold: o.hub };
        for (const kind of ['email', 'device', 'card']) graph.kinds[kind] = { ...graph.kinds[kind], hub_threshold: o.hub };
      }
      if (o.hub) s.flags.add('hub-policy');
      const version = await publishPolicy(i.deps, scope, { document: aDocument({}, { graph }) });
      changed(s, 'policy');
      world.instances.forEach((x, n) => {
        if (!x.deps.keys.trusted()) s.missedWhileDown[n] = true;
      });
      s.publishedAt = Date.now();
      const result = await reclusterGraph(i.deps, scope, { waitMs: WAIT_MS });
      return `${version} published; recluster: ${JSON.stringify(result)}`;
    }
    case 'erase': {
      const value = o.kind === 'email' ? email(o.pick % POOL.emails) : account(o.pick % POOL.accounts);
      if (o.kind === 'email') s.flags.add('erased-by-email');
      const { sure, unsure } = personEvents(s, o.kind, value);
      for (const id of unsure) s.maybeErased.add(id);
      try {
        const erased = await erasePerson(i.deps, scope, { kind: o.kind, value }, { requestedBy: 'history (test)', waitMs: WAIT_MS });
        for (const id of sure) s.erased.add(id);
        changed(s, 'list');
        return `${o.kind}=${value}: ${erased.events} event(s)${erased.graph ? '' : ', graph not yet applied'}`;
      } catch (err) {
        for (const id of sure) s.maybeErased.add(id);
        throw err;
      }
    }
    case 'rebuild': {
      const rebuilt = await rebuildGraph(i.deps, scope, { waitMs: WAIT_MS });
      return `${rebuilt.events} events, ${rebuilt.marks} marks`;
    }
    case 'keyCreate': {
      const key = await createKey(i.deps.db, scope.tenantId, 'secret', 'test');
      s.keys.push({ key, revoked: false });
      changed(s, 'key');
      return `key …${key.slice(-4)}`;
    }
    case 'keyRevoke': {
      const live = s.keys.filter((k) => !k.revoked);
      if (live.length < 2) return 'skipped: the last live key is kept';
      const k = at(live, o.pick)!;
      try {
        await revokeApiKey(i.deps.db, k.key);
      } finally {
        // Revoked or not as Postgres says, whatever the answer was.
        const { rows } = await i.deps.db
          .query('SELECT 1 FROM api_keys WHERE key_hash = $1 AND revoked_at IS NOT NULL', [hashKey(k.key)])
          .catch(() => ({ rows: [] }));
        k.revoked = rows.length > 0;
      }
      changed(s, 'key');
      const refusedAfter = await refusedEverywhere(world, k.key);
      refusedAfter.forEach((ms, n) => {
        if (ms === undefined)
          s.anomalies.push({
            kind: 'revoked_key_accepted',
            detail: { instance: 'AB'[n], key: `…${k.key.slice(-4)}`, boundMs: REVOKE_BOUND_MS },
          });
      });
      return `key …${k.key.slice(-4)} revoked; refused after ${refusedAfter.map((ms, n) => `${'AB'[n]} ${ms ?? `> ${REVOKE_BOUND_MS}`} ms`).join(', ')}`;
    }
    case 'list': {
      const value = o.kind === 'email' ? email(o.pick % POOL.emails) : account(o.pick % POOL.accounts);
      if (!s.listValues.some((v) => v.kind === o.kind && v.value === value)) s.listValues.push({ kind: o.kind, value });
      await changeList(i.deps.db, scope, { action: o.action, list: o.list, kind: o.kind, value });
      changed(s, 'list');
      return `${o.list} ${o.kind}=${value} ${o.action}ed`;
    }
    case 'settle': {
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline) {
        if ((await pendingGraphOps(i.deps.db, scope)) === 0) return 'outbox applied';
        await sleep(20);
      }
      return `outbox not applied within ${WAIT_MS} ms`;
    }
    case 'fault':
      throw new Error('faults are run by runHistory');
  }
}
