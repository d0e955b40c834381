// Read-your-writes and link lag, measured from outside while the service is under load: a probe
// sends an event A (a new account with a new phone), polls Neo4j until A's link is applied
// (link lag: from A's answer to the link being visible), and sends event B (another new account
// with the same phone) 100 ms after A's answer: B sees A's link when it reports
// identity_cluster with linked_accounts 2. Bounded in pairs and time; loopback only.
import type { Driver } from 'neo4j-driver';
import neo4j from 'neo4j-driver';

export interface ProbeResult {
  pairs: number;
  seen: number;
  seenPercent: number;
  lagP50: number;
  lagP99: number;
  lagMax: number;
  unapplied: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function verdict(
  origin: string,
  key: string,
  body: object,
): Promise<{ id: string; reasons: { code: string; detail?: Record<string, number> }[] }> {
  const res = await fetch(`${origin}/v1/verdict`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`probe verdict answered ${res.status}`);
  return (await res.json()) as never;
}

// One watcher per probe: every 20 ms, one query asks Neo4j which of the pending events exist, so
// the probe adds at most 50 small reads a second however far the writer falls behind (polling
// each event on its own every few milliseconds would itself load Neo4j as the lag grows).
const POLL_MS = 20;
function linkWatcher(graph: Driver, scope: { tenantId: string; mode: string }) {
  const pending = new Map<string, { started: number; deadline: number; done: (ms: number | undefined) => void }>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped || pending.size > 0) {
      await sleep(POLL_MS);
      if (pending.size === 0) continue;
      const { records } = await graph
        .executeQuery(
          'MATCH (e:Event {tenantId: $tenantId, mode: $mode}) WHERE e.id IN $ids RETURN e.id AS id',
          { ...scope, ids: [...pending.keys()] },
          { routing: neo4j.routing.READ },
        )
        .catch(() => ({ records: [] as { get(k: string): unknown }[] }));
      const now = performance.now();
      for (const r of records) {
        const id = String(r.get('id'));
        const p = pending.get(id);
        if (p) {
          pending.delete(id);
          p.done(now - p.started);
        }
      }
      for (const [id, p] of pending)
        if (now > p.deadline) {
          pending.delete(id);
          p.done(undefined);
        }
    }
  })();
  return {
    appliedAfter(eventId: string, timeoutMs: number): Promise<number | undefined> {
      const started = performance.now();
      return new Promise((done) => pending.set(eventId, { started, deadline: started + timeoutMs, done }));
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export async function probeReadYourWrites(
  origin: string,
  key: string,
  graph: Driver,
  scope: { tenantId: string; mode: string },
  pairsPerSecond: number,
  seconds: number,
): Promise<ProbeResult> {
  const runId = Date.now().toString(36);
  const lags: number[] = [];
  let seen = 0;
  let unapplied = 0;
  const pairs: Promise<void>[] = [];
  const total = Math.round(pairsPerSecond * seconds);
  const watcher = linkWatcher(graph, scope);
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / pairsPerSecond - performance.now();
    if (wait > 1) await sleep(wait);
    pairs.push(
      (async () => {
        const phone = `+1777${runId}${i}`;
        const ip = `100.127.${i % 250}.${1 + (i % 200)}`;
        const a = await verdict(origin, key, {
          event_type: 'signup',
          external_user_id: `probeA_${runId}_${i}`,
          email: `pa${i}.${runId}@bench-corp-1.com`,
          ip,
          identity: { phone },
        });
        const lag = watcher.appliedAfter(a.id, 5_000);
        await sleep(100);
        const b = await verdict(origin, key, {
          event_type: 'signup',
          external_user_id: `probeB_${runId}_${i}`,
          email: `pb${i}.${runId}@bench-corp-1.com`,
          ip,
          identity: { phone },
        });
        if (b.reasons.some((r) => r.code === 'identity_cluster' && r.detail?.linked_accounts === 2)) seen += 1;
        const ms = await lag;
        if (ms === undefined) unapplied += 1;
        else lags.push(ms);
      })().catch(() => {
        unapplied += 1;
      }),
    );
  }
  await Promise.all(pairs);
  await watcher.stop();
  lags.sort((x, y) => x - y);
  const at = (q: number) => Math.round((lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN) * 10) / 10;
  return {
    pairs: total,
    seen,
    seenPercent: Math.round((seen / total) * 1000) / 10,
    lagP50: at(0.5),
    lagP99: at(0.99),
    lagMax: at(1),
    unapplied,
  };
}
