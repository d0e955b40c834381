// The fetched feeds as each instance holds them, loaded from Postgres (intel_feeds, the one
// truth): the three ip lists, which ip intelligence reads beside INTEL_DIR's files; the
// disposable-email domains; and the RDAP server of each top-level domain. Each load also writes
// the copy this machine last loaded under INTEL_DIR/fetched/<database>/ (atomically: a temporary
// file, then a rename), and a load that cannot reach Postgres reads that copy instead, so an instance that
// starts while Postgres is away still serves the last good data. Reloaded on every announcement
// of a change (src/signals/ip/intel-reload.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Queryable } from '../db/queryable.js';
import type { IntelCategory, IntelSource } from '../signals/ip/ip-intel.js';
import { feedBodies } from './intel-feed-store.js';
import type { FeedCategory } from './intel-sources.js';

export interface FetchedFeeds {
  // One per ip category, read at each ip intelligence load.
  ipSources(): IntelSource[];
  disposableDomains(): ReadonlySet<string>;
  // The RDAP base URL per top-level domain; undefined until a bootstrap registry was fetched.
  rdapServers(): ReadonlyMap<string, string> | undefined;
  // Loads the domain feeds (the ip ones load with ip intelligence).
  reload(): Promise<void>;
}

const IP_CATEGORIES: readonly IntelCategory[] = ['tor_exit', 'proxy', 'datacenter'];

// `copies`: where this machine keeps its copy, one folder per database (several may share an
// INTEL_DIR, as a test run beside `npm start` does): intelCopiesDir below.
export function createFetchedFeeds(deps: { db: Queryable; copies: string; logger: Logger }): FetchedFeeds {
  const { copies } = deps;
  let disposable: ReadonlySet<string> = new Set();
  let rdap: ReadonlyMap<string, string> | undefined;
  let unwritable = false;

  // The entries of one category, from Postgres (and kept on disk), or from the disk's copy.
  async function entriesOf(category: FeedCategory): Promise<string> {
    const file = path.join(copies, `${category}.txt`);
    let text: string;
    try {
      text = (await feedBodies(deps.db, [category])).map((f) => f.body).join('');
    } catch (err) {
      deps.logger.warn({ category, err: (err as Error).message }, 'intel feeds: Postgres not reached; the copy on disk is used');
      return fs.readFile(file, 'utf8').catch(() => '');
    }
    await writeAtomically(file, text).catch((err: Error) => {
      if (!unwritable)
        deps.logger.warn({ dir: copies, err: err.message }, 'intel feeds: no copy kept on disk (the folder is not writable)');
      unwritable = true;
    });
    return text;
  }

  async function load(): Promise<void> {
    const [domains, servers] = await Promise.all([entriesOf('disposable_email'), entriesOf('rdap_bootstrap')]);
    disposable = new Set(lines(domains));
    const map = new Map<string, string>();
    for (const line of lines(servers)) {
      const [tld, url] = line.split(' ');
      if (tld && url) map.set(tld, url);
    }
    rdap = map.size > 0 ? map : undefined;
  }
  // Loads run one after another, in call order: an older, slower load never overwrites a newer
  // one, and two never write one copy's temporary file at once.
  let loading: Promise<unknown> = Promise.resolve();

  return {
    ipSources: () => IP_CATEGORIES.map((category) => ({ name: `intel_feeds:${category}`, category, read: () => entriesOf(category) })),
    disposableDomains: () => disposable,
    rdapServers: () => rdap,
    reload() {
      const run = loading.then(load, load);
      loading = run.catch(() => undefined);
      return run;
    },
  };
}

// INTEL_DIR/fetched/<database>: the database named in its URL, in characters safe for a folder.
export function intelCopiesDir(intelDir: string, databaseUrl: string): string {
  let name = 'default';
  try {
    name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, '')) || name;
  } catch {
    // a URL loadConfig accepted always parses; the default folder otherwise
  }
  return path.join(intelDir, 'fetched', name.replace(/[^A-Za-z0-9_-]/g, '_'));
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

async function writeAtomically(file: string, text: string): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temporary, text);
  await fs.rename(temporary, file);
}
