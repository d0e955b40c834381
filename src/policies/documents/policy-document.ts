// The policy document (what an operator edits, validates and publishes; snake_case like the
// wire) and the engine's Policy (camelCase), mapped here and only here.
import type { Effects, ListName, Policy, RulePolicy } from '../../engine/policy.js';
import type { ParameterName } from './policy-schema.js';

export type RuleEntry = { enabled: boolean; effects: Effects } & Partial<Record<ParameterName, number>>;

export interface PolicyDocument {
  format: 1;
  version?: string;
  description?: string;
  list_precedence: ListName[];
  rules: Record<string, RuleEntry>;
}

const NAMES: [ParameterName, keyof RulePolicy][] = [
  ['over', 'over'],
  ['block_over', 'blockOver'],
  ['at_least', 'atLeast'],
  ['window_seconds', 'windowSeconds'],
  ['max_amount', 'maxAmount'],
  ['under_days', 'underDays'],
  ['min_accounts', 'minAccounts'],
  ['min_days', 'minDays'],
];

export function toDocument(policy: Policy): PolicyDocument {
  const rules: Record<string, RuleEntry> = {};
  for (const [code, rule] of Object.entries(policy.rules)) {
    const entry: RuleEntry = { enabled: rule.enabled !== false, effects: { ...rule.effects } };
    for (const [doc, engine] of NAMES) if (rule[engine] !== undefined) entry[doc] = rule[engine] as number;
    rules[code] = entry;
  }
  return { format: 1, version: policy.version, list_precedence: [...policy.listPrecedence], rules };
}

// The document must be valid (validatePolicyDocument); `version` is the one it is published under.
export function fromDocument(doc: PolicyDocument, version: string): Policy {
  const rules: Record<string, RulePolicy> = {};
  for (const [code, entry] of Object.entries(doc.rules)) {
    const rule: RulePolicy = { effects: { ...entry.effects } };
    if (!entry.enabled) rule.enabled = false;
    for (const [docName, engine] of NAMES) if (entry[docName] !== undefined) (rule as unknown as Record<string, unknown>)[engine] = entry[docName];
    rules[code] = rule;
  }
  return { version, listPrecedence: [...doc.list_precedence], rules };
}
