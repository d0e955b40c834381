// Writes src/console/generated/console-wire.ts from the console API's wire schema
// (src/console/console-wire-schema.ts): one TypeScript type per definition, which the server's
// routes return and the browser console reads. With --check it writes nothing and exits 1 when
// the checked-in file differs from what the schema generates, so the two sides cannot drift
// unnoticed (the tests run it).
//   node scripts/generate-console-types.mjs [--check] [--schema FILE] [--out FILE]
// The schema is a TypeScript module (imported with tsx); the types are printed here, from the
// subset of JSON Schema the wire uses. A keyword this file does not know is an error, never
// silently dropped: teach it here first. Only node: built-ins and tsx.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? path.resolve(args[args.indexOf(name) + 1]) : fallback);
const check = args.includes('--check');
const schemaFile = option('--schema', path.join(repo, 'src', 'console', 'console-wire-schema.ts'));
const outFile = option('--out', path.join(repo, 'src', 'console', 'generated', 'console-wire.ts'));
const WIDTH = 140;

// Keywords that only validate: they narrow the values, not their TypeScript type.
const VALIDATION_ONLY = new Set([
  'description',
  'title',
  'examples',
  '$comment',
  'default',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'maxProperties',
  'propertyNames',
  'dependentRequired',
]);
const TYPED = new Set(['$ref', 'const', 'enum', 'anyOf', 'oneOf', 'type', 'properties', 'required', 'additionalProperties', 'items']);

const { CONSOLE_WIRE: wire } = await tsImport(pathToFileURL(schemaFile).href, import.meta.url);
const defs = wire.$defs;

const literal = (v) => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : String(v));
const union = (types) => [...new Set(types)].join(' | ');
// A type's members at its top level (outside braces, brackets, parentheses, quotes and comments).
function members(t) {
  const out = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === "'") quoted = false;
    } else if (t.startsWith('/*', i)) i = t.indexOf('*/', i) + 1;
    else if (c === "'") quoted = true;
    else if ('{[('.includes(c)) depth++;
    else if ('}])'.includes(c)) depth--;
    else if (depth === 0 && t.startsWith(' | ', i)) {
      out.push(t.slice(start, i));
      start = i + 3;
      i += 2;
    }
  }
  return [...out, t.slice(start)];
}
// A union inside an array needs its parentheses.
const atom = (t) => (members(t).length > 1 ? `(${t})` : t);
const key = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : literal(k));
const doc = (s, pad) => (typeof s.description === 'string' ? `${pad}/** ${s.description} */\n` : '');

function typeOf(s, where, pad) {
  if (s === true || s === undefined) return 'unknown';
  if (typeof s !== 'object' || s === null || Array.isArray(s)) throw new Error(`${where}: a schema must be an object`);
  for (const k of Object.keys(s))
    if (!TYPED.has(k) && !VALIDATION_ONLY.has(k)) throw new Error(`${where}: the generator does not know the keyword ${k}`);
  if (s.$ref !== undefined) {
    const name = /^#\/\$defs\/(\w+)$/.exec(s.$ref)?.[1];
    if (!name || !(name in defs)) throw new Error(`${where}: $ref ${s.$ref} names no definition`);
    return name;
  }
  if ('const' in s) return literal(s.const);
  if (s.enum) return union(s.enum.map(literal));
  const choices = s.anyOf ?? s.oneOf;
  if (choices) return union(choices.map((m, i) => typeOf(m, `${where}/anyOf/${i}`, pad)));
  if (Array.isArray(s.type)) return union(s.type.map((t) => typeOf({ ...s, type: t }, where, pad)));
  switch (s.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `${atom(typeOf(s.items, `${where}/items`, pad))}[]`;
    case 'object':
      return objectOf(s, where, pad);
    case undefined:
      return 'unknown';
    default:
      throw new Error(`${where}: the generator does not know the type ${s.type}`);
  }
}

// A property's line; a union too wide for one line goes one member a line.
function property(name, type, optional, pad) {
  const line = `${pad}${key(name)}${optional ? '?' : ''}: ${type};`;
  if (line.length <= WIDTH || type.includes('\n') || members(type).length === 1) return line;
  return `${pad}${key(name)}${optional ? '?' : ''}:\n${members(type)
    .map((m) => `${pad}  | ${m}`)
    .join('\n')};`;
}

function objectOf(s, where, pad) {
  const inner = `${pad}  `;
  const properties = Object.entries(s.properties ?? {});
  const required = new Set(s.required ?? []);
  for (const r of required) if (!s.properties?.[r]) throw new Error(`${where}: ${r} is required but not a property`);
  const lines = properties.map(
    ([name, p]) => doc(p, inner) + property(name, typeOf(p, `${where}/${name}`, inner), !required.has(name), inner),
  );
  if (s.additionalProperties !== false) {
    const extra = typeOf(s.additionalProperties, `${where}/additionalProperties`, inner);
    // An index signature must admit every named property's type too.
    const all =
      extra === 'unknown'
        ? extra
        : union([
            extra,
            ...properties.map(([name, p]) => typeOf(p, `${where}/${name}`, inner) + (required.has(name) ? '' : ' | undefined')),
          ]);
    if (properties.length === 0 && !all.includes('\n')) return `{ [key: string]: ${all} }`;
    lines.push(`${inner}[key: string]: ${all};`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${pad}}`;
}

// Type aliases, not interfaces: an object type alias is assignable to Record<string, unknown>.
const declaration = (name, s) => `${doc(s, '')}export type ${name} = ${typeOf(s, `#/$defs/${name}`, '')};\n`;

const names = Object.keys(defs);
const text = [
  "// GENERATED by scripts/generate-console-types.mjs from src/console/console-wire-schema.ts: the console API's",
  '// wire, one type per definition, used by the server (src/console/) and the browser console (console/).',
  '// Do not edit: change the schema, run `npm run generate:console-types`; the tests fail while it is stale.',
  '',
  ...names.map((n) => declaration(n, defs[n])),
  '// Every definition by its name in the schema.',
  `export type ConsoleWire = {\n${names.map((n) => `  ${n}: ${n};`).join('\n')}\n};`,
  '',
].join('\n');

const shown = path.relative(process.cwd(), outFile);
let current;
try {
  current = readFileSync(outFile, 'utf8');
} catch {
  current = undefined;
}
if (current === text) {
  console.error(`[console-types] ${shown} matches ${path.relative(process.cwd(), schemaFile)}`);
} else if (!check) {
  writeFileSync(outFile, text);
  console.error(`[console-types] wrote ${shown}`);
} else {
  const was = (current ?? '').split('\n');
  const now = text.split('\n');
  const line = now.findIndex((l, i) => l !== was[i]);
  console.error(
    `[console-types] ${shown} is out of date with ${path.relative(process.cwd(), schemaFile)} (first difference at line ${line + 1}):`,
  );
  console.error(`  checked in: ${was[line] ?? '(end of file)'}`);
  console.error(`  generated:  ${now[line] ?? '(end of file)'}`);
  console.error('[console-types] run `npm run generate:console-types` and commit the result');
  process.exit(1);
}
