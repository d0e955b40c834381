// End-to-end webhook latency: from a review's resolution (its commit) to the signed
// review.resolved arriving at a real local receiver, over 200 resolutions, with the job workers
// of one process picking deliveries up (NOTIFY wake-up, pg-boss polling as the safety net).
// Run: DATABASE_URL=… REDIS_URL=… npx tsx bench/webhook-latency.ts  (bounded: 200 resolutions)
import request from 'supertest';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { startWorkers } from '../src/start-workers.js';
import { resolveReview } from '../src/reviews/resolve-review.js';
import { createTenant } from '../src/tenants/manage-tenants.js';
import { setWebhook } from '../src/webhooks/manage-webhooks.js';
import { startHttpStandIn } from '../test/support/http-stand-in.js';

const RESOLUTIONS = 200;
const config = loadConfig({ ...process.env, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'warn' });
const deps = createDeps(config);
const tenant = await createTenant(deps.db, `webhook-latency-${Date.now()}`);
const scope = { tenantId: tenant.tenantId, mode: 'test' as const };
const arrived = new Map<string, number>();
const receiver = await startHttpStandIn((req) => {
  arrived.set(String(req.headers['doorman-delivery-id']), performance.now());
  return { status: 204 };
});
await setWebhook(deps, scope, `${receiver.url}/hooks`);
const workers = await startWorkers(deps);

// Reviews to resolve: a checkout with a prepaid card is reviewed by the default policy; made
// through the API like any verdict (fresh ip and card each, so no velocity rule interferes).
const app = createApp(deps);
const ids: string[] = [];
for (let i = 0; i < RESOLUTIONS; i++) {
  const res = await request(app)
    .post('/v1/verdict')
    .set('Authorization', `Bearer ${tenant.keys.sk_test}`)
    .send({
      event_type: 'checkout_attempt',
      ip: `100.64.${i >> 8}.${i & 255}`,
      payment: { card_fingerprint: `lat_${i}`, card_funding: 'prepaid', amount: 5000 },
    });
  if (res.body.verdict !== 'review') throw new Error(`expected a review, got ${JSON.stringify(res.body)}`);
  ids.push(res.body.id);
}

const sent = new Map<string, number>();
for (const eventId of ids) {
  const { deliveryId } = await resolveReview(deps, scope, { eventId, resolution: 'denied', resolvedBy: 'bench' });
  sent.set(deliveryId, performance.now());
  await new Promise((resolve) => setTimeout(resolve, 20));
}
const deadline = Date.now() + 30_000;
while (arrived.size < RESOLUTIONS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
const latencies = [...sent]
  .map(([id, at]) => (arrived.get(id) ?? NaN) - at)
  .filter(Number.isFinite)
  .sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
process.stdout.write(
  `${JSON.stringify({ resolutions: RESOLUTIONS, delivered: latencies.length, p50_ms: Number(at(0.5)), p99_ms: Number(at(0.99)), max_ms: Number(at(1)) })}\n`,
);
await workers.close();
await receiver.close();
await deps.close();
process.exit(0);
