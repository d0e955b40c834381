// The opaque cursor of a keyset page (events, the review queue, shadow flips): the (created_at,
// id) of the last row on a page.
import { AppError } from '../errors.js';
import { textProblem } from '../contract/input-issues.js';

// Postgres timestamptz reaches back to 4713 BC, a JS Date to 271821 BC: a cursor's moment is AD.
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');

export function encodeCursor(after: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify([after.createdAt.toISOString(), after.id])).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const invalid = AppError.invalid([{ path: '/cursor', message: 'is not a next_cursor from a previous page' }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') throw invalid;
  if (textProblem(parsed[1]) || parsed[1].length > 128) throw invalid;
  const createdAt = new Date(parsed[0]);
  const at = createdAt.getTime();
  if (Number.isNaN(at) || at < EARLIEST) throw invalid;
  return { createdAt, id: parsed[1] };
}
