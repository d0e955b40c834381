// The published JSON Schema of a policy document (docs/policy.schema.json is this, printed by
// `doorman policy schema`). A document names every rule the engine has, with its on/off switch,
// its effect per event type and exactly the thresholds and windows that rule reads.
import { defaultRules } from '../../engine/rule-table.js';

const EVENT_TYPES = ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'];
const YEAR = 365 * 86_400;

const int = (minimum: number, maximum: number, description: string) => ({ type: 'integer', minimum, maximum, description });

export const PARAMETERS = {
  over: int(0, 1_000_000, 'fires when the count (this event included) is greater than this'),
  block_over: int(1, 1_000_000, 'a harsher step: block when the count is greater than this (must be greater than over)'),
  at_least: int(1, 1_000_000, 'fires when the count (this event included) is at least this'),
  window_seconds: int(1, YEAR, 'the window the count or the recency is measured over, in seconds'),
  max_amount: int(0, 1_000_000_000_000, 'attempts at or under this amount (minor units) count as small'),
  under_days: int(1, 3650, 'fires when the domain is younger than this many days'),
  min_accounts: int(2, 1_000_000, 'the cluster size (accounts) from which the rule takes its effect; below it, informational'),
  group_accounts: int(
    2,
    1_000_000,
    'without risk on the event (a disposable email, a Tor, proxy or datacenter address), a group of up to this many accounts is a household or a family: identity_cluster informs on its burst (a larger one is held unless it is a team on a corporate domain linked through a place); cluster_confirmed_abuse reviews instead of blocking through another of its accounts',
  ),
  corporate_domain: int(
    0,
    1,
    "1: the `over` step is informational for a signup on a corporate domain (not free-mail, not disposable, with MX, registered a year or more ago) that counted at least as many signups in velocity_domain_signups' window as the address did (a team behind its office's address); `block_over` stands",
  ),
  min_days: int(0, 3650, 'a conversion at least this many days old makes the cluster trusted'),
  verified_only: int(
    0,
    1,
    '1: block only when the account is the marked subject or is linked to it through an identifier Doorman verifies (email, device, card); through caller-supplied identity values alone, review',
  ),
} as const;

export type ParameterName = keyof typeof PARAMETERS;

const VELOCITY = { required: ['over', 'window_seconds'], optional: ['block_over'] } as const;
// The graph counts cluster cards and countries over a fixed 24 h: a document cannot change it.
const CLUSTER_24H = { required: ['over', 'window_seconds'], fixed: { window_seconds: 86_400 } } as const;

// The thresholds each rule reads; a rule not named here reads none.
export const RULE_PARAMETERS: Record<
  string,
  { required: readonly ParameterName[]; optional?: readonly ParameterName[]; fixed?: Partial<Record<ParameterName, number>> }
> = {
  velocity_ip_signups: { ...VELOCITY, optional: ['block_over', 'corporate_domain'] },
  velocity_device_signups: VELOCITY,
  velocity_domain_signups: VELOCITY,
  velocity_card_attempts: VELOCITY,
  velocity_ip_card_attempts: VELOCITY,
  card_probe_pattern: { required: ['at_least', 'window_seconds', 'max_amount'] },
  velocity_cluster_trials: { required: ['window_seconds'] },
  velocity_distinct_cards: CLUSTER_24H,
  velocity_card_countries: CLUSTER_24H,
  ato_account_device_burst: { required: ['over', 'window_seconds'] },
  identity_cluster: { required: ['min_accounts'], optional: ['window_seconds', 'group_accounts'] },
  hub_confirmed_abuse: { required: [], optional: ['window_seconds'] },
  young_domain: { required: ['under_days'] },
  cluster_trusted: { required: ['min_days'] },
  cluster_confirmed_abuse: { required: [], optional: ['verified_only', 'group_accounts'] },
};

function ruleSchema(code: string): Record<string, unknown> {
  const params = RULE_PARAMETERS[code] ?? { required: [] };
  const names = [...params.required, ...(params.optional ?? [])];
  return {
    type: 'object',
    additionalProperties: false,
    required: ['enabled', 'effects', ...params.required],
    properties: {
      enabled: { type: 'boolean', description: 'false turns the rule off' },
      effects: {
        type: 'object',
        description: 'the effect per event type; the rule runs only on the event types named here',
        additionalProperties: false,
        properties: Object.fromEntries(EVENT_TYPES.map((t) => [t, { enum: ['allow', 'review', 'block', 'info'] }])),
      },
      ...Object.fromEntries(
        names.map((n) => [n, params.fixed?.[n] !== undefined ? { ...PARAMETERS[n], const: params.fixed[n] } : PARAMETERS[n]]),
      ),
    },
  };
}

const codes = defaultRules.map((r) => r.code);

// One identifier kind's link policy (docs/graph.md, "Link policy"); every field optional, falling
// back to the `default` section, then to linking for ever at GRAPH_HUB_THRESHOLD.
const kindLinkRule = {
  type: 'object',
  additionalProperties: false,
  properties: {
    links: { type: 'boolean', description: 'false: identifiers of this kind are recorded but never link accounts' },
    hub_threshold: int(2, 1_000_000, 'an identifier used by more accounts (and events without one) than this is a hub and links nothing'),
    expiry_days: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: 3650,
      description: 'a link not seen again for this many days stops linking (null: never)',
    },
    exclude: {
      type: 'array',
      maxItems: 1000,
      uniqueItems: true,
      items: { type: 'string', minLength: 1, maxLength: 512 },
      description: "values that never link (placeholders, the tenant's own test card)",
    },
  },
} as const;

const graphSection = {
  type: 'object',
  additionalProperties: false,
  description: "the identity graph's link policy; a change takes effect through `doorman graph recluster`",
  properties: {
    default: kindLinkRule,
    kinds: {
      type: 'object',
      maxProperties: 200,
      propertyNames: { minLength: 1, maxLength: 64 },
      additionalProperties: kindLinkRule,
      description: 'per identifier kind (email, device, card, or an identity key as sent, lower-cased)',
    },
  },
} as const;

export const policySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'doorman-policy-1',
  title: 'Doorman policy document',
  type: 'object',
  additionalProperties: false,
  required: ['format', 'list_precedence', 'rules'],
  properties: {
    format: { const: 1, description: 'the document format; 1 today' },
    version: {
      type: 'string',
      pattern: '^\\d{4}-\\d{2}-\\d{2}\\.[1-9]\\d*$',
      description: 'set by `doorman policy publish`; ignored in a file being published',
    },
    description: { type: 'string', maxLength: 2000 },
    list_precedence: {
      type: 'array',
      items: { enum: ['block', 'allow'] },
      minItems: 2,
      maxItems: 2,
      uniqueItems: true,
      description: 'when an event hits both lists, the first list named here decides',
    },
    graph: graphSection,
    rules: {
      type: 'object',
      additionalProperties: false,
      required: codes,
      properties: Object.fromEntries(codes.map((c) => [c, ruleSchema(c)])),
    },
  },
} as const;
