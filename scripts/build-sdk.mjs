// Bundles the browser SDK (sdk/doorman.ts + FingerprintJS) into dist/browser/sdk/doorman.js with esbuild:
// one minified ES module, served by the API as /sdk/doorman.js and /sdk/v1/doorman.js. The demo page
// (sdk/demo/device.html, GET /demo/device) is copied beside it as it is.
// Prints the size and the Subresource Integrity hash the README publishes.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(repo, 'dist', 'browser', 'sdk', 'doorman.js');
const fingerprintjs = path.join(repo, 'node_modules', '@fingerprintjs', 'fingerprintjs');
const { version } = JSON.parse(readFileSync(path.join(fingerprintjs, 'package.json'), 'utf8'));
// FingerprintJS's licence asks for its notice in every copy; its own header is not a legal
// comment to esbuild, so it goes into the banner whole.
const notice = readFileSync(path.join(fingerprintjs, 'LICENSE'), 'utf8').trim().replace(/\*\//g, '* /');
const banner = `/*! Doorman browser SDK (Apache-2.0). Bundles FingerprintJS v${version}:\n${notice}\n*/`;

const result = await build({
  entryPoints: [path.join(repo, 'sdk', 'doorman.ts')],
  bundle: true,
  format: 'esm',
  target: ['es2020'],
  platform: 'browser',
  minify: true,
  banner: { js: banner },
  legalComments: 'none',
  // FingerprintJS samples 0.1% of page loads into a statistics request to its own CDN unless this
  // flag is set; `monitoring: false` already skips it, and this removes the code path entirely.
  define: { 'window.__fpjs_d_m': 'true' },
  write: false,
  logLevel: 'warning',
});
const bytes = Buffer.from(result.outputFiles[0].contents);
mkdirSync(path.dirname(outfile), { recursive: true });
let previous;
try {
  previous = readFileSync(outfile);
} catch {
  previous = undefined;
}
// Leave an identical file untouched, so a server that already read it sees no change.
if (!previous || !previous.equals(bytes)) writeFileSync(outfile, bytes);
const integrity = `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
console.error(`[sdk] ${path.relative(repo, outfile)}: ${bytes.length} bytes, ${integrity}`);

const demo = path.join(repo, 'dist', 'browser', 'sdk', 'demo', 'device.html');
mkdirSync(path.dirname(demo), { recursive: true });
copyFileSync(path.join(repo, 'sdk', 'demo', 'device.html'), demo);
