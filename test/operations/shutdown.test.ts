// SIGTERM during traffic: the server stops accepting, answers what is in flight,
// flushes its graph writer and exits 0; every event it answered 200 for is stored and linked.
// The test process's own graph writer is stopped meanwhile, so the links found can only have
// been applied by the server before it exited.
import { expect } from 'chai';
import { aTenant, bearer } from '../support/fixtures.js';
import { openLoop } from '../support/scheduled-load.js';
import { startServer } from '../support/processes.js';
import { rootGraphWriter } from '../support/root-hooks.js';
import { testDeps } from '../support/test-deps.js';
import { DOMAINS, IPS, standIns } from '../support/verdict-harness.js';

describe('SIGTERM', function () {
  this.timeout(90_000);

  before(async () => rootGraphWriter().stop());
  after(async () => rootGraphWriter().start());

  it('answers in-flight verdicts during 100 req/s, flushes the graph writer and exits 0', async () => {
    const deps = testDeps();
    const tenant = await aTenant(deps);
    const { dns, intelDir } = await standIns();
    // DNS answers for the slow domain take 2 s and the server waits up to 1.5 s for them: a
    // verdict sent half a second before SIGTERM is certainly still in flight when it arrives.
    const server = await startServer({
      DNS_SERVERS: dns.server,
      INTEL_DIR: intelDir,
      RATE_LIMIT_PER_MINUTE: '1000000',
      SIGNAL_DEADLINE_MS: '2000',
      DNS_TIMEOUT_MS: '1500',
    });
    let signalledAt = 0;
    let inFlight: Promise<{ sentAt: number; status: number; answeredAt: number }> | undefined;
    const slowTimer = setTimeout(() => {
      const sentAt = Date.now();
      inFlight = fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
        method: 'POST',
        headers: { ...bearer(tenant.keys.sk_test), 'Content-Type': 'application/json' },
        body: JSON.stringify({ event_type: 'signup', email: `slow@${DOMAINS.slowDns}`, ip: IPS.clean, external_user_id: 'sig_slow' }),
      }).then((r) => ({ sentAt, status: r.status, answeredAt: Date.now() }));
    }, 1000);
    // SIGTERM half a second after the slow verdict was sent, once the server is working on it (its
    // DNS query has reached the stand-in): on a busy machine the request may still be on its way.
    const slowQueries = dns.queryCount(DOMAINS.slowDns);
    let timer = setTimeout(function signal() {
      if (dns.queryCount(DOMAINS.slowDns) === slowQueries) {
        timer = setTimeout(signal, 10);
        return;
      }
      signalledAt = Date.now();
      process.kill(server.pid, 'SIGTERM');
    }, 1500);
    const results = await openLoop(100, 3, (i) =>
      fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
        method: 'POST',
        headers: { ...bearer(tenant.keys.sk_test), 'Content-Type': 'application/json' },
        body: JSON.stringify({
          event_type: 'signup',
          email: `sig${i}@${DOMAINS.good}`,
          ip: IPS.clean,
          external_user_id: `sig_user_${i}`,
          identity: { phone: `+1555100${String(i).padStart(4, '0')}` },
        }),
      }),
    );
    clearTimeout(timer);
    clearTimeout(slowTimer);
    const slow = await inFlight!;
    const code = await Promise.race([server.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000))]);
    expect(code).to.equal(0);

    const ok = results.filter((r) => r.status === 200).map((r) => JSON.parse(r.body!).id as string);
    // Every answer is a 200; a request either got one or a connection error (refused after the
    // listener closed, or reset when sent on a keep-alive socket as the server closed it).
    expect(results.filter((r) => r.status !== undefined && r.status !== 200).map((r) => r.status)).to.deep.equal([]);
    expect(ok.length).to.be.greaterThan(0);
    expect(slow.sentAt, 'the slow verdict was sent before SIGTERM').to.be.below(signalledAt);
    expect(slow.answeredAt, 'and answered after it').to.be.above(signalledAt);
    expect(slow.status, 'a request in flight at SIGTERM was answered').to.equal(200);
    expect(
      results.some((r) => r.sentAt > signalledAt + 500 && r.status === undefined),
      'new requests were refused',
    ).to.equal(true);
    const stored = await deps.db.query('SELECT id FROM events WHERE tenant_id = $1 AND mode = $2 AND id = ANY($3)', [
      tenant.tenantId,
      'test',
      ok,
    ]);
    expect(stored.rowCount).to.equal(ok.length);
    // Linked already, before anyone else could apply them: the server flushed its lanes.
    const waiting = await deps.db.query('SELECT count(*)::int AS n FROM graph_outbox WHERE tenant_id = $1', [tenant.tenantId]);
    expect(waiting.rows[0].n).to.equal(0);
    const { records } = await deps.graph.executeQuery(
      'MATCH (e:Event {tenantId: $t, mode: "test"})-[:BY]->(:Account) WHERE e.id IN $ids RETURN count(e) AS n',
      { t: tenant.tenantId, ids: ok },
    );
    expect(records[0]!.get('n')).to.equal(ok.length);
  });
});
