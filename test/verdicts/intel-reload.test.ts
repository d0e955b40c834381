// `doorman intel reload` changes what a running server knows, without a restart.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { aTenant, bearer } from '../support/fixtures.js';
import { startServer, until } from '../support/processes.js';
import { testDeps, testEnv } from '../support/test-deps.js';

describe('doorman intel reload', function () {
  this.timeout(60_000);

  it('makes every running instance pick up changed intelligence files', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-intel-reload-'));
    fs.writeFileSync(path.join(dir, 'datacenter.txt'), '# nothing yet\n');
    const server = await startServer({ INTEL_DIR: dir });
    const tenant = await aTenant(testDeps());
    const verdict = async () => {
      const res = await fetch(`http://127.0.0.1:${server.port}/v1/verdict`, {
        method: 'POST',
        headers: { ...bearer(tenant.keys.sk_test), 'Content-Type': 'application/json' },
        body: JSON.stringify({ event_type: 'login', ip: '198.18.0.9' }),
      });
      return (await res.json()) as { reasons: { code: string }[] };
    };
    expect((await verdict()).reasons).to.deep.equal([]);

    fs.writeFileSync(path.join(dir, 'proxy.txt'), '198.18.0.0/15\nnot an address\n');
    const { stdout } = await promisify(execFile)('node', ['bin/doorman.js', '--json', 'intel', 'reload'], {
      env: { ...testEnv, DOORMAN_FROM_SOURCE: '1', INTEL_DIR: dir },
    });
    const out = JSON.parse(stdout);
    expect(out.ok).to.equal(true);
    expect(out.counts.proxy).to.equal(1);
    expect(out.skipped.proxy).to.equal(1);
    await until(
      'the server to reload',
      async () => ((await verdict()).reasons.some((r) => r.code === 'proxy_ip') ? true : undefined),
      10_000,
    );
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
