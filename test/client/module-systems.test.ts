// The packed client as an integrator installs it, in both module systems: the tarball from `npm pack`
// unpacked into a fresh project (its one dependency, openapi-fetch, linked beside it), one program
// written once and compiled as CommonJS (resolution node10 and node16) and as an ES module
// (nodenext, and bundler for type-checking), with the package's own .d.ts files checked under the
// consumer's strictest settings (no skipLibCheck). Both builds then run against the real server:
// the CommonJS one with require(esm) turned off, as on Node 18 and Node 20 before 20.19.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { clientServer } from '../support/client-server.js';
import { aTenant, type TestTenant } from '../support/fixtures.js';
import { testDeps } from '../support/test-deps.js';
import { IPS } from '../support/verdict-harness.js';

const run = promisify(execFile);
const ROOT = process.cwd();
const CLIENT = path.join(ROOT, 'clients', 'typescript');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

// One program, both module systems: screen, ping, feedback, a typed error, a verified webhook.
const PROGRAM = `
import { createHmac } from 'node:crypto';
import { doormanClient, DoormanError, type VerdictRequest } from '@doorman/client';
import { verifyWebhook } from '@doorman/client/webhooks';

const [baseUrl = '', secretKey = '', ip = ''] = process.argv.slice(2);
const userAgent: string | undefined = process.env['NO_SUCH_HEADER'];

async function main(): Promise<void> {
  const doorman = doormanClient({ secretKey, baseUrl });
  const event: VerdictRequest = { event_type: 'signup', ip, external_user_id: 'usr_modules', user_agent: userAgent };
  const result = await doorman.screen(event, { failOpen: false });
  if (result.failedOpen) throw new Error('failed open');
  const ping = await doorman.ping();
  const first = await doorman.feedback.report({ subject: { kind: 'event_id', value: result.id }, outcome: 'chargeback' });
  const again = await doorman.feedback.report({ subject: { kind: 'event_id', value: result.id }, outcome: 'chargeback' });
  let notFound = '';
  try {
    await doorman.events.get('evt_no_such_event');
  } catch (err) {
    if (err instanceof DoormanError) notFound = String(err.code);
  }
  let refused = '';
  try {
    doormanClient({ secretKey: 'pk_test_1', baseUrl });
  } catch (err) {
    if (err instanceof TypeError) refused = 'TypeError';
  }
  const body = JSON.stringify({ type: 'review.resolved', event_id: result.id, resolution: 'denied', final_verdict: 'block', resolved_at: '2026-01-01T00:00:00Z' });
  const signature = 'sha256=' + createHmac('sha256', 'whsec_modules').update(body).digest('hex');
  const webhook = verifyWebhook(body, signature, 'whsec_modules');
  console.log(JSON.stringify({
    verdict: result.verdict, degraded: result.degraded, ping: [ping.status, ping.mode],
    duplicates: [first.duplicate, again.duplicate], notFound, refused, webhook: webhook?.resolution, loaded: LOADED,
  }));
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
`;

// Where each module system found the package: require.resolve in CommonJS, import.meta.resolve in ESM.
const CJS_PROGRAM = PROGRAM.replace('LOADED', "require.resolve('@doorman/client')");
const ESM_PROGRAM = PROGRAM.replace('LOADED', "import.meta.resolve('@doorman/client')");

// The README's server-side code blocks (each headed by its example's path), exactly as written.
const README_BLOCKS = [
  ...fs.readFileSync(path.join(CLIENT, 'README.md'), 'utf8').matchAll(/```ts\n\/\/ examples\/([a-z-]+)\.ts\n([\s\S]*?)```/g),
].map((m) => [m[1]!, m[2]!] as const);

const STRICT = {
  target: 'ES2022',
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
  types: ['node'],
};

describe('client: the packed package in CommonJS and ES module projects', function () {
  this.timeout(120_000);
  let project: string;
  let tenant: TestTenant;
  let baseUrl: string;

  before(async () => {
    [baseUrl, tenant] = await Promise.all([clientServer().then((s) => s.url), aTenant(testDeps())]);
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-client-consumer-'));
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], { cwd: CLIENT });
    const { filename } = (JSON.parse(stdout) as Array<{ filename: string }>)[0]!;
    const installed = path.join(project, 'node_modules', '@doorman', 'client');
    fs.mkdirSync(installed, { recursive: true });
    await run('tar', ['-xzf', path.join(project, filename), '-C', installed, '--strip-components=1']);
    fs.mkdirSync(path.join(project, 'node_modules', '@types'), { recursive: true });
    for (const [name, from] of [
      ['openapi-fetch', path.join(CLIENT, 'node_modules', 'openapi-fetch')],
      ['openapi-typescript-helpers', path.join(CLIENT, 'node_modules', 'openapi-typescript-helpers')],
      ['@types/node', path.join(ROOT, 'node_modules', '@types', 'node')],
      ['undici-types', path.join(ROOT, 'node_modules', 'undici-types')],
      // The README's examples serve with Express.
      ['express', path.join(CLIENT, 'node_modules', 'express')],
      ['@types/express', path.join(CLIENT, 'node_modules', '@types', 'express')],
    ] as const)
      fs.symlinkSync(from, path.join(project, 'node_modules', name), 'dir');
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    for (const [dir, type, program] of [
      ['cjs', 'commonjs', CJS_PROGRAM],
      ['esm', 'module', ESM_PROGRAM],
    ] as const) {
      fs.mkdirSync(path.join(project, dir));
      fs.writeFileSync(path.join(project, dir, 'package.json'), JSON.stringify({ type }));
      fs.writeFileSync(path.join(project, dir, 'main.ts'), program);
      // The README's server-side examples as written there, copied from its code blocks.
      for (const [name, code] of README_BLOCKS) fs.writeFileSync(path.join(project, dir, `readme-${name}.ts`), code);
    }
    const readmeFiles = (dir: string) => README_BLOCKS.map(([name]) => `${dir}/readme-${name}.ts`);
    const configs: Record<string, object> = {
      // esModuleInterop as `tsc --init` sets it, for the README's `import express from 'express'`.
      node10: {
        compilerOptions: { ...STRICT, module: 'CommonJS', moduleResolution: 'Node10', esModuleInterop: true, outDir: 'cjs/out-node10' },
        files: ['cjs/main.ts', ...readmeFiles('cjs')],
      },
      node16: {
        compilerOptions: { ...STRICT, module: 'Node16', moduleResolution: 'Node16', outDir: 'cjs/out-node16' },
        files: ['cjs/main.ts', ...readmeFiles('cjs')],
      },
      nodenext: {
        compilerOptions: { ...STRICT, module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'esm/out' },
        files: ['esm/main.ts', ...readmeFiles('esm')],
      },
      bundler: {
        compilerOptions: { ...STRICT, module: 'ESNext', moduleResolution: 'Bundler', noEmit: true },
        files: ['esm/main.ts', ...readmeFiles('esm')],
      },
    };
    for (const [name, config] of Object.entries(configs))
      fs.writeFileSync(path.join(project, `tsconfig.${name}.json`), JSON.stringify(config));
  });
  after(() => {
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  const compile = async (name: string) => {
    try {
      await run('node', [TSC, '-p', `tsconfig.${name}.json`], { cwd: project });
    } catch (err) {
      expect.fail(`tsc (${name}) failed:\n${(err as { stdout?: string }).stdout}`);
    }
  };
  const runProgram = async (file: string, nodeArgs: string[] = []) => {
    const { stdout } = await run('node', [...nodeArgs, file, baseUrl, tenant.keys.sk_test, IPS.clean], { cwd: project });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  const expected = {
    verdict: 'allow',
    degraded: [],
    ping: ['ok', 'test'],
    duplicates: [false, true],
    notFound: 'not_found',
    refused: 'TypeError',
    webhook: 'denied',
  };

  it("type-checks under every module resolution a project may use, the package's .d.ts files and the README's examples included", async () => {
    expect(README_BLOCKS.map(([name]) => name).sort()).to.deep.equal(['events-and-feedback', 'express-receiver', 'signup-screening']);
    await Promise.all(['node10', 'node16', 'nodenext', 'bundler'].map(compile));
  });

  it("runs as CommonJS without require(esm), from the package's CommonJS build (node10 and node16 outputs)", async () => {
    for (const out of ['cjs/out-node10/main.js', 'cjs/out-node16/main.js']) {
      const answer = await runProgram(out, ['--no-experimental-require-module']);
      expect(answer).to.deep.include(expected);
      expect(answer.loaded).to.match(/node_modules\/@doorman\/client\/dist\/cjs\/doorman-client\.js$/);
    }
  });

  it("runs as an ES module from the package's ES module build", async () => {
    const answer = await runProgram('esm/out/main.js');
    expect(answer).to.deep.include(expected);
    expect(answer.loaded).to.match(/node_modules\/@doorman\/client\/dist\/doorman-client\.js$/);
  });

  it('marks its CommonJS build as such, and the runs above did test require without require(esm): the ESM build is refused', async () => {
    const installed = path.join(project, 'node_modules', '@doorman', 'client');
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'dist', 'cjs', 'package.json'), 'utf8'));
    expect(manifest).to.deep.equal({ type: 'commonjs' });
    const refused = await run('node', [
      '--no-experimental-require-module',
      '-e',
      `require(${JSON.stringify(path.join(installed, 'dist', 'doorman-client.js'))})`,
    ]).then(
      () => '',
      (err: { stderr?: string }) => err.stderr ?? '',
    );
    expect(refused).to.match(/ERR_REQUIRE_ESM/);
  });
});
