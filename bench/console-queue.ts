// The analyst console's queue page with 10,000 pending reviews: the page (its HTML shell) and the
// call that fills it (GET /console/api/reviews?limit=50: the oldest 50, the backlog count and the
// oldest age), 200 times each over HTTP on a real port, after 10 warm-up rounds. Server time is
// the Server-Timing `total` of the reviews call (the handler, from query to JSON); wall time is
// what the client waited, the session lookup included.
// Run: DATABASE_URL=… REDIS_URL=… npx tsx bench/console-queue.ts  (bounded: 210 rounds)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { anAnalyst } from '../test/support/console-session.js';
import { seedPendingReviews } from '../test/support/pending-reviews.js';

const PENDING = 10_000;
const ROUNDS = 200;
const deps = createDeps(loadConfig({ ...process.env, LOG_LEVEL: 'warn' }));
const app = createApp(deps);
const tenant = await createTenant(deps.db, `console-queue-${Date.now()}`);
await seedPendingReviews(deps.db, tenant.tenantId, PENDING);
const analyst = await anAnalyst(deps, app, tenant.tenantId);
const server = http.createServer(app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

async function get(path: string): Promise<{ ms: number; timing: string; body: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { agent, headers: { cookie: analyst.cookie } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ ms: performance.now() - started, timing: String(res.headers['server-timing'] ?? ''), body }));
      })
      .on('error', reject);
  });
}

const series = { server: [] as number[], db: [] as number[], apiWall: [] as number[], pageWall: [] as number[] };
for (let i = 0; i < ROUNDS + 10; i++) {
  const api = await get('/console/api/reviews?limit=50');
  const page = await get('/console/queue');
  if (i === 0 && JSON.parse(api.body).pending !== PENDING) throw new Error(`expected ${PENDING} pending: ${api.body.slice(0, 200)}`);
  if (i < 10) continue;
  series.server.push(Number(/total;dur=([\d.]+)/.exec(api.timing)![1]));
  series.db.push(Number(/db;dur=([\d.]+)/.exec(api.timing)![1]));
  series.apiWall.push(api.ms);
  series.pageWall.push(page.ms);
}
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * p) - 1]!.toFixed(1);
console.log(`queue with ${PENDING} pending reviews, ${ROUNDS} rounds (ms)     p50    p95    p99`);
for (const [name, xs] of Object.entries({
  'reviews API, server time (Server-Timing total)': series.server,
  '  of which the two queries (db)': series.db,
  'reviews API, wall time (session lookup included)': series.apiWall,
  'queue page (HTML shell), wall time': series.pageWall,
}))
  console.log(`${name.padEnd(50)} ${pct(xs, 0.5).padStart(6)} ${pct(xs, 0.95).padStart(6)} ${pct(xs, 0.99).padStart(6)}`);
agent.destroy();
server.close();
await deps.close();
