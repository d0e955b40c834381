// Findings of the fuzzer's non-gating checks that are the service's deliberate behaviour, each
// with its reason (docs/reliability.md lists them too). A finding not matched here is printed as
// unexpected: fix it, or add it here with the reason.
export interface Finding {
  check: string;
  operation: string;
  method: string;
  status: number;
  body: string;
}

export interface Deliberate {
  check: string;
  reason: string;
  matches(finding: Finding): boolean;
}

// Issues of the text rule every request obeys (contract/input-issues.ts): no NUL, no lone
// surrogate, at most 32 levels. A JSON Schema `type: string` cannot say so for free-form values.
const TEXT_RULE = /NUL character|unpaired UTF-16 surrogate|deeper than 32 levels/;

function onlyTextRuleIssues(body: string): boolean {
  try {
    const issues = (JSON.parse(body) as { details?: { issues?: { message: string }[] } }).details?.issues ?? [];
    return issues.length > 0 && issues.every((issue) => TEXT_RULE.test(issue.message));
  } catch {
    return false;
  }
}

export const deliberateFailures: Deliberate[] = [
  {
    check: 'unsupported_method',
    reason: 'A method no route takes is 404 not_found: the contract (§7) knows "no such route", not 405.',
    matches: (f) => f.status === 404 && f.body.includes('"not_found"'),
  },
  {
    check: 'positive_data_acceptance',
    reason:
      'GET /v1/events takes only a next_cursor it issued as `cursor`: the schema can say "string", not "one of ours"; a forged one is 400.',
    matches: (f) => f.operation === 'GET /v1/events' && f.status === 400 && f.body.includes('"/cursor"'),
  },
  {
    check: 'positive_data_acceptance',
    reason:
      'No string or key may hold a NUL or an unpaired surrogate, and JSON nests at most 32 levels (README, "Our choices"): ' +
      'Postgres cannot store a NUL, a lone surrogate would come back changed.',
    matches: (f) => f.status === 400 && onlyTextRuleIssues(f.body),
  },
];
