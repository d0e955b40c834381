// GET /metrics: served on its own port and never by the API; the counters move with
// real verdicts, rate-limit rejections, graph links and webhook deliveries; the Grafana dashboard
// reads exactly the names the registry has.
import fs from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { startMetricsServer } from '../../src/metrics/metrics-server.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { resolveReview } from '../../src/reviews/resolve-review.js';
import { deliverWebhook } from '../../src/webhooks/deliver-webhook.js';
import { setWebhook } from '../../src/webhooks/manage-webhooks.js';
import { aClientIp, bearer } from '../support/fixtures.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { freePort } from '../support/processes.js';
import { rootGraphWriter } from '../support/root-hooks.js';
import { aSignup, DOMAINS, IPS, verdictHarness } from '../support/verdict-harness.js';
import { intelStatus } from '../../src/intel/intel-status.js';

// `name{labels} value` lines of an exposition, as [name+labels, value].
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_:][\w:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

const value = (all: Map<string, number>, name: string, labels: Record<string, string> = {}) => {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const [key, v] of all) {
    const [metric, rest = ''] = key.split('{');
    if (metric === name && want.every((w) => rest.includes(w))) sum += v;
  }
  return sum;
};

describe('metrics', function () {
  this.timeout(60_000);

  it('counts verdicts, reasons, missing signals, rate-limit rejections, links and deliveries, on the metrics port only', async () => {
    const port = await freePort();
    const h = await verdictHarness({
      RATE_LIMIT_PER_MINUTE: '6',
      DNS_TIMEOUT_MS: '30',
      METRICS_PORT: String(port),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      TRUST_PROXY: 'loopback',
    });
    // Keyless requests share a per-IP bucket of 6: this test's own address, not the suite's.
    const ip = aClientIp();
    const metrics = await startMetricsServer(h.deps);
    const receiver = await startHttpStandIn(() => ({ status: 200 }));
    const root = rootGraphWriter();
    await root.stop();
    await h.deps.graphWriter.start();
    try {
      const send = (body: object) => request(h.app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test)).send(body);
      expect((await send(aSignup({ external_user_id: 'm1', identity: { phone: '+1555300001' } }))).status).to.equal(200);
      const tor = await send(aSignup({ ip: IPS.tor }));
      expect(tor.body.verdict).to.equal('review');
      expect((await send(aSignup({ email: `slow@${DOMAINS.slowDns}` }))).status).to.equal(200);
      await send({ event_type: 'signup' });
      await send(aSignup());
      await send(aSignup());
      expect((await send(aSignup())).status).to.equal(429);
      await h.graphSettled();
      await setWebhook(h.deps, { tenantId: h.tenant.tenantId, mode: 'test' }, `${receiver.url}/hook`);
      const resolved = await resolveReview(
        h.deps,
        { tenantId: h.tenant.tenantId, mode: 'test' },
        { eventId: tor.body.id, resolution: 'denied', resolvedBy: 'metrics test' },
      );
      await deliverWebhook(h.deps, { deliveryId: resolved.deliveryId, attempt: 1 });

      expect((await request(h.app).get('/metrics').set('X-Forwarded-For', ip)).status).to.equal(404);
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const all = samples(await res.text());
      expect(value(all, 'doorman_verdicts_total', { event_type: 'signup' })).to.equal(5);
      expect(value(all, 'doorman_verdict_reasons_total', { event_type: 'signup', verdict: 'review', code: 'tor_exit' })).to.equal(1);
      // The held DNS answer times out; on a loaded machine another lookup may too.
      expect(value(all, 'doorman_missing_signals_total', { source: 'dns', cause: 'timeout' })).to.be.at.least(1);
      expect(value(all, 'doorman_rate_limited_total', { bucket: 'key' })).to.equal(1);
      expect(value(all, 'doorman_http_request_duration_seconds_count', { route: '/v1/verdict', method: 'POST', status: '200' })).to.equal(
        5,
      );
      expect(value(all, 'doorman_http_request_duration_seconds_count', { route: '/v1/verdict', status: '400' })).to.equal(1);
      expect(value(all, 'doorman_http_request_duration_seconds_count', { route: '/v1/verdict', status: '429' })).to.equal(1);
      expect(value(all, 'doorman_fail_open_total')).to.equal(0);
      expect(value(all, 'doorman_graph_links_applied_total')).to.be.at.least(5);
      expect(value(all, 'doorman_graph_link_lag_seconds_count')).to.equal(value(all, 'doorman_graph_links_applied_total'));
      expect(value(all, 'doorman_graph_writer_lanes')).to.equal(16);
      expect(all.has('doorman_graph_outbox_depth')).to.equal(true);
      expect(value(all, 'doorman_webhook_attempts_total', { outcome: 'delivered' })).to.equal(1);
      expect(value(all, 'doorman_webhook_delivery_lag_seconds_count')).to.equal(1);
      expect(value(all, 'doorman_webhook_deliveries', { state: 'delivered' })).to.be.at.least(1);
      expect(value(all, 'doorman_postgres_pool_connections', { state: 'total' })).to.be.at.least(1);
      expect(
        value(all, 'doorman_neo4j_pool_connections', { state: 'idle' }) + value(all, 'doorman_neo4j_pool_connections', { state: 'in_use' }),
      ).to.be.at.least(1);
      expect(value(all, 'doorman_redis_connected')).to.equal(1);
      expect(all.has('process_cpu_user_seconds_total')).to.equal(true);
    } finally {
      await h.deps.graphWriter.stop();
      await root.start();
      await Promise.all([metrics.close(), receiver.close()]);
    }
  });

  it('has a Grafana dashboard that reads exactly the names the registry exposes', async () => {
    const telemetry = createMetrics();
    const h = await verdictHarness();
    telemetry.observe({ ...h.deps, intelStatus: () => intelStatus(h.deps) });
    telemetry.collectProcessMetrics();
    const registered = new Set((await telemetry.registry.getMetricsAsJSON()).map((m) => m.name));
    const dashboard = JSON.parse(fs.readFileSync('docs/grafana-dashboard.json', 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const read = new Set(
      dashboard.panels
        .flatMap((p) => p.targets.flatMap((t) => t.expr.match(/\b(?:doorman|process|nodejs)_[a-z0-9_]+/g) ?? []))
        .map((name) => name.replace(/_(bucket|count|sum)$/, '')),
    );
    expect(
      [...read].filter((name) => !registered.has(name)),
      'read by the dashboard, missing from the registry',
    ).to.deep.equal([]);
    expect(
      [...registered].filter((name) => name.startsWith('doorman_') && !read.has(name)),
      'in the registry, on no panel',
    ).to.deep.equal([]);
    const documented = fs.readFileSync('docs/metrics.md', 'utf8');
    expect(
      [...registered].filter((name) => name.startsWith('doorman_') && !documented.includes(`\`${name}\``)),
      'undocumented',
    ).to.deep.equal([]);
  });
});
