// The CommonJS build (dist/cjs/, from tsconfig.cjs.json) sits inside a package whose "type" is
// "module": a package.json of its own tells Node, and TypeScript, that its .js files are CommonJS.
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
