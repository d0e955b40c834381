// Use case: `doorman intel update` and the scheduled job. Each source is fetched (conditionally),
// parsed in its publisher's format, checked, and stored as its new last good copy; every failure
// is recorded beside the copy it leaves in place, and fails no other source. A stored change
// announces itself, and every instance reloads (migration 0025's trigger).
// The sanity bound: a feed that parses to nothing, or to less than half of what it held, is
// refused unless forced: a truncated download, a captive portal's page or a publisher's bad day
// must never empty a list.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { FeedFormatError, parseFeed } from './feed-formats.js';
import { fetchFeed, FeedFetchError } from './fetch-feed.js';
import { feedStates, forgetFeedsExcept, recordChanged, recordFailure, recordUnchanged, type FeedState } from './intel-feed-store.js';
import { intelSources, type IntelFeedSource } from './intel-sources.js';

// What updating the feeds needs; the composition root (src/deps.ts) passes its Deps.
export interface IntelUpdateDeps {
  db: pg.Pool;
  clock: Clock;
  logger: Logger;
  config: Pick<Config, 'intelSourcesFile' | 'intelFetchTimeoutMs' | 'intelFetchMaxBytes'>;
}

export interface SourceResult {
  name: string;
  category: string;
  status: 'updated' | 'unchanged' | 'failed';
  // The entries in use after this update (a failed source's: those it kept).
  entries: number;
  // When the data in use was last fetched or confirmed; null when it never was.
  fetched_at: string | null;
  error: string | null;
}

export interface UpdateOptions {
  // Only these sources (names); all when absent.
  only?: readonly string[];
  // Only the sources whose interval has passed since their last good answer (the scheduled job).
  dueOnly?: boolean;
  // Store an answer even when it shrank by more than half or parses to nothing.
  force?: boolean;
}

// Sources fetched at once: a few, so one slow publisher does not hold the others up.
const CONCURRENCY = 4;

export async function updateIntel(deps: IntelUpdateDeps, options: UpdateOptions = {}): Promise<{ ok: true; sources: SourceResult[] }> {
  const sources = chosenSources(intelSources(deps.config), options.only);
  const states = new Map((await feedStates(deps.db)).map((s) => [s.name, s]));
  const now = deps.clock.now();
  const due = options.dueOnly
    ? sources.filter((s) => {
        const last = states.get(s.name)?.lastSuccess;
        return !last || now.getTime() - last.getTime() >= s.everySeconds * 1000 - 60_000;
      })
    : sources;
  const results: SourceResult[] = [];
  for (let i = 0; i < due.length; i += CONCURRENCY) {
    results.push(...(await Promise.all(due.slice(i, i + CONCURRENCY).map((s) => updateSource(deps, s, states.get(s.name), options)))));
  }
  // A source turned off (or renamed) in INTEL_SOURCES stops counting: its copy goes.
  if (!options.only?.length) {
    const forgotten = await forgetFeedsExcept(
      deps.db,
      sources.map((s) => s.name),
    );
    if (forgotten.length > 0) deps.logger.info({ sources: forgotten }, 'intel feeds no longer configured: their copies removed');
  }
  return { ok: true, sources: results };
}

function chosenSources(sources: IntelFeedSource[], only: readonly string[] | undefined): IntelFeedSource[] {
  if (!only || only.length === 0) return sources;
  const unknown = only.filter((name) => !sources.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw AppError.invalid(
      unknown.map((name) => ({ path: 'source', message: `no source ${name} (known: ${sources.map((s) => s.name).join(', ')})` })),
    );
  }
  return sources.filter((s) => only.includes(s.name));
}

async function updateSource(
  deps: IntelUpdateDeps,
  source: IntelFeedSource,
  state: FeedState | undefined,
  options: UpdateOptions,
): Promise<SourceResult> {
  const kept = (status: SourceResult['status'], error: string | null, at: Date | null = state?.lastSuccess ?? null): SourceResult => ({
    name: source.name,
    category: source.category,
    status,
    entries: state?.entries ?? 0,
    fetched_at: at?.toISOString() ?? null,
    error,
  });
  const at = deps.clock.now();
  try {
    // Validators only while a copy is held: without one, a 304 would leave nothing to serve.
    const held = state && state.sha256 !== null;
    const answer = await fetchFeed(
      source.url,
      { etag: held ? state.etag : null, lastModified: held ? state.lastModified : null },
      { timeoutMs: deps.config.intelFetchTimeoutMs, maxBytes: deps.config.intelFetchMaxBytes },
    );
    if (answer.kind === 'unchanged') {
      await recordUnchanged(deps.db, source, answer, at);
      return kept('unchanged', null, at);
    }
    const parsed = parseFeed(source.format, answer.body);
    const refusal = sanityRefusal(parsed.entries.length, state?.entries ?? 0, options.force === true);
    if (refusal) throw new FeedFetchError(refusal);
    const body = `${parsed.entries.join('\n')}\n`;
    const sha256 = createHash('sha256').update(body).digest('hex');
    if (state?.sha256 === sha256) {
      await recordUnchanged(deps.db, source, answer, at);
      return kept('unchanged', null, at);
    }
    await recordChanged(
      deps.db,
      source,
      { body, entries: parsed.entries.length, sha256, etag: answer.etag, lastModified: answer.lastModified },
      at,
    );
    if (parsed.skipped > 0)
      deps.logger.info({ source: source.name, skipped: parsed.skipped }, 'intel feed: lines that are no entry skipped');
    return {
      name: source.name,
      category: source.category,
      status: 'updated',
      entries: parsed.entries.length,
      fetched_at: at.toISOString(),
      error: null,
    };
  } catch (err) {
    const message = err instanceof FeedFetchError || err instanceof FeedFormatError ? err.message : `unexpected: ${String(err)}`;
    deps.logger.warn({ source: source.name, url: source.url, err: message }, 'intel feed not updated; its last good copy stays');
    await recordFailure(deps.db, source, message, at).catch((e: Error) =>
      deps.logger.warn({ source: source.name, err: e.message }, 'intel feed failure not recorded'),
    );
    return kept('failed', message);
  }
}

// Why an answer of `entries` entries may not replace one of `held`; undefined when it may.
export function sanityRefusal(entries: number, held: number, force: boolean): string | undefined {
  if (force) return undefined;
  if (entries === 0) return 'refused: the answer parses to no entry (--force stores it)';
  if (entries * 2 < held) return `refused: ${entries} entries where ${held} were held, less than half (--force stores it)`;
  return undefined;
}
