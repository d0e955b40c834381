// The client as a package: its generated types match the OpenAPI document the real server serves
// (and the check fails when they do not), `npm pack` ships the built modules with their types and
// no development files, and the README's snippets are the examples that the other tests run.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { clientServer } from '../support/client-server.js';

const run = promisify(execFile);
const CLIENT = path.join('clients', 'typescript');
const GENERATE = path.join(CLIENT, 'scripts', 'generate-types.mjs');

async function check(source: string): Promise<{ code: number; stderr: string }> {
  try {
    const { stderr } = await run('node', [GENERATE, '--check', source]);
    return { code: 0, stderr };
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? '' };
  }
}

describe('client: the package', function () {
  this.timeout(60_000);

  it('has generated types that match the document the server serves (regenerate and compare)', async () => {
    const { url } = await clientServer();
    const result = await check(`${url}/v1/openapi.json`);
    expect(result.stderr).to.match(/matches/);
    expect(result.code, result.stderr).to.equal(0);
  });

  it('fails the drift check when the served document changes a schema or a known value', async () => {
    const { url } = await clientServer();
    const served = (await (await fetch(`${url}/v1/openapi.json`)).json()) as Record<string, any>;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-drift-'));
    try {
      const changedSchema = structuredClone(served);
      changedSchema.components.schemas.StoredEvent.properties.risk_band = { type: 'string' };
      const changedValues = structuredClone(served);
      changedValues['x-service-known-values'].reason_codes.push('brand_new_code');
      const cases = [['schema', changedSchema, 'openapi.ts'], ['values', changedValues, 'known-values.ts']] as const;
      const results = await Promise.all(cases.map(([name, document]) => {
        const source = path.join(dir, `${name}.json`);
        fs.writeFileSync(source, JSON.stringify(document));
        return check(source);
      }));
      cases.forEach(([name, , file], i) => {
        expect(results[i]!.code, name).to.equal(1);
        expect(results[i]!.stderr).to.contain(`src/generated/${file} is out of date`);
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('packs the built modules with their types, and no sources, scripts, examples or configs', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: CLIENT });
    const [pack] = JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
    const files = pack!.files.map((f) => f.path).sort();
    expect(pack!.name).to.equal('@doorman/client');
    expect(files).to.include.members(['package.json', 'README.md']);
    expect(files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md'].includes(f))).to.deep.equal([]);
    for (const js of files.filter((f) => f.endsWith('.js'))) expect(files, `types for ${js}`).to.include(js.replace(/\.js$/, '.d.ts'));
    const manifest = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8'));
    const targets = Object.values(manifest.exports as Record<string, string | Record<string, string>>)
      .flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)))
      .map((target) => target.replace(/^\.\//, ''));
    expect(targets.length).to.be.greaterThan(6);
    for (const target of targets) expect(files, `exports names ${target}`).to.include(target);
  });

  it('shows in its README the code of the examples the tests run', () => {
    const readme = fs.readFileSync(path.join(CLIENT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n\/\/ (examples\/[a-z-]+\.ts)\n([\s\S]*?)```/g)];
    expect(blocks.map((b) => b[1])).to.include.members(['examples/signup-screening.ts', 'examples/express-receiver.ts']);
    for (const [, file, code] of blocks) {
      const example = fs.readFileSync(path.join(CLIENT, file!), 'utf8');
      for (const line of code!.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('//'))) {
        expect(example, `${file} has: ${line}`).to.contain(line.trim());
      }
    }
  });
});
