// `npm run bench:graph` (and a step of `npm run bench`): replays the synthetic population
// (population.ts) through the real HTTP API of an in-process server whose clock follows simulated
// time, in time order, and scores every decision against the truth (score.ts). Needs the local
// stack and a migrated DATABASE_URL (`bash scripts/bench.sh --graph` does both). Bounded: one
// tenant, the population's events one at a time, on loopback; its graph is deleted at the end.
// Writes bench/graph-quality/results/<label>.json. Options: --label NAME, --seed N, --scale F
// (multiplies every count of people; 0.25 for a quick run).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pino } from 'pino';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps } from '../../src/deps.js';
import { createTenant } from '../../src/tenants/manage-tenants.js';
import { startDnsStandIn } from '../../test/support/dns-stand-in.js';
import { startHttpStandIn } from '../../test/support/http-stand-in.js';
import { DEFAULT_PARAMS, generatePopulation, type PopulationParams } from './population.js';
import { score, type Decision, type Scores } from './score.js';

const log = (msg: string) => process.stderr.write(`[bench:graph] ${msg}\n`);

export interface GraphQualityResult {
  label: string;
  code: string;
  params: PopulationParams;
  people: number;
  events: number;
  feedback: number;
  seconds: number;
  scores: Scores;
}

function scaled(scale: number, seed: number): Partial<PopulationParams> {
  const n = (x: number) => Math.max(1, Math.round(x * scale));
  const p = DEFAULT_PARAMS;
  return {
    seed,
    households: n(p.households),
    offices: n(p.offices),
    kiosks: n(p.kiosks),
    hotspots: n(p.hotspots),
    loners: Math.max(400, n(p.loners)),
    rings: n(p.rings),
    takeovers: n(p.takeovers),
    teams: n(p.teams),
    families: n(p.families),
    farms: n(p.farms),
  };
}

export async function runGraphQuality(
  options: { label?: string; seed?: number; scale?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<GraphQualityResult> {
  const started = Date.now();
  const label = options.label ?? 'latest';
  const pop = generatePopulation(scaled(options.scale ?? 1, options.seed ?? 1));
  log(
    `${pop.people.length} people, ${pop.events.length} events, ${pop.feedback.length} feedback reports over ${pop.params.weeks} weeks (seed ${pop.params.seed})`,
  );

  // Every email domain of the population receives mail (the teams' company domains too).
  const domains = new Set(['example.com', ...pop.people.map((p) => p.email.split('@')[1]!)]);
  const dns = await startDnsStandIn(Object.fromEntries([...domains].map((d) => [d, { mx: [{ exchange: 'mx.bench.net', priority: 10 }] }])));
  // Every one of them registered years ago, as the registry (RDAP) would say of a mail provider's
  // or an established company's domain.
  const rdap = await startHttpStandIn((req) =>
    domains.has(req.path.replace(/^\/domain\//, ''))
      ? { status: 200, body: { objectClassName: 'domain', events: [{ eventAction: 'registration', eventDate: '2008-06-01T00:00:00Z' }] } }
      : { status: 404, body: { errorCode: 404 } },
  );
  const base = Date.parse('2026-01-05T00:00:00Z');
  let now = base;
  const clock = { now: () => new Date(now) };
  const config = loadConfig({
    ...process.env,
    ...options.env,
    DNS_SERVERS: dns.server,
    RDAP_BASE_URL: rdap.url,
    RATE_LIMIT_PER_MINUTE: '10000000',
    AUTH_FAILURES_PER_IP: '1000000',
    TRUST_PROXY: 'loopback',
    SIGNAL_DEADLINE_MS: '2000',
    // Quality, not speed: the replay drives this in-process server as fast as it answers, and a
    // verdict refused past saturation (README, "Past saturation") would be a decision not scored.
    OVERLOAD_LAG_MS: '0',
    METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
  });
  const deps = createDeps(config, { logger: pino({ level: 'warn' }), clock });
  await deps.warmup();
  await deps.graphWriter.start();
  const server = http.createServer(createApp(deps)).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tenant = await createTenant(deps.db, `graph-quality-${label}-${Date.now()}`);
  const sk = tenant.keys.sk_test;
  const post = async (route: string, key: string, body: unknown, ip?: string) => {
    const res = await fetch(`${origin}${route}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(ip && { 'x-forwarded-for': ip }) },
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${route} answered ${res.status}: ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const settle = async () => {
    for (let i = 0; i < 3000; i++) {
      const { rows } = await deps.db.query('SELECT 1 FROM graph_outbox WHERE tenant_id = $1 AND failed_at IS NULL LIMIT 1', [
        tenant.tenantId,
      ]);
      if (rows.length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the graph writer did not drain the outbox within 30 s');
  };

  const decisions: Decision[] = [];
  const eventIds = new Map<string, string>();
  const confirmations: { at: number; account: string; mistaken: boolean }[] = [];
  let f = 0;
  try {
    const sendFeedbackUntil = async (at: number) => {
      while (f < pop.feedback.length && pop.feedback[f]!.at <= at) {
        const fb = pop.feedback[f++]!;
        const value = fb.eventTag ? eventIds.get(fb.eventTag) : fb.subject.value;
        if (!value) continue;
        now = base + fb.at;
        await settle();
        await post('/v1/feedback', sk, { subject: { kind: fb.subject.kind, value }, outcome: fb.outcome });
        // Simulated time runs far faster than the writer's lag: the mark is in the graph before
        // the next event, as it would be in real time (the writer's lag is measured by the bench).
        await settle();
        if (fb.outcome === 'confirmed_abuse') confirmations.push({ at: fb.at, account: value, mistaken: fb.mistaken });
      }
    };
    for (const [i, e] of pop.events.entries()) {
      await sendFeedbackUntil(e.at);
      now = base + e.at;
      const person = pop.people[e.person]!;
      const ip = String(e.body.ip ?? person.ip);
      const body: Record<string, unknown> = { ...e.body };
      if (e.device) {
        const minted = await post('/v1/device', tenant.keys.pk_test, { components: { canvas: e.device, platform: 'bench' } }, ip);
        body.device_token = minted.device_token;
      }
      const res = await post('/v1/verdict', sk, body, ip);
      if (e.tag) eventIds.set(e.tag, String(res.id));
      decisions.push({
        person: e.person,
        at: e.at,
        eventType: String(e.body.event_type),
        attack: e.attack === true,
        verdict: String(res.verdict),
        reasons: res.reasons as Decision['reasons'],
      });
      if ((i + 1) % 2000 === 0) log(`${i + 1} of ${pop.events.length} events`);
    }
    await sendFeedbackUntil(Number.MAX_SAFE_INTEGER);
    await settle();
    const { records } = await deps.graph.executeQuery(
      `MATCH (a:Account {tenantId: $t, mode: 'test'}) OPTIONAL MATCH (a)-[:IN]->(c:Cluster) RETURN a.externalId AS account, c.id AS cluster`,
      { t: tenant.tenantId },
    );
    const clusterOf = new Map(
      records.filter((r) => r.get('cluster') !== null).map((r) => [r.get('account') as string, r.get('cluster') as string]),
    );
    const scores = score(pop, decisions, clusterOf, confirmations);
    const result: GraphQualityResult = {
      label,
      code: process.env.BENCH_CODE_LABEL ?? 'this checkout',
      params: pop.params,
      people: pop.people.length,
      events: pop.events.length,
      feedback: pop.feedback.length,
      seconds: Math.round((Date.now() - started) / 1000),
      scores,
    };
    const dir = path.resolve('bench/graph-quality/results');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${label}.json`), `${JSON.stringify(result, null, 2)}\n`);
    return result;
  } finally {
    server.close();
    await deps.graphWriter.stop();
    // The tenant's graph goes, in batches (it would slow every later run on this Neo4j).
    const session = deps.graph.session();
    try {
      await session.run('MATCH (n {tenantId: $t}) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS', { t: tenant.tenantId });
    } finally {
      await session.close();
    }
    await deps.close();
    await dns.close();
    await rdap.close();
  }
}

if (process.argv[1]?.endsWith('run-graph-quality.ts')) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const result = await runGraphQuality({
    label: arg('label'),
    seed: arg('seed') ? Number(arg('seed')) : undefined,
    scale: arg('scale') ? Number(arg('scale')) : undefined,
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
