#!/usr/bin/env node
// The `doorman` ops CLI. Runs the compiled build when there is one; otherwise (a checkout
// without `npm run build`, or DOORMAN_FROM_SOURCE=1) the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

const dist = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(dist) && !process.env.DOORMAN_FROM_SOURCE) {
  await import(dist.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
