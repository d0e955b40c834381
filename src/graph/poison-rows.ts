// Poison rows: an outbox row that keeps failing on its own, for a reason other than an outage, is
// set aside (graph_outbox.failed_at) after POISON_FAILURES such failures in a row, so one row
// cannot stall its lane. The count is per graph writer, in memory: a row that passes is forgotten.
import type pg from 'pg';
import type { Logger } from 'pino';
import { markFailed, type OutboxRow } from './graph-outbox-store.js';
import type { SessionRunner } from './lane-ownership.js';

// Consecutive failures of one row, alone, before it is set aside (an outage never counts).
export const POISON_FAILURES = 5;

// Neo4j or the network being down: no fault of the row's.
export const isOutage = (err: unknown): boolean => {
  const code = (err as { code?: string }).code ?? '';
  return (
    code === 'ServiceUnavailable' ||
    code === 'SessionExpired' ||
    /ECONNREFUSED|ECONNRESET|connect|closed/i.test(String((err as Error).message ?? err))
  );
};

export interface PoisonRows {
  // A single row failed alone: true once it is set aside (its POISON_FAILURES-th failure in a
  // row), so the lane goes on; false while it is still retried, and always for an outage.
  failedAlone(client: pg.Client, lane: number, row: OutboxRow, err: unknown): Promise<boolean>;
  // These rows were read in a batch that passed: their failures are forgotten.
  passed(rows: OutboxRow[]): void;
  // How many rows this writer set aside as poison.
  setAside(): number;
}

export function createPoisonRows(deps: { log: Logger; onSession: SessionRunner }): PoisonRows {
  const rowFailures = new Map<string, number>();
  let setAside = 0;
  return {
    async failedAlone(client, lane, row, err) {
      if (isOutage(err)) return false;
      const n = (rowFailures.get(row.seq) ?? 0) + 1;
      rowFailures.set(row.seq, n);
      if (n < POISON_FAILURES) return false;
      rowFailures.delete(row.seq);
      setAside += 1;
      deps.log.error(
        { seq: row.seq, kind: row.kind, lane, err: String(err).split('\n')[0] },
        'graph writer set aside an outbox row that failed alone 5 times',
      );
      await deps.onSession(client, (c) => markFailed(c, row.seq, String(err)));
      return true;
    },
    passed(rows) {
      for (const row of rows) rowFailures.delete(row.seq);
    },
    setAside: () => setAside,
  };
}
