// Checks a policy document against the published schema (ajv, every problem at once) and the
// rules a schema cannot say (a block step above its review step). Issues use the contract's
// shape: {path (JSON Pointer), message}.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import type { PolicyDocument } from './policy-document.js';
import { policySchema } from './policy-schema.js';

export interface PolicyIssue {
  path: string;
  message: string;
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
const check = ajv.compile(policySchema);

function toIssue(error: ErrorObject): PolicyIssue {
  const params = error.params as {
    additionalProperty?: string;
    missingProperty?: string;
    allowedValues?: unknown[];
    allowedValue?: unknown;
  };
  const key = params.additionalProperty ?? params.missingProperty;
  const path = key === undefined ? error.instancePath : `${error.instancePath}/${key}`;
  if (params.additionalProperty !== undefined) {
    return { path, message: error.instancePath === '/rules' ? 'is not a rule the engine knows' : 'is not a known key here' };
  }
  if (params.missingProperty !== undefined) return { path, message: 'is required' };
  if (params.allowedValues) return { path, message: `must be one of ${params.allowedValues.join(', ')}` };
  if (params.allowedValue !== undefined) return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
  return { path: path || '/', message: error.message ?? 'is invalid' };
}

export function validatePolicyDocument(value: unknown): { ok: true; document: PolicyDocument } | { ok: false; issues: PolicyIssue[] } {
  if (!check(value)) {
    const seen = new Set<string>();
    const issues = (check.errors ?? [])
      .map(toIssue)
      .filter((i) => !seen.has(`${i.path} ${i.message}`) && seen.add(`${i.path} ${i.message}`));
    return { ok: false, issues };
  }
  const doc = value as unknown as PolicyDocument;
  const issues: PolicyIssue[] = [];
  for (const [code, entry] of Object.entries(doc.rules)) {
    if (entry.block_over !== undefined && entry.over !== undefined && entry.block_over <= entry.over) {
      issues.push({ path: `/rules/${code}/block_over`, message: `must be greater than over (${entry.over})` });
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, document: doc };
}
