// The codes false_positive feedback never suppresses: the tenant's own lists, a conviction, the
// trust mark itself, and notes about missing signals are not patterns that misfired. One list,
// read by the engine (evaluate) and by the feedback use case (what it records as suppressed).
export const NEVER_SUPPRESSED: ReadonlySet<string> = new Set([
  'blocklisted',
  'allowlisted',
  'cluster_confirmed_abuse',
  'cluster_trusted',
  'timeout_failopen',
  'partial_enrichment',
]);
