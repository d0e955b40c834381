// The events list's opaque cursor: the (created_at, id) of the last event on a page.
import { AppError } from '../http/app-error.js';

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
  const createdAt = new Date(parsed[0]);
  if (Number.isNaN(createdAt.getTime())) throw invalid;
  return { createdAt, id: parsed[1] };
}
