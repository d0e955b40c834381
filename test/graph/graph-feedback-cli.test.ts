// `doorman feedback list|retract` and `doorman graph explain|recluster` as an operator runs them
// (from the sources, against the test stores): the JSON shapes of README's ops CLI table, and the
// effect of a retraction on the next verdict.
import { expect } from 'chai';
import request from 'supertest';
import { doorman } from '../support/cli-runner.js';
import { bearer } from '../support/fixtures.js';
import { aSignup, verdictHarness } from '../support/verdict-harness.js';

const json = async (...args: string[]) => {
  const { stdout, stderr, code } = await doorman(['--json', ...args]);
  expect(code, stderr).to.equal(0);
  return JSON.parse(stdout) as Record<string, unknown>;
};

describe('doorman feedback and graph explain/recluster', function () {
  this.timeout(120_000);

  it('lists feedback, explains a conviction, retracts it, and reclusters: the JSON shapes', async () => {
    const h = await verdictHarness();
    const scope = ['--tenant', h.tenant.tenantId, '--mode', 'test'];
    await h.verdict(aSignup({ external_user_id: 'cli_1', email: 'one.person@shop-mail.com' }));
    await h.verdict(aSignup({ external_user_id: 'cli_2', email: 'one.person@shop-mail.com', ip: '100.64.29.2' }));
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: 'cli_1' }, outcome: 'confirmed_abuse' })
      .expect(200);
    await h.graphSettled();
    const blocked = await h.verdict({ event_type: 'login', external_user_id: 'cli_2' });
    expect(blocked.body.verdict).to.equal('block');

    const listed = await json('feedback', 'list', ...scope, '--external-user-id', 'cli_1');
    const [row] = listed.feedback as Record<string, unknown>[];
    expect(Object.keys(row!).sort()).to.deep.equal(['created_at', 'feedback_id', 'outcome', 'retracted_at', 'subject']);
    expect(row).to.deep.include({ outcome: 'confirmed_abuse', subject: { kind: 'external_user_id', value: 'cli_1' }, retracted_at: null });

    const explained = await json('graph', 'explain', blocked.body.id, ...scope);
    expect(explained).to.deep.include({ event_id: blocked.body.id });
    expect(explained.cluster).to.deep.include({ accounts: 2 });
    expect(explained.marks).to.deep.equal([
      {
        feedback_id: row!.feedback_id,
        outcome: 'confirmed_abuse',
        subject_kind: 'account',
        marked_at: (explained.marks as { marked_at: string }[])[0]!.marked_at,
        via: ['email'],
      },
    ]);

    expect(await json('feedback', 'retract', String(row!.feedback_id), ...scope, '--note', 'wrong account')).to.deep.equal({ ok: true });
    await h.graphSettled();
    expect((await h.verdict({ event_type: 'login', external_user_id: 'cli_2' })).body.verdict).to.equal('allow');
    const after = (await json('feedback', 'list', ...scope)).feedback as { retracted_at: string | null }[];
    expect(after[0]!.retracted_at).to.be.a('string');
    expect((await json('graph', 'explain', blocked.body.id, ...scope)).marks).to.deep.equal([]);
    // A retracted report reposted is recorded again, not a duplicate.
    const reposted = await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: 'cli_1' }, outcome: 'confirmed_abuse' });
    expect(reposted.body).to.deep.equal({ ok: true });
    const again = await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'external_user_id', value: 'cli_1' }, outcome: 'confirmed_abuse' });
    expect(again.body).to.deep.equal({ ok: true, duplicate: true });
    await h.graphSettled();
    expect((await h.verdict({ event_type: 'login', external_user_id: 'cli_2' })).body.verdict).to.equal('block');

    expect(await json('graph', 'recluster', ...scope)).to.deep.equal({
      ok: true,
      clusters_before: 1,
      clusters_after: 1,
      split: 0,
      merged: 0,
    });

    const missing = await doorman(['--json', 'feedback', 'retract', 'fbk_nope', ...scope, '--note', 'x']);
    expect(missing.code).to.not.equal(0);
    expect(missing.stderr).to.match(/No feedback fbk_nope/);
  });
});
