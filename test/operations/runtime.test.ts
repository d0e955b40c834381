// The runtime: Doorman runs on Node 24 LTS. The pinned version (.nvmrc), the floor (package.json's
// engines, which the parser of the Cypher guard sets), the Dockerfile, docker-compose and the README
// name one line; the suite itself runs on it; and the CLI started by an older `node` runs itself
// again on the pinned Node the scripts installed (scripts/lib.sh, bin/pinned-node.js), or refuses.
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { testEnv } from '../support/test-deps.js';
import { skipBecause } from '../support/skip.js';

const run = promisify(execFile);
const pinned = fs.readFileSync('.nvmrc', 'utf8').trim();
const floor = /^>=(\d+\.\d+\.\d+)$/.exec(
  (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { engines: { node: string } }).engines.node,
)?.[1];
const parts = (v: string) => v.replace(/^v/, '').split('.').map(Number) as [number, number, number];
const atLeast = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return true;
};

describe('the runtime', () => {
  it('pins one Node LTS line in .nvmrc, engines, the Dockerfile, docker-compose and the README', () => {
    expect(pinned).to.match(/^\d+\.\d+\.\d+$/);
    expect(floor, 'engines.node is ">=x.y.z"').to.be.a('string');
    const major = parts(pinned)[0];
    expect(major % 2, 'an LTS line (even major)').to.equal(0);
    expect(parts(floor!)[0]).to.equal(major);
    expect(atLeast(pinned, floor!)).to.equal(true);
    const dockerfile = fs.readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).to.include(`ARG NODE_VERSION=${pinned}\n`);
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1])).to.deep.equal([
      'node:${NODE_VERSION}-bookworm-slim',
      'node:${NODE_VERSION}-bookworm-slim',
    ]);
    expect(fs.readFileSync('docker-compose.yml', 'utf8')).to.include(`node:${pinned}-bookworm-slim`);
    const readme = fs.readFileSync('README.md', 'utf8');
    expect(readme).to.include(`Node ${pinned}`);
    expect(readme, 'no older line is named as the runtime').not.to.match(/machine with Node 20/);
  });

  it(`runs the suite on Node ${pinned.split('.')[0]} (the floor or later)`, () => {
    expect(atLeast(process.versions.node, floor!), `this suite runs on ${process.version}`).to.equal(true);
  });

  describe('the CLI started by an older node', function () {
    this.timeout(60_000);
    let oldNode = '';
    before(function () {
      // Debian's node on these machines is 20; a machine without an older node has nothing to test.
      for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
        try {
          const version = execFileSync(candidate, ['--version'], { encoding: 'utf8' }).trim();
          if (!atLeast(version, floor!)) {
            oldNode = candidate;
            break;
          }
        } catch {
          /* not there */
        }
      }
      if (!oldNode) skipBecause(this, `no node older than ${floor} on this machine to start the CLI with`);
    });

    it('runs itself again on the pinned Node, which answers and exits as usual', async () => {
      // From the sources, as the other CLI tests run it (a dist/ left by an older build is not this code).
      const env = { ...testEnv, PATH: process.env.PATH!, DOORMAN_FROM_SOURCE: '1' };
      const { stdout } = await run(oldNode, ['bin/doorman.js', '--json', 'version'], { env });
      const version = JSON.parse(stdout) as { doorman: string; node: string };
      expect(version.node).to.equal(`v${pinned}`);
      expect(version.doorman).to.equal((JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version);
      // A usage error's status comes back through the parent.
      const failed = await run(oldNode, ['bin/doorman.js', '--json', 'nosuch'], { env }).then(
        () => 0,
        (err: { code: number }) => err.code,
      );
      expect(failed).to.equal(2);
    });

    it('refuses in one line when the pinned Node is not installed', async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-node-cache-'));
      const err = await run(oldNode, ['bin/doorman.js', '--help'], {
        env: { ...testEnv, PATH: process.env.PATH!, DOORMAN_FROM_SOURCE: '1', DOORMAN_NODE_CACHE: empty },
      }).then(
        () => undefined,
        (e: { code: number; stderr: string; stdout: string }) => e,
      );
      expect(err?.code).to.equal(1);
      expect(err?.stdout).to.equal('');
      expect(err?.stderr.trim().split('\n')).to.have.length(1);
      expect(err?.stderr).to.include(`Node ${floor} or later is needed`).and.to.include(`install Node ${pinned}`);
    });
  });
});
