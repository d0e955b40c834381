// Prometheus metrics (prom-client), one registry per process: what the code counts as it works
// (requests, verdicts, missing signals and why DNS gave no answer, fail-opens, rate-limit
// rejections, webhook attempts, the graph writer's links) and what is read from the stores at
// scrape time (outbox depth, deliveries by state, pool usage). docs/metrics.md lists every name;
// docs/grafana-dashboard.json reads them.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MissingSignal, Reason } from '../engine/types.js';
import type { DnsFailure } from '../signals/email/dns-lookup-error.js';
import { observeStores, type ObservedStores } from './store-gauges.js';

export interface Metrics {
  registry: Registry;
  httpRequest(labels: { route: string; method: string; status: number }, seconds: number): void;
  verdictJudged(eventType: string, decision: { verdict: string; reasons: Reason[]; fault?: string }, missing: MissingSignal[]): void;
  // A verdict's MX lookup that got no answer from DNS (its dns signal missing), by why.
  dnsLookupFailed(reason: DnsFailure): void;
  rateLimited(bucket: 'key' | 'ip' | 'auth_failures'): void;
  // A verdict's cluster read, from its start to its end (past the deadline too), by outcome.
  graphRead(seconds: number, result: 'ok' | 'failed'): void;
  // A verdict refused before any work because the process is past saturation (503).
  verdictRefused(): void;
  webhookAttempt(outcome: 'delivered' | 'pending' | 'failed', createdAt: Date, now: Date): void;
  retentionDeleted(events: number): void;
  retentionScopeFailed(): void;
  // Reads the stores, pools and graph writer of these deps at each scrape.
  observe(deps: ObservedStores): void;
  // Process metrics (CPU, memory, event loop, GC): only where a metrics listener runs.
  collectProcessMetrics(): void;
}

// Seconds. Verdicts answer in milliseconds; link and delivery lags reach minutes when a store is down.
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10];
// Around the graph deadline (GRAPH_DEADLINE_MS, 250 ms by default).
const GRAPH_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5];
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600];

export function createMetrics(): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const requests = new Histogram({
    name: 'doorman_http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['route', 'method', 'status'],
    buckets: REQUEST_BUCKETS,
    registers,
  });
  const verdicts = new Counter({
    name: 'doorman_verdicts_total',
    help: 'Verdicts by event type and verdict',
    labelNames: ['event_type', 'verdict'],
    registers,
  });
  const reasons = new Counter({
    name: 'doorman_verdict_reasons_total',
    help: 'Reason codes on verdicts, by event type, verdict and code',
    labelNames: ['event_type', 'verdict', 'code'],
    registers,
  });
  const missing = new Counter({
    name: 'doorman_missing_signals_total',
    help: 'Signals a verdict was decided without, by source and cause (timeout | unavailable)',
    labelNames: ['source', 'cause'],
    registers,
  });
  const dnsFailures = new Counter({
    name: 'doorman_dns_lookup_failures_total',
    help: 'MX lookups of verdicts that got no answer from DNS, by reason (timeout | servfail | refused | unreachable | tld_missing | other)',
    labelNames: ['reason'],
    registers,
  });
  const failOpen = new Counter({
    name: 'doorman_fail_open_total',
    help: 'Verdicts that failed open because a rule or the engine threw',
    registers,
  });
  const graphReads = new Histogram({
    name: 'doorman_graph_read_seconds',
    help: "Verdicts' identity graph reads, start to end (past the graph deadline too), by result (ok | failed)",
    labelNames: ['result'],
    buckets: GRAPH_BUCKETS,
    registers,
  });
  const refused = new Counter({
    name: 'doorman_verdicts_refused_total',
    help: 'Verdict requests answered 503 before any work because the process was past saturation',
    registers,
  });
  const rateLimited = new Counter({
    name: 'doorman_rate_limited_total',
    help: 'Requests refused with 429, by bucket kind (key | ip | auth_failures)',
    labelNames: ['bucket'],
    registers,
  });
  const attempts = new Counter({
    name: 'doorman_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this process, by the state they left the delivery in',
    labelNames: ['outcome'],
    registers,
  });
  const deliveryLag = new Histogram({
    name: 'doorman_webhook_delivery_lag_seconds',
    help: 'From a resolution to its webhook delivered (2xx)',
    buckets: LAG_BUCKETS,
    registers,
  });
  const retention = new Counter({
    name: 'doorman_retention_deleted_events_total',
    help: 'Events removed by the retention job in this process',
    registers,
  });
  const retentionFailures = new Counter({
    name: 'doorman_retention_scope_failures_total',
    help: 'Scopes (tenant and mode) a retention run skipped because a batch failed',
    registers,
  });
  let processMetrics = false;
  return {
    registry,
    httpRequest: (labels, seconds) => requests.observe({ ...labels, status: String(labels.status) }, seconds),
    verdictJudged(eventType, decision, missingSignals) {
      verdicts.inc({ event_type: eventType, verdict: decision.verdict });
      for (const r of decision.reasons) reasons.inc({ event_type: eventType, verdict: decision.verdict, code: r.code });
      for (const m of missingSignals) missing.inc({ source: m.source, cause: m.reason });
      if (decision.fault) failOpen.inc();
    },
    dnsLookupFailed: (reason) => dnsFailures.inc({ reason }),
    rateLimited: (bucket) => rateLimited.inc({ bucket }),
    graphRead: (seconds, result) => graphReads.observe({ result }, seconds),
    verdictRefused: () => refused.inc(),
    webhookAttempt(outcome, createdAt, now) {
      attempts.inc({ outcome: outcome === 'pending' ? 'retrying' : outcome });
      if (outcome === 'delivered') deliveryLag.observe(Math.max(0, (now.getTime() - createdAt.getTime()) / 1000));
    },
    retentionDeleted: (events) => retention.inc(events),
    retentionScopeFailed: () => retentionFailures.inc(),
    observe: (deps) => observeStores(registry, deps, LAG_BUCKETS),
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry });
    },
  };
}
