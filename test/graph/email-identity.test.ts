// One email normaliser (signals/email/normalize-email.ts: emailIdentity) for every room: the
// spellings of one mailbox are one identifier in the graph and one entry on a list, whichever
// room saw them, so a drift cannot split one person into two identities or let an address slip
// past a block list, or a backtest miss the feedback about them.
import { expect } from 'chai';
import { changeList } from '../../src/lists/manage-lists.js';
import { loadLabels } from '../../src/policies/backtests/backtest-labels.js';
import { aSignup, codes, verdictHarness, type Harness } from '../support/verdict-harness.js';
import { noteGraphScope } from '../support/graph-scopes.js';

// One mailbox, as people type it: case, surrounding spaces, Gmail's dots and plus tags.
const SPELLINGS = ['jane.doe@gmail.com', '  Jane.Doe+promo@GMail.com', 'JANEDOE@gmail.com ', 'j.a.n.e.d.o.e+x@googlemail.com'];

describe('one email normaliser for the graph, lists and feedback', function () {
  this.timeout(30_000);
  let h: Harness;
  before(async () => {
    h = await verdictHarness();
  });

  it('links every spelling of one address to one email identifier in the graph', async () => {
    for (const [i, email] of SPELLINGS.entries()) await h.verdict(aSignup({ email, external_user_id: `jane_${i}` }));
    await h.graphSettled();
    const { records } = await h.deps.graph.executeQuery(`MATCH (e:Email {tenantId: $tenantId, mode: 'test'}) RETURN e.value AS value`, {
      tenantId: h.tenant.tenantId,
    });
    expect(records.map((r) => r.get('value'))).to.deep.equal(['janedoe@gmail.com']);
  });

  it('keeps one list entry for every spelling, and blocks each spelling with it', async () => {
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    for (const value of SPELLINGS) await changeList(h.deps.db, scope, { action: 'add', list: 'block', kind: 'email', value });
    const { rows } = await h.deps.db.query(`SELECT value FROM list_entries WHERE tenant_id = $1 AND mode = 'test' AND kind = 'email'`, [
      scope.tenantId,
    ]);
    expect(rows).to.deep.equal([{ value: 'janedoe@gmail.com' }]);
    for (const email of SPELLINGS) {
      const res = await h.verdict(aSignup({ email }));
      expect(res.body.verdict, email).to.equal('block');
      expect(codes(res), email).to.include('blocklisted');
    }
    // Removing by another spelling removes the one entry.
    await changeList(h.deps.db, scope, { action: 'remove', list: 'block', kind: 'email', value: SPELLINGS[3]! });
    expect(codes(await h.verdict(aSignup({ email: SPELLINGS[1] })))).to.not.include('blocklisted');
  });

  it('labels, for a backtest, every spelling of an address that feedback was given about', async () => {
    const scope = { tenantId: h.tenant.tenantId, mode: 'test' as const };
    await noteGraphScope(h.deps.db, scope.tenantId, { drift: 'feedback written straight into Postgres, past its graph mark' });
    await h.deps.db.query(
      `INSERT INTO feedback (tenant_id, mode, subject_kind, subject_value, outcome) VALUES ($1, 'test', 'email', $2, 'confirmed_abuse')`,
      [scope.tenantId, SPELLINGS[1]],
    );
    const labelOf = await loadLabels(h.deps.db, scope);
    for (const email of SPELLINGS)
      expect(labelOf({ id: 'evt_none', email, signals: { eventType: 'signup', missing: [] } }), email).to.equal('abusive');
    expect(labelOf({ id: 'evt_none', email: 'someone.else@gmail.com', signals: { eventType: 'signup', missing: [] } })).to.equal(undefined);
  });
});
