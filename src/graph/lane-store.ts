// SQL of the graph writer's lanes: graph_lane_epochs (each lane's epoch and fence key), the
// advisory locks by which a writer owns a lane, and the settings of the writer's own session.
// The lock statements take the session itself (pg.ClientBase, never the pool): an advisory lock
// belongs to the session that took it, so each must run where the lanes are held.
import type pg from 'pg';
import type { Queryable } from '../db/queryable.js';

// 'grap': the advisory-lock namespace of the lanes.
export const LOCK_CLASS = 0x67726170;

// Postgres ends this session when it goes silent (the writer queries every second), and probes a
// quiet peer's socket: either way its advisory locks are freed within seconds, not after the
// operating system's two-hour keepalive. Its statements time out, and it listens on `channel`.
export async function setUpWriterSession(
  c: pg.ClientBase,
  s: { idleTimeoutMs: number; statementTimeoutMs: number; channel: string },
): Promise<void> {
  await c.query(`SET idle_session_timeout = ${Math.round(s.idleTimeoutMs)}`);
  await c.query('SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; SET tcp_keepalives_count = 3');
  await c.query(`SET statement_timeout = ${Math.round(s.statementTimeoutMs)}`);
  await c.query(`LISTEN ${s.channel}`);
}

// The heartbeat: a session that no longer answers is found lost within a query timeout.
export async function heartbeat(c: pg.ClientBase): Promise<void> {
  await c.query('SELECT 1');
}

// Takes those of `lanes` whose lock is free, and raises the epoch of each taken, in the same
// statement: the batches of this session carry it.
export async function takeLanes(c: pg.ClientBase, lanes: number[]): Promise<{ lane: number; epoch: number; fenceKey: string }[]> {
  const { rows } = await c.query<{ lane: number; epoch: string; fence_key: string }>(
    `WITH taken AS MATERIALIZED (SELECT l FROM unnest($1::int[]) AS l WHERE pg_try_advisory_lock($2, l))
     UPDATE graph_lane_epochs e SET epoch = e.epoch + 1 FROM taken WHERE e.lane = taken.l
     RETURNING e.lane, e.epoch, e.fence_key`,
    [lanes, LOCK_CLASS],
  );
  return rows.map((r) => ({ lane: r.lane, epoch: Number(r.epoch), fenceKey: r.fence_key }));
}

// Unlocks the lane once; false when this session did not hold it.
export async function unlockLane(c: pg.ClientBase, lane: number): Promise<boolean> {
  const { rows } = await c.query<{ unlocked: boolean }>('SELECT pg_advisory_unlock($1, $2) AS unlocked', [LOCK_CLASS, lane]);
  return rows[0]?.unlocked === true;
}

// Raises a lane's epoch past the fence `seen`, only from the session that holds the lane's lock
// (so a writer that lost the lane cannot); undefined when that session does not hold it.
export async function passLaneFence(c: pg.ClientBase, lane: number, seen: number): Promise<number | undefined> {
  if (!Number.isFinite(seen)) return undefined;
  const { rows } = await c.query<{ epoch: string }>(
    `UPDATE graph_lane_epochs SET epoch = GREATEST(epoch, $3::bigint) + 1
      WHERE lane = $2 AND EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()
                                    AND granted AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 2)
      RETURNING epoch`,
    [LOCK_CLASS, lane, seen],
  );
  return rows[0] ? Number(rows[0].epoch) : undefined;
}

// Of these scopes, those of this database's tenants, each with its lane: several databases may
// share one Neo4j (lane fences, migration 0022).
export async function ownScopeLanes(
  db: Queryable,
  scopes: { tenantId: string; mode: string }[],
): Promise<{ tenantId: string; mode: string; lane: number }[]> {
  const { rows } = await db.query<{ t: string; m: string; lane: number }>(
    `SELECT t, m, hashtext(t || ':' || m) & 15 AS lane FROM unnest($1::text[], $2::text[]) AS s(t, m)
      WHERE EXISTS (SELECT 1 FROM tenants WHERE id = s.t)`,
    [scopes.map((x) => x.tenantId), scopes.map((x) => x.mode)],
  );
  return rows.map((r) => ({ tenantId: r.t, mode: r.m, lane: r.lane }));
}
