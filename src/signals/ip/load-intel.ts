// Reads the intel directory and any extra sources into one IpRangeSet per category. It only builds:
// whether and when the result replaces what lookups see is ip-intel.ts's business.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { IpRangeSet, type IpRange } from './ip-range-set.js';
import { parseIpEntry } from './parse-ip-entry.js';

export const INTEL_CATEGORIES = ['tor_exit', 'proxy', 'datacenter'] as const;
export type IntelCategory = (typeof INTEL_CATEGORIES)[number];

// A source of entries beside the directory (e.g. a list shipped in a package). Its text is in the
// file format; a source that rejects fails the whole load, like an unreadable file.
export type IntelSource = { name: string; category: IntelCategory; read(): Promise<string> };

// One file or source: how many entries it gave, how many lines it skipped, and where (the first few).
export type IntelOrigin = { category: IntelCategory; origin: string; entries: number; skipped: number; badLines: number[] };

export type LoadedIntel = {
  sets: Record<IntelCategory, IpRangeSet>;
  counts: Record<IntelCategory, number>;
  skipped: Record<IntelCategory, number>;
  ranges: Record<IntelCategory, number>;
  origins: IntelOrigin[];
};

const BAD_LINES_KEPT = 5;

// A missing or unreadable directory, an unreadable file or a failed source throws; a missing
// category file is simply empty. Bad lines never throw: they are counted and reported.
export async function loadIntel(dir: string, extraSources: readonly IntelSource[] = []): Promise<LoadedIntel> {
  if (!(await stat(dir)).isDirectory()) throw new Error(`intel dir is not a directory: ${dir}`);
  const origins: IntelOrigin[] = [];
  const ranges = byCategory<IpRange[]>(() => []);
  for (const category of INTEL_CATEGORIES) {
    for (const file of await categoryFiles(dir, category)) {
      const text = await readOptional(file);
      if (text !== null) origins.push(parseInto(ranges[category], text, category, file));
    }
  }
  for (const source of extraSources) {
    origins.push(parseInto(ranges[source.category], await source.read(), source.category, source.name));
  }
  const sets = byCategory((c) => IpRangeSet.build(ranges[c]));
  const total = (pick: (o: IntelOrigin) => number) => (c: IntelCategory) =>
    origins.filter((o) => o.category === c).reduce((sum, o) => sum + pick(o), 0);
  return {
    sets,
    counts: byCategory(total((o) => o.entries)),
    skipped: byCategory(total((o) => o.skipped)),
    ranges: byCategory((c) => sets[c].size),
    origins,
  };
}

// <category>.txt, then every *.txt in <category>.d/ in name order; hidden files are editors' leftovers.
async function categoryFiles(dir: string, category: IntelCategory): Promise<string[]> {
  const files = [join(dir, `${category}.txt`)];
  const extraDir = join(dir, `${category}.d`);
  let names: string[];
  try {
    names = await readdir(extraDir);
  } catch (err) {
    if (isMissing(err)) return files;
    throw err;
  }
  for (const name of names.sort()) {
    if (name.startsWith('.') || !name.endsWith('.txt')) continue;
    const path = join(extraDir, name);
    if ((await stat(path)).isFile()) files.push(path);
  }
  return files;
}

function parseInto(into: IpRange[], text: string, category: IntelCategory, origin: string): IntelOrigin {
  const result: IntelOrigin = { category, origin, entries: 0, skipped: 0, badLines: [] };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] as string;
    const hash = raw.indexOf('#');
    const entry = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    if (entry === '') continue;
    const range = parseIpEntry(entry);
    if (range) {
      into.push(range);
      result.entries++;
    } else {
      result.skipped++;
      if (result.badLines.length < BAD_LINES_KEPT) result.badLines.push(i + 1);
    }
  }
  return result;
}

async function readOptional(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ENOENT';
}

function byCategory<T>(make: (category: IntelCategory) => T): Record<IntelCategory, T> {
  return { tor_exit: make('tor_exit'), proxy: make('proxy'), datacenter: make('datacenter') };
}
