// SQL for service_secrets: a named random secret, created on first use by whichever instance
// gets there first; every instance then reads the same bytes.
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/queryable.js';

export async function loadOrCreateSecret(db: Queryable, name: string): Promise<Buffer> {
  await db.query('INSERT INTO service_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    randomBytes(32),
  ]);
  const { rows } = await db.query<{ secret: Buffer }>('SELECT secret FROM service_secrets WHERE name = $1', [name]);
  const row = rows[0];
  if (!row) throw new Error(`service secret ${name} missing after insert`);
  return row.secret;
}
