// The client as a package: its generated types match the OpenAPI document the real server serves
// (and the check fails when they do not), `npm pack` ships the built modules with their types and
// no development files, and the README's snippets are the examples that the other tests run.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { clientServer } from '../support/client-server.js';
import { driftDocuments } from '../support/drift-documents.js';

const run = promisify(execFile);
const CLIENT = path.join('clients', 'typescript');
const GENERATE = path.join(CLIENT, 'scripts', 'generate-types.mjs');
const TSC = path.join('node_modules', 'typescript', 'bin', 'tsc');

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
    const documents = await driftDocuments(url);
    try {
      const cases = [
        ['schema', 'openapi.ts'],
        ['values', 'known-values.ts'],
      ] as const;
      const results = await Promise.all(cases.map(([name]) => check(documents.file(name))));
      cases.forEach(([name, file], i) => {
        expect(results[i]!.code, name).to.equal(1);
        expect(results[i]!.stderr).to.contain(`src/generated/${file} is out of date`);
      });
    } finally {
      documents.remove();
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
    // Conditions nest (import/require, then types/default): every leaf is a file.
    type Target = string | { [condition: string]: Target };
    const leaves = (target: Target): string[] => (typeof target === 'string' ? [target] : Object.values(target).flatMap(leaves));
    const targets = leaves(manifest.exports as Target).map((target) => target.replace(/^\.\//, ''));
    expect(targets).to.include.members(['dist/cjs/doorman-client.js', 'dist/cjs/doorman-client.d.ts', 'dist/cjs/verify-webhook.js']);
    expect(files).to.include('dist/cjs/package.json');
    for (const [entry, mapped] of Object.entries(manifest.typesVersions['*'] as Record<string, string[]>)) {
      for (const file of mapped) expect(files, `typesVersions ${entry}`).to.include(file.replace(/^\.\//, ''));
    }
    expect(files).to.include.members([manifest.main.replace(/^\.\//, ''), manifest.types.replace(/^\.\//, '')]);
    expect(targets.length).to.be.greaterThan(10);
    for (const target of targets) expect(files, `exports names ${target}`).to.include(target);
  });

  it('packs reproducibly: a clean copy of the sources builds and packs to the same bytes', async () => {
    const packed = async (cwd: string, into: string) => {
      const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', into], { cwd });
      const [pack] = JSON.parse(stdout) as Array<{ filename: string; integrity: string }>;
      return {
        sha256: createHash('sha256')
          .update(fs.readFileSync(path.join(into, pack!.filename)))
          .digest('hex'),
        integrity: pack!.integrity,
      };
    };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-pack-'));
    try {
      const copy = path.join(dir, 'client');
      fs.mkdirSync(copy);
      for (const entry of ['src', 'scripts', 'package.json', 'package-lock.json', 'README.md', 'tsconfig.json', 'tsconfig.cjs.json'])
        fs.cpSync(path.join(CLIENT, entry), path.join(copy, entry), { recursive: true });
      fs.symlinkSync(path.resolve(CLIENT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
      await run('npm', ['run', '--silent', 'build'], { cwd: copy });
      const [here, again, clean] = await Promise.all([
        packed(CLIENT, fs.mkdtempSync(path.join(dir, 'a-'))),
        packed(CLIENT, fs.mkdtempSync(path.join(dir, 'b-'))),
        packed(copy, fs.mkdtempSync(path.join(dir, 'c-'))),
      ]);
      expect(again, 'packing twice').to.deep.equal(here);
      expect(clean, 'a clean build').to.deep.equal(here);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows in its README the code of the examples the tests run', () => {
    const readme = fs.readFileSync(path.join(CLIENT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n\/\/ (examples\/[a-z-]+\.ts)\n([\s\S]*?)```/g)];
    expect(blocks.map((b) => b[1])).to.include.members([
      'examples/signup-screening.ts',
      'examples/express-receiver.ts',
      'examples/events-and-feedback.ts',
    ]);
    for (const [, file, code] of blocks) {
      const example = fs.readFileSync(path.join(CLIENT, file!), 'utf8');
      for (const line of code!.split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('//'))) {
        expect(example, `${file} has: ${line}`).to.contain(line.trim());
      }
      // Complete snippets: every name a block uses from the package is imported in the block.
      expect(code, `${file}'s block shows its imports`).to.match(/^import .* from '@doorman\/client(\/webhooks)?';$/m);
    }
  });

  it("names one express.raw setting, the same in verifyWebhook's error, the README and the Express example", async () => {
    const setting = "express.raw({ type: 'application/json'";
    const readme = fs.readFileSync(path.join(CLIENT, 'README.md'), 'utf8');
    const example = fs.readFileSync(path.join(CLIENT, 'examples', 'express-receiver.ts'), 'utf8');
    const { verifyWebhook } = await import('../../clients/typescript/dist/verify-webhook.js');
    let message = '';
    try {
      verifyWebhook({} as never, 'sha256=00', 'whsec_x');
    } catch (err) {
      message = (err as Error).message;
    }
    for (const [where, text] of [
      ['the error', message],
      ['the README', readme],
      ['the example', example],
    ]) {
      expect(text, where).to.contain(setting);
      expect(text, where).to.not.match(/express\.raw\(\{ type: '(?!application\/json')/);
    }
  });

  it('type-checks its examples and compile-time tests under the strictest settings, and each expected error is real, on its line', async () => {
    const config = JSON.parse(fs.readFileSync(path.join(CLIENT, 'tsconfig.examples.json'), 'utf8'));
    expect(config.compilerOptions).to.include({ strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true });
    expect(config.include).to.include.members(['examples/**/*.ts', 'type-tests/**/*.ts']);
    const tsc = (project: string) =>
      run('node', [TSC, '-p', project]).then(
        () => '',
        (err: { stdout?: string }) => err.stdout ?? 'tsc failed',
      );
    expect(await tsc(path.join(CLIENT, 'tsconfig.examples.json'))).to.equal('');
    // The same cases without their directives: tsc must report an error on exactly the line after each.
    const lines = fs.readFileSync(path.join(CLIENT, 'type-tests', 'compile-errors.ts'), 'utf8').split('\n');
    const expected = lines.flatMap((line, i) => (/^\s*\/\/ @ts-expect-error/.test(line) ? [i + 2] : []));
    expect(expected.length).to.be.greaterThan(20);
    const dir = path.join(CLIENT, '.type-tests-run');
    fs.mkdirSync(dir, { recursive: true });
    try {
      fs.writeFileSync(
        path.join(dir, 'compile-errors.ts'),
        lines.map((line) => line.replace('// @ts-expect-error', '// (must fail)')).join('\n'),
      );
      fs.writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({ extends: '../tsconfig.examples.json', compilerOptions: { rootDir: '..' }, include: ['compile-errors.ts'] }),
      );
      const output = await tsc(path.join(dir, 'tsconfig.json'));
      const failing = [...new Set([...output.matchAll(/compile-errors\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])))];
      expect(failing, output).to.deep.equal(expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
