// SQL of intel_feeds: each public feed's last good copy (one normalized entry per line) and what
// its last fetch found (an error stands until a fetch answers well again). A row is written only by the updater's three outcomes below; a failure
// never touches the body, so the last good copy survives every bad answer.
import type { Queryable } from '../db/queryable.js';

// What the updater keeps between fetches, without the body.
export interface FeedState {
  name: string;
  category: string;
  url: string;
  entries: number;
  sha256: string | null;
  etag: string | null;
  lastModified: string | null;
  changedAt: Date | null;
  lastSuccess: Date | null;
  lastAttempt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
}

interface FeedStateRow {
  name: string;
  category: string;
  url: string;
  entries: number;
  sha256: string | null;
  etag: string | null;
  last_modified: string | null;
  changed_at: Date | null;
  last_success: Date | null;
  last_attempt: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
}

const stateOf = (r: FeedStateRow): FeedState => ({
  name: r.name,
  category: r.category,
  url: r.url,
  entries: r.entries,
  sha256: r.sha256,
  etag: r.etag,
  lastModified: r.last_modified,
  changedAt: r.changed_at,
  lastSuccess: r.last_success,
  lastAttempt: r.last_attempt,
  lastError: r.last_error,
  lastErrorAt: r.last_error_at,
});

export async function feedStates(db: Queryable): Promise<FeedState[]> {
  const { rows } = await db.query<FeedStateRow>(
    `SELECT name, category, url, entries, sha256, etag, last_modified, changed_at, last_success, last_attempt, last_error, last_error_at
       FROM intel_feeds ORDER BY name`,
  );
  return rows.map(stateOf);
}

// The bodies of these categories' feeds, by name.
export async function feedBodies(
  db: Queryable,
  categories: readonly string[],
): Promise<{ name: string; category: string; body: string }[]> {
  const { rows } = await db.query<{ name: string; category: string; body: string }>(
    'SELECT name, category, body FROM intel_feeds WHERE category = ANY($1::text[]) ORDER BY name',
    [categories],
  );
  return rows;
}

export interface FeedSource {
  name: string;
  category: string;
  url: string;
}

// A new body: stored with its validators, and it counts as a success.
export async function recordChanged(
  db: Queryable,
  source: FeedSource,
  fetched: { body: string; entries: number; sha256: string; etag: string | null; lastModified: string | null },
  at: Date,
): Promise<void> {
  await db.query(
    `INSERT INTO intel_feeds (name, category, url, body, entries, sha256, etag, last_modified, changed_at, last_success, last_attempt)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9)
     ON CONFLICT (name) DO UPDATE SET category = $2, url = $3, body = $4, entries = $5, sha256 = $6, etag = $7,
       last_modified = $8, changed_at = $9, last_success = $9, last_attempt = $9, last_error = NULL, last_error_at = NULL`,
    [source.name, source.category, source.url, fetched.body, fetched.entries, fetched.sha256, fetched.etag, fetched.lastModified, at],
  );
}

// The source answered that nothing changed (a 304, or the same content): a success; the body
// stays, the validators are the answer's when it gave new ones.
export async function recordUnchanged(
  db: Queryable,
  source: FeedSource,
  validators: { etag: string | null; lastModified: string | null },
  at: Date,
): Promise<void> {
  await db.query(
    `UPDATE intel_feeds SET category = $2, url = $3, etag = coalesce($4, etag), last_modified = coalesce($5, last_modified),
       last_success = $6, last_attempt = $6, last_error = NULL, last_error_at = NULL
     WHERE name = $1`,
    [source.name, source.category, source.url, validators.etag, validators.lastModified, at],
  );
}

// A failed fetch, or an answer refused: recorded, and the last good body kept.
export async function recordFailure(db: Queryable, source: FeedSource, error: string, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO intel_feeds (name, category, url, last_attempt, last_error, last_error_at) VALUES ($1, $2, $3, $4, $5, $4)
     ON CONFLICT (name) DO UPDATE SET category = $2, url = $3, last_attempt = $4, last_error = $5, last_error_at = $4`,
    [source.name, source.category, source.url, at, error.slice(0, 2000)],
  );
}

// The copies of sources no longer configured go (and, their bodies gone, every instance reloads
// without them). Returns their names.
export async function forgetFeedsExcept(db: Queryable, names: readonly string[]): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('DELETE FROM intel_feeds WHERE NOT (name = ANY($1::text[])) RETURNING name', [names]);
  return rows.map((r) => r.name).sort();
}
