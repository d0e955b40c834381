// Bundles the analyst console (console/*.tsx with Preact, cytoscape in its own chunk, loaded only
// by the pages that draw) into dist/browser/console with esbuild, beside its stylesheet. Served by the
// API from our own origin as /console/assets/…; nothing is fetched from anywhere else.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Browser bundles have their own folder (dist/browser/), apart from the server's modules
// (dist/server/): this step empties only its own output.
const outdir = path.join(repo, 'dist', 'browser', 'console');
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const started = Date.now();
const result = await build({
  entryPoints: { console: path.join(repo, 'console', 'main.tsx') },
  bundle: true,
  splitting: true,
  format: 'esm',
  target: ['es2020'],
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
  // Licences of the bundled libraries (Preact, cytoscape: MIT) go to a file beside the bundle.
  legalComments: 'linked',
  chunkNames: 'chunk-[hash]',
  outdir,
  metafile: true,
  logLevel: 'warning',
});
copyFileSync(path.join(repo, 'console', 'console.css'), path.join(outdir, 'console.css'));
copyFileSync(path.join(repo, 'console', 'favicon.svg'), path.join(outdir, 'favicon.svg'));
const sizes = Object.entries(result.metafile.outputs).map(([file, o]) => `${path.basename(file)} ${Math.round(o.bytes / 1024)} KB`);
console.error(`[console] dist/browser/console in ${Date.now() - started} ms: ${sizes.join(', ')}`);
