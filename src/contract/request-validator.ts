// Validates values against the schemas of the OpenAPI document and turns Ajv's errors into the
// contract's `details.issues`: one `{path, message}` per failed field, path a JSON Pointer.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from './openapi.js';

export type ValidationIssue = { path: string; message: string };
export type RequestValidator = { validate(schemaName: string, value: unknown): ValidationIssue[] };

type KnownValues = { error_codes: string[]; reason_codes: string[]; recommended_actions: string[] };
const known = openApiDocument['x-service-known-values'] as KnownValues;
export const knownErrorCodes: readonly string[] = Object.freeze([...known.error_codes]);
export const knownReasonCodes: readonly string[] = Object.freeze([...known.reason_codes]);
export const knownRecommendedActions: readonly string[] = Object.freeze([...known.recommended_actions]);

const documentId = 'doorman-openapi';
// ajv-formats is CommonJS; under NodeNext its plugin is the `default` of the imported module.
const addFormats = addFormatsModule.default;

// Query strings arrive as strings: their schemas are compiled by a second Ajv that coerces types
// and fills defaults, in place, in the object it is given (so pass it a copy of req.query).
export function createRequestValidator(): RequestValidator {
  const bodies = compileAll(newAjv(false), bodySchemaNames());
  const queries = compileAll(newAjv(true), querySchemaNames());
  return {
    validate(schemaName, value) {
      const check = queries.get(schemaName) ?? bodies.get(schemaName);
      if (check === undefined) throw new Error(`no schema named ${schemaName} in the OpenAPI document`);
      return check(value) ? [] : toIssues(check.errors ?? []);
    },
  };
}

function newAjv(forQueries: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allErrors: true,
    verbose: true,
    allowUnionTypes: true,
    coerceTypes: forQueries,
    useDefaults: forQueries,
  });
  addFormats(ajv);
  // The document's own top-level keys and our schema extension are annotations, not keywords to enforce.
  ajv.addVocabulary([...Object.keys(openApiDocument), 'x-error-message']);
  // Registered whole under an id, so `#/components/schemas/X` refs inside it resolve against the document.
  ajv.addSchema(openApiDocument, documentId);
  return ajv;
}

function compileAll(ajv: Ajv2020, names: string[]): Map<string, ValidateFunction> {
  const compiled = new Map<string, ValidateFunction>();
  for (const name of names) {
    const check = ajv.getSchema(`${documentId}#/components/schemas/${name}`);
    if (check === undefined) throw new Error(`schema ${name} did not compile`);
    compiled.set(name, check);
  }
  return compiled;
}

function componentSchemas(): Record<string, unknown> {
  return (openApiDocument.components as { schemas: Record<string, unknown> }).schemas;
}

// A schema is a query schema when some operation takes it as an exploded `in: query` parameter.
function querySchemaNames(): string[] {
  const names = new Set<string>();
  const paths = openApiDocument.paths as Record<string, Record<string, { parameters?: unknown[] }>>;
  for (const operation of Object.values(paths).flatMap((pathItem) => Object.values(pathItem))) {
    for (const parameter of operation.parameters ?? []) {
      const { in: location, schema } = parameter as { in: string; schema?: { $ref?: string } };
      const name = schema?.$ref?.match(/^#\/components\/schemas\/(.+)$/)?.[1];
      if (location === 'query' && name !== undefined) names.add(name);
    }
  }
  return [...names];
}

function bodySchemaNames(): string[] {
  const queryNames = new Set(querySchemaNames());
  return Object.keys(componentSchemas()).filter((name) => !queryNames.has(name));
}

function toIssues(errors: ErrorObject[]): ValidationIssue[] {
  // An anyOf failure speaks for its branches; an `if` failure only says its `then` failed, which is reported itself;
  // a propertyNames failure is reported through the inner error that names the key.
  const alternatives = errors.filter((error) => error.keyword === 'anyOf');
  const isBranchNoise = (error: ErrorObject) =>
    alternatives.some(
      (alternative) =>
        error !== alternative &&
        error.schemaPath.startsWith(`${alternative.schemaPath}/`) &&
        error.instancePath.startsWith(alternative.instancePath),
    );
  const issues = new Map<string, string>();
  for (const error of errors) {
    if (error.keyword === 'if' || error.keyword === 'propertyNames' || isBranchNoise(error)) continue;
    const path = pathOf(error);
    if (!issues.has(path)) issues.set(path, messageOf(error));
  }
  return [...issues].map(([path, message]) => ({ path, message }));
}

function pathOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const key =
    error.propertyName ??
    (error.keyword === 'additionalProperties' ? params.additionalProperty : undefined) ??
    (error.keyword === 'required' ? params.missingProperty : undefined);
  return typeof key === 'string' ? `${error.instancePath}/${escapePointer(key)}` : error.instancePath;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function messageOf(error: ErrorObject): string {
  const message = ruleMessage(error);
  return error.propertyName === undefined ? message : `key ${message}`;
}

function ruleMessage(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const custom = (error.parentSchema as Record<string, unknown> | undefined)?.['x-error-message'];
  switch (error.keyword) {
    case 'additionalProperties':
      return 'unknown field';
    case 'required':
      return 'is required';
    case 'type':
      return `must be ${String(params.type).split(',').map(withArticle).join(' or ')}`;
    case 'enum':
      return `must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'minLength':
      return params.limit === 1 ? 'must not be empty' : `must be at least ${params.limit} characters`;
    case 'maxLength':
      return `must be at most ${params.limit} characters`;
    case 'minimum':
      return `must be at least ${params.limit}`;
    case 'maximum':
      return `must be at most ${params.limit}`;
    case 'exclusiveMinimum':
      return `must be greater than ${params.limit}`;
    case 'exclusiveMaximum':
      return `must be less than ${params.limit}`;
    case 'pattern':
      return typeof custom === 'string' ? custom : `must match ${params.pattern}`;
    case 'format':
      return typeof custom === 'string' ? custom : `must be a valid ${params.format}`;
    case 'anyOf':
      return typeof custom === 'string' ? custom : 'does not match any allowed form';
    default:
      return error.message ?? 'is invalid';
  }
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
