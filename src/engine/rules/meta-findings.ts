// timeout_failopen / partial_enrichment: a signal source ran past its budget or was unavailable;
// the decision is made without it. One finding per code, naming the sources.
import type { Rule } from '../rule.js';
import type { MissingSignal } from '../types.js';

function missingRule(code: string, reason: MissingSignal['reason']): Rule {
  return {
    code,
    evaluate: (s) => {
      const sources = s.missing.filter((m) => m.reason === reason).map((m) => m.source);
      return sources.length > 0 ? { detail: { sources: [...new Set(sources)].sort().join(',') } } : undefined;
    },
  };
}

export const timeoutFailopen = missingRule('timeout_failopen', 'timeout');
export const partialEnrichment = missingRule('partial_enrichment', 'unavailable');
