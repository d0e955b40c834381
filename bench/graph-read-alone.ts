// The verdict's cluster read alone, from the bench process: readClusterFacts on the harness's own
// driver (rig.deps: createDeps with the service's settings, so the same pool and the same
// signal-deadline timeout as the verdict's read), at a fixed rate (open loop) for a bounded time,
// with the links the verdict would build from the bench's traffic (eventLink on the event mapped
// from each body, the device token verified and the email's domain parsed as collectSignals does,
// under the scope's policy in force). Each read is timed from its call to its settling, as the
// verdict's Server-Timing `graph` entry is; a read that fails (past its timeout) counts as failed
// and its time is kept too. No server is involved: what this measures is Neo4j and the driver.
import { newId } from '../src/db/new-id.js';
import { verifyDeviceToken } from '../src/devices/device-token.js';
import { readClusterFacts } from '../src/graph/identity-graph.js';
import { parseEmail } from '../src/signals/email/parse-email.js';
import { eventLink, type Identified } from '../src/verdicts/collect-signals.js';
import { verdictEventOf, type VerdictRequest } from '../src/verdicts/verdict-request.js';
import type { BenchRig } from './bench-rig.js';
import { durationSummary, type NextRequest } from './load-generator.js';

export interface GraphReadResult {
  label: string;
  reads: number;
  failed: number;
  // Reads not sent because too many were in flight (the bound keeps the step bounded).
  skipped: number;
  p50: number;
  p99: number;
  max: number;
  over150: number;
  over250: number;
}

// At most this many reads in flight: past it a read is skipped (and counted), not queued.
const MAX_IN_FLIGHT = 256;
// The reads still in flight when the schedule ends get this long to settle.
const SETTLE_MS = 30_000;

export async function graphReadAlone(
  rig: Pick<BenchRig, 'deps' | 'scope'>,
  label: string,
  next: NextRequest,
  rate: number,
  seconds: number,
): Promise<GraphReadResult> {
  const { deps, scope } = rig;
  await deps.policies.refresh(scope);
  const policy = await deps.policies.inForce(scope);
  const windowSeconds = policy.rules.identity_cluster?.windowSeconds;
  const total = Math.round(rate * seconds);
  // The events first (token verification is the bench process's CPU, not the read's); each link
  // is built at its send time, with that time.
  const identified: Identified[] = [];
  for (let i = 0; i < total; i++) {
    const event = verdictEventOf(JSON.parse(next().body) as VerdictRequest);
    const deviceId = event.deviceToken ? await verifyDeviceToken(deps, scope, event.deviceToken, new Date()) : undefined;
    const parsed = event.email ? parseEmail(event.email) : undefined;
    const domain = parsed?.ok && parsed.registrableDomain ? { full: parsed.asciiDomain, registrable: parsed.registrableDomain } : undefined;
    identified.push({ event, eventId: newId('evt'), deviceId, domain });
  }

  const durations: number[] = [];
  let failed = 0;
  let skipped = 0;
  let inFlight = 0;
  const pending: Promise<void>[] = [];
  const interval = 1000 / rate;
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped += 1;
      continue;
    }
    const now = new Date();
    const link = eventLink(scope, identified[i]!, now, deps.config.hubThreshold, policy);
    if (!link) continue;
    const recentSince = windowSeconds === undefined ? 0 : now.getTime() - windowSeconds * 1000;
    inFlight += 1;
    const t = performance.now();
    pending.push(
      readClusterFacts(deps.graph, deps.cypher, link, deps.config.graphDeadlineMs, { recentSince })
        .then(
          () => undefined,
          () => void (failed += 1),
        )
        .finally(() => {
          inFlight -= 1;
          durations.push(performance.now() - t);
        }),
    );
  }
  await Promise.race([Promise.allSettled(pending), new Promise((r) => setTimeout(r, SETTLE_MS).unref())]);
  const summary = durationSummary(durations);
  return {
    label,
    reads: summary.count,
    failed,
    skipped,
    p50: summary.p50,
    p99: summary.p99,
    max: summary.max,
    over150: summary.over150,
    over250: summary.over250,
  };
}
