// The Go client (clients/go) against the real service: gofmt, go vet and go test -race (every
// shared test vector from clients/test-vectors/, then its integration tests against a real
// `doorman serve` with the control server and flaky proxy: the README's example built and run as
// written, fail-open, retries across a 503, idempotent replay, a webhook verified during a
// rotation by its net/http middleware); and its generated types against the served document, the
// check shown to fail on a changed one.
import { expect } from 'chai';
import { type ClientRun, runCommand, startClientRun } from '../support/other-client-run.js';

describe('client: Go (clients/go) against the real service', function () {
  this.timeout(600_000);
  let run: ClientRun;
  before(async () => {
    run = await startClientRun();
  });
  after(() => run?.close());

  // The Go toolchain the install script found, first on PATH.
  const goEnv = () => ({ PATH: `${run.tools.GO_BIN}:${process.env.PATH}` });

  it('passes gofmt, go vet and go test -race: every shared vector, then the integration tests against the real server', async () => {
    const env = await run.integrationEnv();
    const { code, output } = await runCommand('bash', ['clients/go/scripts/check.sh'], { env: { ...env, ...goEnv() } });
    expect(code, output).to.equal(0);
    expect(output, output).to.match(/^ok\s/m);
    // check.sh runs go test -v: a test skipped for want of a server would show.
    expect(output, output).to.not.match(/--- SKIP/);
  });

  it('has generated types that match the served document, and the check fails when it changes', async () => {
    const docs = await run.documents();
    try {
      const check = (name: 'served' | 'schema' | 'values') =>
        runCommand('bash', ['clients/go/scripts/generate.sh', '-check', docs.file(name)], { env: goEnv() });
      const same = await check('served');
      expect(same.code, same.output).to.equal(0);
      for (const changed of [await check('schema'), await check('values')]) {
        expect(changed.code, changed.output).to.equal(1);
        expect(changed.output).to.contain('out of date');
      }
    } finally {
      docs.remove();
    }
  });
});
