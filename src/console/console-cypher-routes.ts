// /console/api/cypher/… : analysts' own Cypher (the console's "Cypher" page). Who may run it is the
// tenant's setting (admins by default); saving and the setting are audited; the run itself is
// audited by the use case. HTTP only: the work is in src/graph-queries/.
import { Router, type Request } from 'express';
import type { ConsoleDeps } from './console-deps.js';
import { AppError } from '../errors.js';
import { jsonBody } from '../http/json-body.js';
import { GRAPH_WORDS } from '../graph-queries/graph-words.js';
import { chooseFreeFormRoles, removeTenantQuery, runAnalystCypher, saveTenantQuery } from '../graph-queries/run-analyst-cypher.js';
import { findTenantQuery, freeFormRoles } from '../graph-queries/tenant-query-store.js';
import { actorOf, listOwnAudit } from '../audit/audit-store.js';
import type { Role } from '../roles.js';
import { requireRole } from './auth/console-guard.js';
import { consoleValidated } from './console-schemas.js';
import type { CypherHistory, CypherRunResult, CypherSettings, FreeFormRoles, Ok, QuerySaved } from './generated/console-wire.js';

const mayRunFreeForm = (req: Request, roles: Role): boolean => req.console!.analyst.role === 'admin' || roles === 'analyst';

async function requireFreeForm(deps: Pick<ConsoleDeps, 'db'>, req: Request): Promise<void> {
  if (!mayRunFreeForm(req, await freeFormRoles(deps.db, req.console!.scope.tenantId)))
    throw new AppError(
      'forbidden',
      "This tenant's admins allow free-form Cypher to admins only; the saved queries are open to every analyst.",
    );
}

export function consoleCypherRoutes(deps: ConsoleDeps): Router {
  const router = Router();

  router.get('/cypher', async (req, res) => {
    const roles = await freeFormRoles(deps.db, req.console!.scope.tenantId);
    res.json({
      allowed: mayRunFreeForm(req, roles),
      free_form_roles: roles,
      row_cap: deps.config.graphQueryRowCap,
      timeout_ms: deps.config.graphQueryTimeoutMs,
      schema: { labels: GRAPH_WORDS.labels, relationship_types: GRAPH_WORDS.relationshipTypes, property_keys: GRAPH_WORDS.propertyKeys },
    } satisfies CypherSettings);
  });

  router.post('/cypher/run', ...jsonBody(64 * 1024), async (req, res) => {
    await requireFreeForm(deps, req);
    const body = consoleValidated('CypherRunBody', req.body);
    const r = await runAnalystCypher(deps, actorOf(req.console!), { text: body.query, params: body.params ?? {} });
    res.json({ columns: r.columns, rows: r.rows, truncated: r.truncated, ms: r.ms, guard_ms: r.guardMs } satisfies CypherRunResult);
  });

  router.get('/cypher/history', async (req, res) => {
    const s = req.console!;
    const entries = await listOwnAudit(deps.db, s.scope.tenantId, s.analyst.id, 'cypher.run', 50);
    res.json({
      history: entries.map((e) => {
        // The run's audit entry as runAnalystCypher writes it.
        const d = e.detail as {
          text: string;
          params?: Record<string, unknown>;
          rows?: number;
          ms?: number;
          refused?: { reason?: string };
          error?: string;
        };
        return {
          at: e.at.toISOString(),
          mode: e.mode,
          query: d.text,
          params: d.params ?? {},
          saved_query: e.subject,
          rows: d.rows ?? null,
          ms: d.ms ?? null,
          refused: d.refused?.reason ?? null,
          error: d.error ?? null,
        };
      }),
    } satisfies CypherHistory);
  });

  router.post('/cypher/saved', ...jsonBody(64 * 1024), async (req, res) => {
    await requireFreeForm(deps, req);
    const body = consoleValidated('SaveQueryBody', req.body);
    const saved = await saveTenantQuery(deps, actorOf(req.console!), {
      id: body.id,
      description: body.description ?? '',
      text: body.query,
    });
    res.status(201).json({ id: saved.id, parameters: saved.parameters } satisfies QuerySaved);
  });

  // Its author or an admin.
  router.delete('/cypher/saved/:id', async (req, res) => {
    const s = req.console!;
    const q = await findTenantQuery(deps.db, s.scope.tenantId, String(req.params.id));
    if (q && s.analyst.role !== 'admin' && q.createdBy !== s.analyst.email)
      throw new AppError('forbidden', 'Only its author or an admin may delete a saved query.');
    await removeTenantQuery(deps, actorOf(s), String(req.params.id));
    res.json({ ok: true } satisfies Ok);
  });

  router.put('/cypher/settings', requireRole('admin'), ...jsonBody(1024), async (req, res) => {
    const body = consoleValidated('CypherSettingsBody', req.body);
    await chooseFreeFormRoles(deps, actorOf(req.console!), body.free_form_roles);
    res.json({ free_form_roles: body.free_form_roles } satisfies FreeFormRoles);
  });

  return router;
}
