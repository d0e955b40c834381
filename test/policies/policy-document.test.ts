// Policy documents: the published schema (ajv), every problem listed at once, the mapping to
// the engine's policy, and `doorman policy validate|show|export|schema`.
import { expect } from 'chai';
import fs from 'node:fs';
import { defaultPolicy } from '../../src/engine/policy.js';
import { defaultRules } from '../../src/engine/rule-table.js';
import { fromDocument, toDocument } from '../../src/policies/documents/policy-document.js';
import { policySchema } from '../../src/policies/documents/policy-schema.js';
import { SHIPPED_POLICIES } from '../../src/policies/documents/shipped-policies.js';
import { validatePolicyDocument } from '../../src/policies/documents/validate-policy.js';
import { aDocument, doorman, doormanJson, writeDocument } from './policy-builders.js';

describe('policy documents', function () {
  this.timeout(300_000);

  it('the shipped default is a valid document and maps back to the same policy', () => {
    const doc = toDocument(defaultPolicy);
    expect(validatePolicyDocument(doc)).to.deep.equal({ ok: true, document: doc });
    expect(fromDocument(doc, defaultPolicy.version)).to.deep.equal(defaultPolicy);
    expect(Object.keys(doc.rules).sort()).to.deep.equal(defaultRules.map((r) => r.code).sort());
    expect(doc.rules.velocity_ip_signups).to.deep.equal({
      enabled: true,
      effects: { signup: 'review' },
      over: 5,
      block_over: 20,
      window_seconds: 3600,
      corporate_domain: 1,
    });
    expect(doc.rules.identity_cluster).to.include({ min_accounts: 3, group_accounts: 6, window_seconds: 86_400 });
    expect(doc.rules.hub_confirmed_abuse).to.include({ window_seconds: 86_400 });
  });

  it('maps every shipped policy (the older ones replay stored events) to a document and back unchanged', () => {
    for (const policy of SHIPPED_POLICIES) {
      const doc = toDocument(policy);
      expect(fromDocument(doc, policy.version), policy.version).to.deep.equal(policy);
    }
  });

  it('keeps a rule that is off, and the list precedence', () => {
    const policy = fromDocument(aDocument({ proxy_ip: { enabled: false } }, { list_precedence: ['allow', 'block'] }), '2026-01-01.1');
    expect(policy.rules.proxy_ip).to.deep.include({ enabled: false });
    expect(policy.rules.tor_exit).to.not.have.property('enabled');
    expect(policy.listPrecedence).to.deep.equal(['allow', 'block']);
    expect(toDocument(policy).rules.proxy_ip!.enabled).to.equal(false);
  });

  it('lists every problem at once, each with its path', () => {
    const doc = aDocument({
      velocity_ip_signups: { over: -1 },
      proxy_ip: { effects: { login: 'deny' as never } },
      young_domain: { over: 3 },
    }) as any;
    delete doc.rules.tor_exit;
    doc.rules.made_up = { enabled: true, effects: {} };
    doc.list_precedence = ['block', 'block'];
    doc.rules.velocity_distinct_cards.window_seconds = 3600;
    doc.extra = true;
    const result = validatePolicyDocument(doc);
    expect(result.ok).to.equal(false);
    const issues = (result as { issues: { path: string; message: string }[] }).issues;
    expect(issues.map((i) => i.path).sort()).to.deep.equal([
      '/extra',
      '/list_precedence',
      '/rules/made_up',
      '/rules/proxy_ip/effects/login',
      '/rules/tor_exit',
      '/rules/velocity_distinct_cards/window_seconds',
      '/rules/velocity_ip_signups/over',
      '/rules/young_domain/over',
    ]);
    expect(issues).to.deep.include({ path: '/rules/made_up', message: 'is not a rule the engine knows' });
    expect(issues).to.deep.include({ path: '/rules/tor_exit', message: 'is required' });
    expect(issues).to.deep.include({ path: '/rules/velocity_distinct_cards/window_seconds', message: 'must be 86400' });
    expect(issues).to.deep.include({ path: '/rules/proxy_ip/effects/login', message: 'must be one of allow, review, block, info' });
  });

  it('requires a block step above the review step, and a threshold on every threshold rule', () => {
    expect(validatePolicyDocument(aDocument({ velocity_ip_signups: { over: 10, block_over: 10 } }))).to.deep.equal({
      ok: false,
      issues: [{ path: '/rules/velocity_ip_signups/block_over', message: 'must be greater than over (10)' }],
    });
    const doc = aDocument() as any;
    delete doc.rules.identity_cluster.min_accounts;
    delete doc.rules.card_probe_pattern.window_seconds;
    expect(validatePolicyDocument(doc)).to.deep.equal({
      ok: false,
      issues: [
        { path: '/rules/card_probe_pattern/window_seconds', message: 'is required' },
        { path: '/rules/identity_cluster/min_accounts', message: 'is required' },
      ],
    });
    expect(validatePolicyDocument('nope')).to.deep.include({ ok: false });
    expect(validatePolicyDocument({ ...aDocument(), format: 2 })).to.deep.equal({
      ok: false,
      issues: [{ path: '/format', message: 'must be 1' }],
    });
  });

  it('publishes its schema as docs/policy.schema.json and through the CLI', async () => {
    expect(JSON.parse(fs.readFileSync('docs/policy.schema.json', 'utf8'))).to.deep.equal(policySchema);
    const { stdout, code } = await doorman('policy', 'schema');
    expect(code).to.equal(0);
    expect(JSON.parse(stdout)).to.deep.equal(policySchema);
  });

  it('doorman policy validate: {"ok":true}, or a non-zero exit listing every problem', async () => {
    expect(await doormanJson('policy', 'validate', writeDocument(aDocument()))).to.deep.equal({ ok: true });
    const bad = await doorman(
      '--json',
      'policy',
      'validate',
      writeDocument({ ...aDocument({ datacenter_ip: { enabled: 'yes' as never } }), list_precedence: [] }),
    );
    expect(bad.code).to.equal(1);
    expect(JSON.parse(bad.stdout)).to.deep.equal({
      ok: false,
      issues: [
        { path: '/list_precedence', message: 'must NOT have fewer than 2 items' },
        { path: '/rules/datacenter_ip/enabled', message: 'must be boolean' },
      ],
    });
    expect(bad.stderr.trim().split('\n')).to.have.length(1);
    expect(bad.stderr).to.match(/2 problem\(s\).*\/list_precedence/);
    const notJson = await doorman('--json', 'policy', 'validate', writeDocument('{ nope'));
    expect(notJson.code).to.equal(1);
    expect(notJson.stderr).to.match(/is not JSON/);
  });

  it('doorman policy show and export print the shipped default without a tenant', async () => {
    const shown = await doormanJson('policy', 'show');
    expect(shown).to.deep.equal(toDocument(defaultPolicy));
    const exported = await doorman('policy', 'export');
    expect(JSON.parse(exported.stdout)).to.deep.equal(toDocument(defaultPolicy));
    expect(exported.stdout.split('\n').length).to.be.greaterThan(100);
    const missing = await doorman('--json', 'policy', 'show', '--version', '2001-01-01.1');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/No shipped policy version 2001-01-01.1/);
  });
});
