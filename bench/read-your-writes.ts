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

async function verdict(origin: string, key: string, body: object): Promise<{ id: string; reasons: { code: string; detail?: Record<string, number> }[] }> {
  const res = await fetch(`${origin}/v1/verdict`, {
    method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`probe verdict answered ${res.status}`);
  return (await res.json()) as never;
}

async function appliedAfter(graph: Driver, scope: { tenantId: string; mode: string }, eventId: string, timeoutMs: number): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const { records } = await graph.executeQuery(
      'MATCH (e:Event {tenantId: $tenantId, mode: $mode, id: $id}) RETURN count(e) AS n',
      { ...scope, id: eventId }, { routing: neo4j.routing.READ },
    );
    if (Number(records[0]?.get('n')) > 0) return performance.now() - started;
    await sleep(5);
  }
  return undefined;
}

export async function probeReadYourWrites(
  origin: string, key: string, graph: Driver, scope: { tenantId: string; mode: string }, pairsPerSecond: number, seconds: number,
): Promise<ProbeResult> {
  const runId = Date.now().toString(36);
  const lags: number[] = [];
  let seen = 0;
  let unapplied = 0;
  const pairs: Promise<void>[] = [];
  const total = Math.round(pairsPerSecond * seconds);
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = started + (i * 1000) / pairsPerSecond - performance.now();
    if (wait > 1) await sleep(wait);
    pairs.push((async () => {
      const phone = `+1777${runId}${i}`;
      const ip = `100.127.${i % 250}.${1 + (i % 200)}`;
      const a = await verdict(origin, key, { event_type: 'signup', external_user_id: `probeA_${runId}_${i}`, email: `pa${i}.${runId}@bench-corp-1.com`, ip, identity: { phone } });
      const lag = appliedAfter(graph, scope, a.id, 5_000);
      await sleep(100);
      const b = await verdict(origin, key, { event_type: 'signup', external_user_id: `probeB_${runId}_${i}`, email: `pb${i}.${runId}@bench-corp-1.com`, ip, identity: { phone } });
      if (b.reasons.some((r) => r.code === 'identity_cluster' && r.detail?.linked_accounts === 2)) seen += 1;
      const ms = await lag;
      if (ms === undefined) unapplied += 1;
      else lags.push(ms);
    })().catch(() => { unapplied += 1; }));
  }
  await Promise.all(pairs);
  lags.sort((x, y) => x - y);
  const at = (q: number) => Math.round((lags[Math.min(lags.length - 1, Math.floor(q * lags.length))] ?? NaN) * 10) / 10;
  return { pairs: total, seen, seenPercent: Math.round((seen / total) * 1000) / 10, lagP50: at(0.5), lagP99: at(0.99), lagMax: at(1), unapplied };
}
