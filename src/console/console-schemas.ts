// JSON Schemas of the console API's bodies and queries (not part of the public contract), checked
// by Ajv; a failure is a 400 invalid_request naming each field, like the public API's.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { AppError } from '../errors.js';

const text = (maxLength: number, minLength = 1) => ({ type: 'string', minLength, maxLength });
const mode = { enum: ['live', 'test'] };

const SCHEMAS = {
  SignIn: { type: 'object', additionalProperties: false, required: ['email', 'password'], properties: { email: text(320), password: text(256) } },
  Welcome: { type: 'object', additionalProperties: false, required: ['token', 'password'], properties: { token: text(100), password: text(256, 0) } },
  Mode: { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode } },
  Resolve: {
    type: 'object', additionalProperties: false, required: ['resolution'],
    properties: { resolution: { enum: ['approved', 'denied'] }, note: text(2000, 0) },
  },
  QueryParams: { type: 'object', additionalProperties: text(512, 0), properties: { limit: { type: 'integer', minimum: 1 } } },
  EventSearch: {
    type: 'object', additionalProperties: false,
    // The feedback filter is a window's: its bounds come with it.
    dependentRequired: { feedback: ['feedback_from', 'feedback_to'] },
    properties: {
      id: text(100), external_user_id: text(256), email: text(320), verdict: { enum: ['allow', 'review', 'block'] },
      ip: text(64), card: text(256), identity: { type: 'string', minLength: 3, maxLength: 600, pattern: '^[^=]+=.+$' }, reason: text(64),
      review: { enum: ['pending', 'approved', 'denied', 'none'] },
      resolved_from: { type: 'string', format: 'date-time' }, resolved_to: { type: 'string', format: 'date-time' },
      feedback: { enum: ['confirmed_abuse', 'false_positive', 'chargeback', 'retracted'] },
      feedback_from: { type: 'string', format: 'date-time' }, feedback_to: { type: 'string', format: 'date-time' },
      event_type: { enum: ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'] },
      from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' },
      cursor: text(200), limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    },
  },
  ReviewQueue: {
    type: 'object', additionalProperties: false,
    properties: {
      cursor: text(200), limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
      event_type: { enum: ['signup', 'trial_start', 'trial_convert', 'checkout_attempt', 'login'] }, reason: text(64),
      older_than_minutes: { type: 'integer', minimum: 0, maximum: 525_600 }, newer_than_minutes: { type: 'integer', minimum: 1, maximum: 525_600 },
      min_accounts: { type: 'integer', minimum: 2, maximum: 1_000_000 }, text: text(320), confirmed: { enum: ['1'] },
    },
  },
  ResolveMany: {
    type: 'object', additionalProperties: false, required: ['event_ids', 'resolution'],
    properties: { event_ids: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: text(100) }, resolution: { enum: ['approved', 'denied'] }, note: text(2000, 0) },
  },
  UndoMarks: { type: 'object', additionalProperties: false, required: ['note'], properties: { note: text(2000) } },
  Page: { type: 'object', additionalProperties: false, properties: { cursor: text(200), limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } } },
  FeedbackSearch: { type: 'object', additionalProperties: false, properties: { external_user_id: text(256), email: text(320), event_id: text(100) } },
  Retract: { type: 'object', additionalProperties: false, required: ['note'], properties: { note: text(2000) } },
  // Analysts' own Cypher: parameter values are JSON (strings, numbers, booleans, lists, maps).
  CypherRun: {
    type: 'object', additionalProperties: false, required: ['query'],
    properties: { query: text(16_384), params: { type: 'object', maxProperties: 50, propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]{0,63}$' } } },
  },
  SaveQuery: {
    type: 'object', additionalProperties: false, required: ['id', 'query'],
    properties: { id: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' }, description: text(500, 0), query: text(16_384) },
  },
  CypherSettings: { type: 'object', additionalProperties: false, required: ['free_form_roles'], properties: { free_form_roles: { enum: ['admin', 'analyst'] } } },
} as const;

export type SchemaName = keyof typeof SCHEMAS;

const bodies = new Ajv2020({ allErrors: true, strict: false });
// Query strings arrive as strings: coerced and given their defaults in place (pass a copy).
const queries = new Ajv2020({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true });
// A date-time is what Date.parse reads and carries a zone (RFC 3339 in practice).
for (const ajv of [bodies, queries]) ajv.addFormat('date-time', (s: string) => /(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)));

const compiled = {
  body: Object.fromEntries(Object.entries(SCHEMAS).map(([k, s]) => [k, bodies.compile(s)])),
  query: Object.fromEntries(Object.entries(SCHEMAS).map(([k, s]) => [k, queries.compile(s)])),
};

export function consoleValidated<T>(name: SchemaName, value: unknown, from: 'body' | 'query' = 'body'): T {
  const check = compiled[from][name]!;
  if (check(value)) return value as T;
  const issues = (check.errors ?? []).map((e) => {
    const key = (e.params as { additionalProperty?: string; missingProperty?: string }).additionalProperty ?? (e.params as { missingProperty?: string }).missingProperty;
    return { path: key ? `${e.instancePath}/${key}` : e.instancePath, message: e.keyword === 'additionalProperties' ? 'unknown field' : e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid') };
  });
  throw AppError.invalid(issues);
}
