// Skipping with a reason: the summary line (test/support/summary-reporter.cjs) names why each
// skipped test did not run, so a skip is never silent. In a `before` hook it skips the suite.
export function skipBecause(ctx: Mocha.Context, reason: string): never {
  const runnable = ctx.test as (Mocha.Runnable & { type?: string; skipReason?: string }) | undefined;
  if (runnable?.type === 'hook' && runnable.parent) (runnable.parent as { skipReason?: string }).skipReason = reason;
  else if (runnable) runnable.skipReason = reason;
  ctx.skip();
}
