// Mocha's spec reporter plus one closing line in the plain form CI reads: "N passed, N failed,
// N skipped", followed by why each skipped test did not run (test/support/skip.ts records it;
// a test declared pending says so).
const Mocha = require('mocha');

function reasonOf(test) {
  for (let node = test; node; node = node.parent) if (node.skipReason) return node.skipReason;
  return test.fn ? 'skipped without a reason' : 'declared pending (no body)';
}

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const reasons = new Map();
    runner.on(Mocha.Runner.constants.EVENT_TEST_PENDING, (test) => {
      const reason = reasonOf(test);
      reasons.set(reason, (reasons.get(reason) || 0) + 1);
    });
    runner.once(Mocha.Runner.constants.EVENT_RUN_END, () => {
      const s = runner.stats || {};
      const why = [...reasons].map(([reason, n]) => `${n} × ${reason}`).join('; ');
      process.stdout.write(`\ntests: ${s.passes || 0} passed, ${s.failures || 0} failed, ${s.pending || 0} skipped${why ? ` (${why})` : ''}\n`);
    });
  }
}

module.exports = SummaryReporter;
