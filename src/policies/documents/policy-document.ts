// The policy document (what an operator edits, validates and publishes; snake_case like the
// wire) and the engine's Policy (camelCase), mapped here and only here.
import type { Effects, GraphLinkPolicy, KindLinkRule, ListName, Policy, RulePolicy } from '../../engine/policy.js';
import type { ParameterName } from './policy-schema.js';

export type RuleEntry = { enabled: boolean; effects: Effects } & Partial<Record<ParameterName, number>>;

export interface KindLinkEntry {
  links?: boolean;
  hub_threshold?: number;
  expiry_days?: number | null;
  exclude?: string[];
}

export interface PolicyDocument {
  format: 1;
  version?: string;
  description?: string;
  list_precedence: ListName[];
  graph?: { default?: KindLinkEntry; kinds?: Record<string, KindLinkEntry> };
  rules: Record<string, RuleEntry>;
}

const toEntry = (r: KindLinkRule): KindLinkEntry => ({
  ...(r.links !== undefined && { links: r.links }),
  ...(r.hubThreshold !== undefined && { hub_threshold: r.hubThreshold }),
  ...(r.expiryDays !== undefined && { expiry_days: r.expiryDays }),
  ...(r.exclude !== undefined && { exclude: [...r.exclude] }),
});
const toRule = (e: KindLinkEntry): KindLinkRule => ({
  ...(e.links !== undefined && { links: e.links }),
  ...(e.hub_threshold !== undefined && { hubThreshold: e.hub_threshold }),
  ...(e.expiry_days !== undefined && { expiryDays: e.expiry_days }),
  ...(e.exclude !== undefined && { exclude: [...e.exclude] }),
});
const mapKinds = <A, B>(kinds: Record<string, A> | undefined, f: (a: A) => B): Record<string, B> | undefined =>
  kinds && Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k.trim().toLowerCase(), f(v)]));

function graphToDocument(g: GraphLinkPolicy): PolicyDocument['graph'] {
  return { ...(g.default && { default: toEntry(g.default) }), ...(g.kinds && { kinds: mapKinds(g.kinds, toEntry) }) };
}
function graphFromDocument(g: NonNullable<PolicyDocument['graph']>): GraphLinkPolicy {
  return { ...(g.default && { default: toRule(g.default) }), ...(g.kinds && { kinds: mapKinds(g.kinds, toRule) }) };
}

const NAMES: [ParameterName, keyof RulePolicy][] = [
  ['over', 'over'],
  ['block_over', 'blockOver'],
  ['at_least', 'atLeast'],
  ['window_seconds', 'windowSeconds'],
  ['max_amount', 'maxAmount'],
  ['under_days', 'underDays'],
  ['min_accounts', 'minAccounts'],
  ['group_accounts', 'groupAccounts'],
  ['corporate_domain', 'corporateDomain'],
  ['min_days', 'minDays'],
  ['verified_only', 'verifiedOnly'],
];

export function toDocument(policy: Policy): PolicyDocument {
  const rules: Record<string, RuleEntry> = {};
  for (const [code, rule] of Object.entries(policy.rules)) {
    const entry: RuleEntry = { enabled: rule.enabled !== false, effects: { ...rule.effects } };
    for (const [doc, engine] of NAMES) if (rule[engine] !== undefined) entry[doc] = rule[engine] as number;
    rules[code] = entry;
  }
  return {
    format: 1,
    version: policy.version,
    list_precedence: [...policy.listPrecedence],
    ...(policy.graph && { graph: graphToDocument(policy.graph) }),
    rules,
  };
}

// The document must be valid (validatePolicyDocument); `version` is the one it is published under.
export function fromDocument(doc: PolicyDocument, version: string): Policy {
  const rules: Record<string, RulePolicy> = {};
  for (const [code, entry] of Object.entries(doc.rules)) {
    const rule: RulePolicy = { effects: { ...entry.effects } };
    if (!entry.enabled) rule.enabled = false;
    for (const [docName, engine] of NAMES)
      if (entry[docName] !== undefined) (rule as unknown as Record<string, unknown>)[engine] = entry[docName];
    rules[code] = rule;
  }
  return { version, listPrecedence: [...doc.list_precedence], ...(doc.graph && { graph: graphFromDocument(doc.graph) }), rules };
}
