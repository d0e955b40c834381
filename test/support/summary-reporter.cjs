// Mocha's spec reporter plus one closing line in the plain form CI reads: "N passed, N failed,
// N skipped", followed by why each skipped test did not run (test/support/skip.ts records it;
// a test declared pending says so), after the Node.js the suite ran on and the slowest tests
// (where the suite's time goes; the budget is in the README). Each failed test is named again
// last, with its file and the first lines of its error, just above that line: CI may keep only
// the output's tail, and a count alone does not say what to mend.
// Run as one shard of several (scripts/test-shards.mjs sets DOORMAN_TEST_SUMMARY_FILE), it writes
// the same facts as JSON for the coordinator, which prints the one closing line for the whole
// suite, and says its own counts in a line that is not that form.
const fs = require('node:fs');
const path = require('node:path');
const Mocha = require('mocha');

function reasonOf(test) {
  for (let node = test; node; node = node.parent) if (node.skipReason) return node.skipReason;
  return test.fn ? 'skipped without a reason' : 'declared pending (no body)';
}

const SLOWEST = 20;
const FAILURE_LINES = 12;
const FAILURES_IN_FULL = 10;
const relative = (file) => (file ? path.relative(process.cwd(), file) : '?');

// The lines both a single run and the coordinator print at the end.
function closing(summary) {
  const lines = [];
  const slowest = [...summary.durations].sort((a, b) => b[0] - a[0]).slice(0, SLOWEST);
  if (slowest.length > 0) {
    lines.push('', `the ${slowest.length} slowest tests:`);
    for (const [ms, title, file] of slowest) lines.push(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${title} (${file})`);
  }
  const failed = summary.failed ?? [];
  if (failed.length > 0) {
    lines.push('', `the ${failed.length} failed test${failed.length === 1 ? '' : 's'}:`);
    // Each of the first ones with its error; past them, a line each.
    failed.forEach((f, i) => {
      lines.push(`  ${f.title} (${f.file}${f.shard ? `, ${f.shard}` : ''})`);
      if (i < FAILURES_IN_FULL && f.error) for (const line of f.error.split('\n').slice(0, FAILURE_LINES)) lines.push(`      ${line}`);
    });
  }
  const why = Object.entries(summary.reasons)
    .map(([reason, n]) => `${n} × ${reason}`)
    .join('; ');
  lines.push(
    '',
    `ran on Node.js ${summary.node} in ${summary.seconds.toFixed(0)} s${summary.shards > 1 ? ` (${summary.shards} shards in parallel)` : ''}`,
  );
  lines.push(`tests: ${summary.passes} passed, ${summary.failures} failed, ${summary.pending} skipped${why ? ` (${why})` : ''}`);
  return `${lines.join('\n')}\n`;
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const started = Date.now();
    const reasons = {};
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (test) => {
      const reason = reasonOf(test);
      reasons[reason] = (reasons[reason] || 0) + 1;
    });
    const durations = [];
    // Hooks fail as tests of their own in mocha ("before all" hook for ...), with the file of
    // their suite.
    const failed = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_FAIL, (test, err) => {
      const stack = String(err?.stack ?? err);
      const message = String(err?.message ?? err);
      const error = stack.includes(message) ? stack : `${message}\n${stack}`;
      failed.push({
        title: test.fullTitle(),
        file: relative(test.file ?? test.parent?.file),
        shard: process.env.DOORMAN_TEST_SHARD,
        error: error.replace(/\u001b\[[0-9;]*m/g, ''),
      });
    });
    runner.on(Mocha.Runner.constants.EVENT_TEST_END, (test) => {
      if (typeof test.duration === 'number') durations.push([test.duration, test.fullTitle(), relative(test.file)]);
    });
    // Each file's wall time, its hooks included: what the coordinator balances shards by.
    const files = {};
    const begun = new Map();
    runner.on(Mocha.Runner.constants.EVENT_SUITE_BEGIN, (suite) => {
      if (suite.file && suite.parent?.root) begun.set(suite, Date.now());
    });
    runner.on(Mocha.Runner.constants.EVENT_SUITE_END, (suite) => {
      if (!begun.has(suite)) return;
      const file = relative(suite.file);
      files[file] = (files[file] || 0) + (Date.now() - begun.get(suite));
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats || {};
      const summary = {
        passes: s.passes || 0,
        failures: s.failures || 0,
        pending: s.pending || 0,
        reasons,
        durations: durations.sort((a, b) => b[0] - a[0]).slice(0, SLOWEST),
        failed,
        files,
        node: process.version,
        seconds: (Date.now() - started) / 1000,
        shards: 1,
      };
      const out = process.env.DOORMAN_TEST_SUMMARY_FILE;
      if (out) {
        fs.writeFileSync(out, JSON.stringify(summary));
        process.stdout.write(
          `\n${process.env.DOORMAN_TEST_SHARD ?? 'shard'}: ${summary.passes} passing, ${summary.failures} failing, ${summary.pending} pending in ${summary.seconds.toFixed(0)} s\n`,
        );
      } else {
        process.stdout.write(closing(summary));
      }
    });
  }
}

module.exports = SummaryReporter;
module.exports.closing = closing;
