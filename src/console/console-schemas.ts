// The console API's bodies and queries checked by Ajv against their definitions in the wire's
// schema (console-wire-schema.ts; not part of the public contract); a failure is a 400
// invalid_request naming each field, like the public API's. What passes is typed as the
// definition's generated type.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { AppError } from '../errors.js';
import { CONSOLE_ROUTES, CONSOLE_WIRE, CONSOLE_WIRE_ID, type WireName } from './console-wire-schema.js';
import type { ConsoleWire } from './generated/console-wire.js';

// The definitions the routes take as a body or a query string.
type Routes = typeof CONSOLE_ROUTES;
type Taken<K extends 'body' | 'query'> = {
  [R in keyof Routes]: Routes[R] extends { readonly [k in K]: infer N } ? N : never;
}[keyof Routes];
export type RequestName = Taken<'body'> | Taken<'query'>;
const REQUESTS = [
  ...new Set(
    Object.values(CONSOLE_ROUTES).flatMap((r): WireName[] => [...('body' in r ? [r.body] : []), ...('query' in r ? [r.query] : [])]),
  ),
];

const bodies = new Ajv2020({ allErrors: true, strict: false });
// Query strings arrive as strings: coerced and given their defaults in place (pass a copy).
const queries = new Ajv2020({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true });
// A date-time is what Date.parse reads and carries a zone (RFC 3339 in practice).
for (const ajv of [bodies, queries]) {
  ajv.addFormat('date-time', (s: string) => /(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)));
  ajv.addSchema(CONSOLE_WIRE);
}

const compile = (ajv: Ajv2020, name: WireName) => {
  const check = ajv.getSchema(`${CONSOLE_WIRE_ID}#/$defs/${name}`);
  if (!check) throw new Error(`the console wire has no definition ${name}`);
  return check;
};
// Compiled at startup: a broken schema stops the process, not a request.
const compiled = {
  body: Object.fromEntries(REQUESTS.map((n) => [n, compile(bodies, n)])),
  query: Object.fromEntries(REQUESTS.map((n) => [n, compile(queries, n)])),
};

// A query string that passed has every property its definition gives a default (Ajv put it there).
type Defs = typeof CONSOLE_WIRE.$defs;
type Defaulted<N extends WireName> = Defs[N] extends { properties: infer P }
  ? { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P]
  : never;
export type ValidatedQuery<N extends RequestName> = ConsoleWire[N] & {
  [K in Defaulted<N> & keyof ConsoleWire[N]]-?: NonNullable<ConsoleWire[N][K]>;
};

export function consoleValidated<N extends RequestName>(name: N, value: unknown): ConsoleWire[N];
export function consoleValidated<N extends RequestName>(name: N, value: unknown, from: 'query'): ValidatedQuery<N>;
export function consoleValidated<N extends RequestName>(name: N, value: unknown, from: 'body' | 'query' = 'body'): ConsoleWire[N] {
  const check = compiled[from][name]!;
  if (check(value)) return value as ConsoleWire[N];
  const issues = (check.errors ?? []).map((e) => {
    const key =
      (e.params as { additionalProperty?: string; missingProperty?: string }).additionalProperty ??
      (e.params as { missingProperty?: string }).missingProperty;
    return {
      path: key ? `${e.instancePath}/${key}` : e.instancePath,
      message:
        e.keyword === 'additionalProperties' ? 'unknown field' : e.keyword === 'required' ? 'is required' : (e.message ?? 'is invalid'),
    };
  });
  throw AppError.invalid(issues);
}
