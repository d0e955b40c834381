// Every Cypher statement lives in cypher/ as one file, loaded once at boot and asked for by
// name; asking for an unknown name is a programming error and throws.
import fs from 'node:fs';
import path from 'node:path';
import { repoDir } from '../config.js';

export interface CypherCatalog {
  get(name: string): string;
  names(): string[];
  // The file's opening comment lines, without the slashes (what it answers, its parameters and
  // columns): the analyst console lists saved queries with it.
  header(name: string): string;
}

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? walk(full) : entry.name.endsWith('.cypher') ? [full] : [];
  });
}

// The text sent on every call: without comment lines and indentation, so the driver encodes and
// the server hashes (plan-cache key) less. Line breaks stay, so error positions remain readable.
function compact(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('//'))
    .join('\n');
}

// Names are paths below cypher/ without the extension: `schema/001-constraints`, `graph/link-event`.
export function loadCypher(dir = path.join(repoDir, 'cypher')): CypherCatalog {
  const statements = new Map<string, string>();
  const headers = new Map<string, string>();
  for (const file of walk(dir).sort()) {
    const name = path
      .relative(dir, file)
      .replace(/\\/g, '/')
      .replace(/\.cypher$/, '');
    const text = fs.readFileSync(file, 'utf8');
    statements.set(name, compact(text));
    const opening = text.split('\n').map((l) => l.trim());
    const end = opening.findIndex((l) => !l.startsWith('//'));
    headers.set(
      name,
      opening
        .slice(0, end === -1 ? undefined : end)
        .map((l) => l.replace(/^\/\/\s?/, ''))
        .join('\n'),
    );
  }
  return {
    get(name) {
      const text = statements.get(name);
      if (text === undefined) throw new Error(`unknown Cypher statement "${name}"`);
      return text;
    },
    names: () => [...statements.keys()],
    header(name) {
      const text = headers.get(name);
      if (text === undefined) throw new Error(`unknown Cypher statement "${name}"`);
      return text;
    },
  };
}

// Schema files may hold several statements separated by semicolons; comments are dropped.
export function splitStatements(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n')
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);
}
