// OpenTelemetry: with OTEL_EXPORTER_OTLP_ENDPOINT a verdict is one trace holding the
// HTTP, the route's (Express's, or the verdict route's own), Postgres, Redis and Neo4j spans, sent over OTLP/HTTP to a real local receiver;
// without it the process loads no OpenTelemetry SDK at all.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { aTenant, bearer } from '../support/fixtures.js';
import { startHttpStandIn } from '../support/http-stand-in.js';
import { startServer, until } from '../support/processes.js';
import { testDeps, testEnv } from '../support/test-deps.js';
import { DOMAINS, standIns } from '../support/verdict-harness.js';

const run = promisify(execFile);

interface OtlpSpan {
  traceId: string;
  name: string;
  scope: string;
}

function spansOf(bodies: string[]): OtlpSpan[] {
  return bodies.flatMap((b) =>
    (JSON.parse(b).resourceSpans ?? []).flatMap(
      (rs: { scopeSpans: { scope: { name: string }; spans: { traceId: string; name: string }[] }[] }) =>
        rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ traceId: s.traceId, name: s.name, scope: ss.scope.name }))),
    ),
  );
}

describe('OpenTelemetry traces', function () {
  this.timeout(90_000);

  it("sends one trace per verdict with HTTP, the verdict route's, Postgres, Redis and Neo4j spans when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    const receiver = await startHttpStandIn(() => ({ status: 200, body: {} }));
    const { dns, intelDir } = await standIns();
    const server = await startServer({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: '200',
      DNS_SERVERS: dns.server,
      INTEL_DIR: intelDir,
    });
    try {
      const tenant = await aTenant(testDeps());
      const res = await fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
        method: 'POST',
        headers: { ...bearer(tenant.keys.sk_test), 'Content-Type': 'application/json' },
        body: JSON.stringify({
          event_type: 'signup',
          email: `traced@${DOMAINS.good}`,
          ip: '100.64.95.1',
          external_user_id: 'traced',
          identity: { phone: '+15559500001' },
        }),
      });
      expect(res.status).to.equal(200);
      const trace = await until(
        "the verdict's trace",
        async () => {
          const spans = spansOf(receiver.requests.filter((r) => r.path === '/v1/traces').map((r) => r.body));
          const root = spans.find((s) => s.scope === '@opentelemetry/instrumentation-http' && /POST/.test(s.name));
          if (!root) return undefined;
          const mine = spans.filter((s) => s.traceId === root.traceId);
          const scopes = new Set(mine.map((s) => s.scope));
          // The verdict's route is served ahead of Express (src/verdicts/verdict-routes.ts): its
          // span is the route's own.
          return ['doorman-http', '@opentelemetry/instrumentation-pg', '@opentelemetry/instrumentation-ioredis', 'doorman-neo4j'].every(
            (x) => scopes.has(x),
          )
            ? mine
            : undefined;
        },
        30_000,
      );
      expect(trace.map((s) => s.name)).to.include.members(['neo4j graph/read-cluster', 'route /v1/verdict']);
      expect(receiver.requests.every((r) => r.path === '/v1/traces')).to.equal(true);
    } finally {
      await server.stop();
      await receiver.close();
    }
  });

  it('loads no OpenTelemetry SDK or instrumentation when the variable is not set', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-modules-'));
    const loaded = async (extra: Record<string, string>) => {
      const file = path.join(dir, `${Object.keys(extra).length}.json`);
      const { OTEL_EXPORTER_OTLP_ENDPOINT: _unset, ...env } = testEnv;
      await run('node', ['bin/doorman.js', 'tenant', 'create', '--name', 'otel-check', '--json'], {
        env: {
          ...env,
          DOORMAN_FROM_SOURCE: '1',
          LOG_LEVEL: 'warn',
          NODE_OPTIONS: `--require ${path.resolve('test/support/report-modules.cjs')}`,
          REPORT_MODULES_FILE: file,
          ...extra,
        },
        timeout: 60_000,
      });
      return (JSON.parse(fs.readFileSync(file, 'utf8')) as string[]).filter(
        (p) => p.includes(`${path.sep}@opentelemetry${path.sep}`) && !p.includes(`${path.sep}api${path.sep}`),
      );
    };
    try {
      expect(await loaded({})).to.deep.equal([]);
      // The check can see them: with the variable, the SDK is there.
      expect((await loaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' })).some((p) => p.includes('sdk-node'))).to.equal(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
