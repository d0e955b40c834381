// Mocha's spec reporter plus one closing line in the plain form CI reads: "N passed, N failed,
// N skipped", followed by why each skipped test did not run (test/support/skip.ts records it;
// a test declared pending says so), the Node.js the suite ran on, and the slowest tests (where
// the suite's time goes; the budget is in the README).
const Mocha = require('mocha');

function reasonOf(test) {
  for (let node = test; node; node = node.parent) if (node.skipReason) return node.skipReason;
  return test.fn ? 'skipped without a reason' : 'declared pending (no body)';
}

const SLOWEST = 20;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    this.started = Date.now();
    const reasons = new Map();
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (test) => {
      const reason = reasonOf(test);
      reasons.set(reason, (reasons.get(reason) || 0) + 1);
    });
    const durations = [];
    runner.on(Mocha.Runner.constants.EVENT_TEST_END, (test) => {
      if (typeof test.duration === 'number') durations.push([test.duration, test.fullTitle(), test.file]);
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats || {};
      const why = [...reasons].map(([reason, n]) => `${n} × ${reason}`).join('; ');
      const slowest = durations.sort((a, b) => b[0] - a[0]).slice(0, SLOWEST);
      if (slowest.length > 0) {
        process.stdout.write(`\nthe ${slowest.length} slowest tests:\n`);
        for (const [ms, title, file] of slowest) process.stdout.write(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${title} (${file ? require('node:path').relative(process.cwd(), file) : '?'})\n`);
      }
      process.stdout.write(`\nran on Node.js ${process.version} in ${((Date.now() - this.started) / 1000).toFixed(0)} s\n`);
      process.stdout.write(`tests: ${s.passes || 0} passed, ${s.failures || 0} failed, ${s.pending || 0} skipped${why ? ` (${why})` : ''}\n`);
    });
  }
}

module.exports = SummaryReporter;
