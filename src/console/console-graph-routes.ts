// /console/api/clusters/… (the cluster picture, by cluster, event or account; its members for the
// ring view; the evidence of its marks), /console/api/hubs (the accounts behind one identifier) and
// /console/api/queries/… (saved graph queries: list, run, CSV). HTTP only; query runs are audited.
import { Router, type Request } from 'express';
import { stringify } from 'csv-stringify/sync';
import type { ConsoleDeps } from './console-deps.js';
import { AppError } from '../errors.js';
import { jsonBody } from '../http/json-body.js';
import { findEvents } from '../events/event-store.js';
import { actorOf, audit } from '../audit/audit-store.js';
import { markEvidence } from './mark-evidence.js';
import { hubAccounts } from './hub-accounts.js';
import { ringMembers } from './ring-members.js';
import { emailIdentity } from '../signals/email/normalize-email.js';
import { accountClusterId, clusterPicture, eventClusterId } from './cluster-picture.js';
import { consoleValidated } from './console-schemas.js';
import { runSavedQuery, savedQueries } from '../graph-queries/saved-queries.js';
import type { QueryResult } from '../graph-queries/read-graph-query.js';
import { runAnalystCypher } from '../graph-queries/run-analyst-cypher.js';
import { findTenantQuery, listTenantQueries } from '../graph-queries/tenant-query-store.js';
import type {
  ClusterId,
  ClusterPicture,
  Evidence,
  HubAccounts,
  QueryList,
  QueryResult as WireResult,
  RingMembers,
} from './generated/console-wire.js';

const noCluster = (what: string) =>
  new AppError('not_found', `No identity cluster for ${what} in this tenant and mode (it linked nothing yet).`);

// A spreadsheet must not run what a cell says: cells that start like a formula get a quote.
const cell = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
};

export function consoleGraphRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  router.get('/clusters/:id', async (req, res) => {
    const skip = Math.max(0, Math.min(1_000_000, Number(req.query.skip) || 0));
    const scope = req.console!.scope;
    const picture = await clusterPicture(deps, scope, String(req.params.id), skip);
    if (!picture) throw new AppError('not_found', `No cluster ${String(req.params.id)}.`);
    // From Postgres, what the graph does not keep: each drawn event's verdict and review state,
    // and the addresses as received behind each normalised email identifier.
    const events = await findEvents(
      deps.db,
      scope,
      picture.events.map((e) => e.id),
    );
    const byId = new Map(events.map((e) => [e.id, e]));
    const received = new Map<string, Set<string>>();
    for (const e of events) {
      const id = e.email ? emailIdentity(e.email) : undefined;
      if (id) received.set(id, (received.get(id) ?? new Set()).add(e.email!));
    }
    res.json({
      ...picture,
      nodes: picture.nodes.map((n) =>
        n.kind === 'email' && received.has(String(n.value)) ? { ...n, received: [...received.get(String(n.value))!].sort() } : n,
      ),
      events: picture.events.map((e) => ({
        ...e,
        verdict: byId.get(e.id)?.verdict ?? null,
        review: byId.get(e.id)?.review?.status ?? null,
      })),
      skip,
    } satisfies ClusterPicture);
  });

  // The ring view: a page of the cluster's accounts with their verdicts, reviews and marks.
  router.get('/clusters/:id/members', async (req, res) => {
    const q = consoleValidated('RingQuery', { ...(req.query as Record<string, unknown>) }, 'query');
    res.json((await ringMembers(deps, req.console!.scope, String(req.params.id), q)) satisfies RingMembers);
  });

  // The marks on a cluster, without paths: the picture outlines their subjects.
  router.get('/clusters/:id/evidence', async (req, res) => {
    res.json((await markEvidence(deps, req.console!.scope, { clusterId: String(req.params.id) })) satisfies Evidence);
  });

  router.get('/events/:id/cluster', async (req, res) => {
    const id = await eventClusterId(deps, req.console!.scope, String(req.params.id));
    if (!id) throw noCluster(`event ${String(req.params.id)}`);
    res.json({ cluster_id: id } satisfies ClusterId);
  });

  // Why this event's cluster is what it is: every mark on it with the path from the event to its
  // subject, which the cluster picture highlights ("why is this account here?").
  router.get('/events/:id/evidence', async (req, res) => {
    res.json((await markEvidence(deps, req.console!.scope, { eventId: String(req.params.id) })) satisfies Evidence);
  });

  router.get('/accounts/:externalId/cluster', async (req, res) => {
    const id = await accountClusterId(deps, req.console!.scope, String(req.params.externalId));
    if (!id) throw noCluster(`account ${String(req.params.externalId)}`);
    res.json({ cluster_id: id } satisfies ClusterId);
  });

  // The marks on an account's cluster, with the path from the account to each subject.
  router.get('/accounts/:externalId/evidence', async (req, res) => {
    res.json((await markEvidence(deps, req.console!.scope, { account: String(req.params.externalId) })) satisfies Evidence);
  });

  // The accounts behind one identifier (a hub): who shares it, who is confirmed, what waits.
  router.get('/hubs', async (req, res) => {
    const q = consoleValidated('HubQuery', { ...(req.query as Record<string, unknown>) }, 'query');
    res.json((await hubAccounts(deps, req.console!.scope, q.kind, q.value, { skip: q.skip, limit: q.limit })) satisfies HubAccounts);
  });

  // The reviewed files, then the tenant's own (saved from the Cypher page; run through the guard).
  router.get('/queries', async (req, res) => {
    const tenantId = req.console!.scope.tenantId;
    const reviewed = savedQueries(deps, tenantId).map((q) => ({
      id: q.id,
      description: q.description,
      parameters: q.parameters,
      returns: q.returns,
      own: false as const,
    }));
    const own = (await listTenantQueries(deps.db, tenantId))
      .filter((q) => !reviewed.some((r) => r.id === q.id))
      .map((q) => ({
        id: q.id,
        description: q.description,
        parameters: q.parameters.map((name) => ({ name, hint: '' })),
        returns: '',
        own: true as const,
        query: q.cypher,
        created_by: q.createdBy,
        created_at: q.createdAt.toISOString(),
      }));
    res.json({
      queries: [...reviewed, ...own],
      row_cap: deps.config.consoleQueryRowCap,
      timeout_ms: deps.config.consoleQueryTimeoutMs,
    } satisfies QueryList);
  });

  const run = async (req: Request, params: Record<string, unknown>): Promise<QueryResult> => {
    const session = req.console!;
    const id = String(req.params.id);
    const query = savedQueries(deps, session.scope.tenantId).find((q) => q.id === id);
    if (!query) {
      const own = await findTenantQuery(deps.db, session.scope.tenantId, id);
      if (!own) throw new AppError('not_found', `No saved query ${id}.`);
      return runAnalystCypher(deps, actorOf(session), { text: own.cypher, params, savedQuery: own.id });
    }
    const result = await runSavedQuery(deps, session.scope, query, params);
    await audit(deps.db, actorOf(session), 'query.run', query.id, { params, rows: result.rows.length, truncated: result.truncated });
    return result;
  };

  router.post('/queries/:id/run', ...jsonBody(16 * 1024), async (req, res) => {
    res.json((await run(req, consoleValidated('QueryParams', req.body))) satisfies WireResult);
  });

  router.get('/queries/:id/csv', async (req, res) => {
    const params = consoleValidated('QueryParams', { ...(req.query as Record<string, unknown>) }, 'query');
    const result = await run(req, params);
    res.set('content-type', 'text/csv; charset=utf-8');
    res.set('content-disposition', `attachment; filename="${String(req.params.id).replace(/[^\w.-]/g, '_')}.csv"`);
    res.send(stringify([result.columns, ...result.rows.map((r) => result.columns.map((c) => cell(r[c])))]));
  });

  return router;
}
