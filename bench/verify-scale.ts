// `doorman graph verify` on a large scope (it reads with bounded memory, so it can run on a
// scope of millions): seeds N events straight into Postgres (accounts that share phones, cards and
// devices in small rings, some anonymous), builds the scope's graph with the rebuild (through the
// outbox and a graph writer, as in production), then times one verify and reports this process's
// peak RSS before and after it. The tenant is made here and its graph removed at the end.
// Usage: tsx bench/verify-scale.ts [--events N]   (DATABASE_URL etc. as for the suite; N 100000)
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { pendingGraphOps } from '../src/graph/graph-outbox-store.js';
import { rebuildGraph } from '../src/lifecycle/rebuild-graph.js';
import { verifyGraph } from '../src/lifecycle/verify-graph.js';
import { createTenant } from '../src/tenants/manage-tenants.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const events = arg('--events', 100_000);
const config = loadConfig(process.env);
const deps = createDeps(config, { logger: pino({ level: 'warn' }) });
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
try {
  const { tenantId } = await createTenant(deps.db, 'verify-scale');
  const scope = { tenantId, mode: 'test' as const };
  let t = Date.now();
  for (let from = 1; from <= events; from += 5000) {
    // Every event has an account (one in ten none), a phone shared by 4 accounts, a device by 3, a
    // card by 5 on checkouts.
    await deps.db.query(
      `INSERT INTO events (tenant_id, mode, id, event_type, verdict, reasons, policy_version, created_at, external_user_id, email, request, signals)
       SELECT $1, 'test', 'evt_vs' || lpad(g::text, 8, '0'), CASE WHEN g % 3 = 0 THEN 'checkout_attempt' ELSE 'signup' END, 'allow', '[]',
              '2026-11-22.1', now() - make_interval(secs => ($3 - g)), CASE WHEN g % 10 = 0 THEN NULL ELSE 'acct_' || (g / 2) END, 'u' || (g / 2) || '@shop-mail.com',
              jsonb_build_object('event_type', 'signup', 'email', 'u' || (g / 2) || '@shop-mail.com', 'identity', jsonb_build_object('phone', '+1555' || lpad((g / 8)::text, 7, '0')))
                || CASE WHEN g % 3 = 0 THEN jsonb_build_object('payment', jsonb_build_object('card_fingerprint', 'card_' || (g / 15))) ELSE '{}'::jsonb END,
              jsonb_build_object('deviceId', 'dev_' || (g / 6))
         FROM generate_series($2::int, least($2::int + 4999, $3::int)) g`,
      [tenantId, from, events],
    );
  }
  console.log(`seeded ${events} events in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  t = Date.now();
  await deps.graphWriter.start();
  const rebuilt = await rebuildGraph(deps, scope, { waitMs: 3_600_000 });
  console.log(`rebuilt ${rebuilt.events} links in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  await deps.graphWriter.stop();
  const before = process.resourceUsage().maxRSS * 1024;
  const heapBefore = process.memoryUsage().heapUsed;
  t = Date.now();
  const r = await verifyGraph(deps, scope, { limit: 10 });
  const seconds = (Date.now() - t) / 1000;
  const after = process.resourceUsage().maxRSS * 1024;
  console.log(
    JSON.stringify({ ok: r.ok, checked: r.checked, differences: r.differences.length + r.more, first: r.differences.slice(0, 3) }),
  );
  console.log(
    `verify: ${seconds.toFixed(1)} s (${Math.round(events / seconds)} events/s); peak RSS ${mb(before)} MB before, ${mb(after)} MB after (heap before ${mb(heapBefore)} MB)`,
  );
  // Clean up: the graph through the outbox, the rows by tenant.
  await deps.graphOutbox.deleteScope(deps.db, scope, new Date());
  await deps.graphWriter.start();
  while ((await pendingGraphOps(deps.db, scope)) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  await deps.db.query('DELETE FROM events WHERE tenant_id = $1', [tenantId]);
} finally {
  await deps.close();
}
