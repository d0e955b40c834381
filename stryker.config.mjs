// Mutation testing of the pure engine with the engine's own tests. `npm run mutation` tests every
// mutant; `npm run mutation:incremental` (a stage of `npm test`) reuses the results kept in
// mutation/engine-incremental.json for the engine code and tests that did not change since, and
// tests only the rest; either fails under 95%. Stryker's mocha runner does not accept mocha 12, so
// its command runner runs the engine tests (no root hooks: they need no stores); the TypeScript
// checker drops mutants that do not type-check, so the score counts only mutants that could ship.
import fs from 'node:fs';

// Stryker copies the checkout into its sandbox. Every folder the scripts create is gitignored
// (the fuzzer's .venv, whose lib64 symlink breaks the copy, the stack's data, builds, reports),
// so the sandbox leaves out exactly what .gitignore does, plus what is not needed to test the
// engine. test/architecture.test.ts checks that nothing ignored escapes this list.
const gitignored = fs
  .readFileSync(new URL('.gitignore', import.meta.url), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#') && !l.startsWith('!'))
  .map((l) => l.replace(/^\//, '').replace(/\/$/, ''))
  // node_modules is Stryker's own business: it links it into the sandbox instead of copying.
  .filter((l) => l !== 'node_modules');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['src/engine/**/*.ts'],
  testRunner: 'command',
  commandRunner: { command: "npx mocha --no-config --node-option import=tsx --reporter dot 'test/engine/**/*.test.ts'" },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  coverageAnalysis: 'off',
  // Generous: this machine is shared, and a mutant that only ran slow must not count as killed.
  timeoutMS: 30_000,
  timeoutFactor: 3,
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/engine.html' },
  jsonReporter: { fileName: 'reports/mutation/engine.json' },
  thresholds: { high: 98, low: 95, break: 95 },
  // The report incremental runs start from, kept in the repository (a full run rewrites it).
  incrementalFile: 'mutation/engine-incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: [
    ...new Set([...gitignored, 'reports', 'mutation', '.stack', 'dist', 'docs', 'data', 'bench', 'clients', 'console', 'sdk']),
  ],
};
