// Use case: `doorman intel status`. Per configured source, how old the data in use is and what
// its last fetch found. A feed is stale when it never answered well, or when its last good
// answer is older than twice its interval: its copy still serves, but says less each hour.
import type pg from 'pg';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { feedStates } from './intel-feed-store.js';
import { intelSources } from './intel-sources.js';

export interface IntelStatusDeps {
  db: pg.Pool;
  clock: Clock;
  config: Pick<Config, 'intelSourcesFile'>;
}

export interface SourceStatus {
  name: string;
  category: string;
  url: string;
  last_success: string | null;
  // Seconds since last_success; null when there was none.
  age_seconds: number | null;
  entries: number;
  last_error: string | null;
  last_error_at: string | null;
  stale: boolean;
}

export async function intelStatus(deps: IntelStatusDeps): Promise<{ ok: true; sources: SourceStatus[] }> {
  const states = new Map((await feedStates(deps.db)).map((s) => [s.name, s]));
  const now = deps.clock.now().getTime();
  const sources = intelSources(deps.config).map((source): SourceStatus => {
    const state = states.get(source.name);
    const age = state?.lastSuccess ? Math.max(0, Math.round((now - state.lastSuccess.getTime()) / 1000)) : null;
    return {
      name: source.name,
      category: source.category,
      url: source.url,
      last_success: state?.lastSuccess?.toISOString() ?? null,
      age_seconds: age,
      entries: state?.entries ?? 0,
      last_error: state?.lastError ?? null,
      last_error_at: state?.lastErrorAt?.toISOString() ?? null,
      stale: age === null || age > 2 * source.everySeconds,
    };
  });
  return { ok: true, sources };
}
