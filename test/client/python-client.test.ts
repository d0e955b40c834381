// The Python client (clients/python) against the real service: mypy --strict, then its pytest
// suite (every shared test vector from clients/test-vectors/, then its integration tests against a
// real `doorman serve` with the control server and flaky proxy: the README's example, fail-open,
// retries across a 503, idempotent replay, a webhook verified during a rotation); and its
// generated types against the served document, the check shown to fail on a changed one.
import { expect } from 'chai';
import { type ClientRun, runCommand, startClientRun } from '../support/other-client-run.js';

describe('client: Python (clients/python) against the real service', function () {
  this.timeout(600_000);
  let run: ClientRun;
  before(async () => {
    run = await startClientRun();
  });
  after(() => run?.close());

  it('passes mypy --strict and its pytest suite: every shared vector, then the integration tests against the real server', async () => {
    const env = await run.integrationEnv();
    const { code, output } = await runCommand('bash', ['clients/python/scripts/check.sh', run.tools.PYTHON_VENV!], { env });
    expect(code, output).to.equal(0);
    // The integration tests ran (none skipped for want of a server).
    expect(output, output).to.match(/\d+ passed/);
    expect(output, output).to.not.match(/\d+ skipped/);
  });

  it('has generated types that match the served document, and the check fails when it changes', async () => {
    const docs = await run.documents();
    try {
      const python = `${run.tools.PYTHON_VENV}/bin/python`;
      const check = (name: 'served' | 'schema' | 'values') =>
        runCommand(python, ['clients/python/scripts/generate_types.py', '--check', docs.file(name)]);
      const [same, schema, values] = await Promise.all([check('served'), check('schema'), check('values')]);
      expect(same.code, same.output).to.equal(0);
      for (const changed of [schema, values]) {
        expect(changed.code, changed.output).to.equal(1);
        expect(changed.output).to.contain('out of date');
      }
    } finally {
      docs.remove();
    }
  });
});
