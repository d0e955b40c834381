// The one way an email lookup (DNS, RDAP) says it got no answer. The verdict flow reads `kind`:
// 'timeout' becomes timeout_failopen, 'unavailable' becomes partial_enrichment.
export type LookupFailure = 'timeout' | 'unavailable';

export class LookupError extends Error {
  readonly kind: LookupFailure;

  constructor(kind: LookupFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LookupError';
    this.kind = kind;
  }
}

// Anything that is not a LookupError is a fault we did not foresee: the source counts as unavailable.
export function lookupFailureOf(error: unknown): LookupFailure {
  return error instanceof LookupError ? error.kind : 'unavailable';
}
