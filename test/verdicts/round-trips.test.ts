// The verdict's cost in Postgres round trips: keys and lists answered from memory kept
// current by Postgres announcements, the write checking for waiting links itself. Counted on the
// real pool, through a proxy that notes each statement the request sends.
import { expect } from 'chai';
import type pg from 'pg';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import type { Deps } from '../../src/deps.js';
import { createListDirectory, type ListDirectory } from '../../src/lists/list-directory.js';
import { changeList } from '../../src/lists/manage-lists.js';
import { createKeyDirectory, type KeyDirectory } from '../../src/tenants/key-directory.js';
import { bearer } from '../support/fixtures.js';
import { until } from '../support/processes.js';
import { rootGraphWriter } from '../support/root-hooks.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/tcp-fault-proxy.js';
import { aSignup, DOMAINS, verdictHarness, type Harness } from '../support/verdict-harness.js';

type Reason = { code: string; detail?: Record<string, unknown> };

describe("the verdict's Postgres round trips", function () {
  this.timeout(60_000);
  let h: Harness;
  let statements: string[] = [];
  let app: ReturnType<typeof createApp>;
  let keys: KeyDirectory;
  let lists: ListDirectory;
  // The directories' announcements connections (DATABASE_DIRECT_URL) run through it.
  let proxy: TcpFaultProxy;
  const watches: { close(): Promise<void> }[] = [];

  before(async () => {
    h = await verdictHarness();
    // The real pool, noting each statement (its name, or its first words) sent through it.
    const db = new Proxy(h.deps.db, {
      get(target, prop, receiver) {
        if (prop !== 'query') return Reflect.get(target, prop, receiver);
        return (...args: unknown[]) => {
          const q = args[0] as string | { name?: string; text: string };
          statements.push(
            typeof q === 'string'
              ? q.trim().split(/\s+/).slice(0, 3).join(' ')
              : (q.name ?? q.text.trim().split(/\s+/).slice(0, 3).join(' ')),
          );
          return (target.query as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as pg.Pool;
    keys = createKeyDirectory(db);
    lists = createListDirectory(db);
    const direct = new URL(h.deps.config.databaseDirectUrl);
    proxy = await startTcpFaultProxy(Number(direct.port || 5432), direct.hostname === 'localhost' ? '127.0.0.1' : direct.hostname);
    direct.hostname = '127.0.0.1';
    direct.port = String(proxy.port);
    const watching = { ...h.deps, config: { ...h.deps.config, databaseDirectUrl: direct.toString() } };
    watches.push(keys.watch(watching), lists.watch(watching));
    await Promise.all([keys.whenLoaded(10_000), lists.whenLoaded(10_000)]);
    expect([keys.trusted(), lists.trusted()]).to.deep.equal([true, true]);
    app = createApp({ ...h.deps, db, keys, lists } as Deps);
  });
  after(async () => {
    await Promise.all(watches.map((w) => w.close()));
    await proxy.close();
  });

  const screen = async (body: object, idempotencyKey?: string) => {
    statements = [];
    const r = request(app).post('/v1/verdict').set(bearer(h.tenant.keys.sk_test));
    const res = await (idempotencyKey ? r.set('Idempotency-Key', idempotencyKey) : r).send(body).expect(200);
    return { res, statements: [...statements] };
  };

  it('makes one round trip without an Idempotency-Key (the write) and two with one (the lookup, the write)', async () => {
    expect((await screen(aSignup())).statements).to.deep.equal(['write-judged-event']);
    const key = `rt-${Date.now()}`;
    const body = aSignup();
    expect((await screen(body, key)).statements).to.deep.equal(['find-idempotency-answer', 'write-judged-event']);
    // A replay reads its answer and writes nothing.
    expect((await screen(body, key)).statements).to.deep.equal(['find-idempotency-answer']);
  });

  it('matches the lists from memory: an entry added by another process is seen within a second, without a read', async () => {
    const blocked = `listed.${Date.now()}@${DOMAINS.good}`;
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    const added = Date.now();
    await changeList(h.deps.db, scope, { action: 'add', list: 'block', kind: 'email', value: blocked });
    const seen = await until(
      'the entry in memory',
      async () => ((await lists.match(scope, [{ kind: 'email', value: blocked }])).length > 0 ? Date.now() : undefined),
      5_000,
    );
    expect(seen - added).to.be.below(1_000);
    const { res, statements: sent } = await screen(aSignup({ email: blocked }));
    expect(res.body.verdict).to.equal('block');
    expect((res.body.reasons as Reason[]).map((r) => r.code)).to.include('blocklisted');
    expect(sent).to.deep.equal(['write-judged-event']);
    await changeList(h.deps.db, scope, { action: 'remove', list: 'block', kind: 'email', value: blocked });
    await until(
      'the entry gone from memory',
      async () => ((await lists.match(scope, [{ kind: 'email', value: blocked }])).length === 0 ? true : undefined),
      5_000,
    );
    expect((await screen(aSignup({ email: blocked }))).res.body.verdict).to.equal('allow');
  });

  it('stops trusting its memory when its announcements connection is lost, and trusts it again once reconnected and reloaded', async () => {
    // Both connections cut, and every reconnection refused until restored: the request below
    // runs wholly while the memory cannot be trusted, however slow the machine.
    proxy.cut();
    await until('memory no longer trusted', async () => (!keys.trusted() && !lists.trusted() ? true : undefined), 5_000);
    // Meanwhile each lookup reads Postgres.
    const { statements: sent } = await screen(aSignup());
    expect(sent).to.deep.equal(['find-key', 'match-lists', 'write-judged-event']);
    proxy.restore();
    await until('memory trusted again', async () => (keys.trusted() && lists.trusted() ? true : undefined), 15_000);
    expect((await screen(aSignup())).statements).to.deep.equal(['write-judged-event']);
  });

  it('writes once when the joining link was applied before the graph read (it is kept a minute, and the read saw it)', async () => {
    const phone = `+1554${String(Date.now()).slice(-7)}`;
    await screen(aSignup({ external_user_id: `rt_c_${phone}`, identity: { phone } }));
    await h.graphSettled();
    const { rows } = await h.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM graph_applied_links WHERE tenant_id = $1 AND account = $2`,
      [h.tenant.tenantId, `rt_c_${phone}`],
    );
    expect(rows[0]!.n, 'the applied link is kept').to.equal(1);
    const other = await screen(aSignup({ external_user_id: `rt_d_${phone}`, identity: { phone } }));
    expect(other.statements).to.deep.equal(['write-judged-event']);
    const cluster = (other.res.body.reasons as Reason[]).find((r) => r.code === 'identity_cluster');
    expect(cluster?.detail?.linked_accounts).to.equal(2);
  });

  describe('with links waiting in the outbox (no graph writer running)', () => {
    before(async () => rootGraphWriter().stop());
    after(async () => rootGraphWriter().start());

    it('writes once when no waiting link joins, and reads the graph again when one does: the second account is counted', async () => {
      const phone = `+1555${String(Date.now()).slice(-7)}`;
      const user = aSignup({ external_user_id: `rt_a_${phone}`, identity: { phone } });
      const first = await screen(user);
      expect(first.statements).to.deep.equal(['write-judged-event']);
      // The same user again (same email, same phone): its own waiting link brings nothing new.
      const again = await screen(user);
      expect(again.statements).to.deep.equal(['write-judged-event']);
      // Another account on the phone: the write finds the first link waiting, writes nothing,
      // and the verdict is decided again with it folded into the graph read.
      const other = await screen(aSignup({ external_user_id: `rt_b_${phone}`, identity: { phone } }));
      expect(other.statements).to.deep.equal(['write-judged-event', 'write-judged-event']);
      expect(other.res.headers['server-timing']).to.match(/graph_fresh;dur=/);
      const cluster = (other.res.body.reasons as Reason[]).find((r) => r.code === 'identity_cluster');
      expect(cluster?.detail?.linked_accounts).to.equal(2);
      const { rows } = await h.deps.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE tenant_id = $1 AND external_user_id = $2`,
        [h.tenant.tenantId, `rt_b_${phone}`],
      );
      expect(rows[0]!.n).to.equal(1);
    });
  });
});
