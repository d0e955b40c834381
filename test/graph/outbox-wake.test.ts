// The outbox wakes other processes' writers by NOTIFY, naming the lanes that gained rows, with
// one NOTIFY in flight per process however many verdicts commit meanwhile.
// Observed on a real LISTEN connection; this process registers no writer, as a
// `serve --no-graph-writer` process does not.
import { expect } from 'chai';
import pg from 'pg';
import { createGraphOutbox, OUTBOX_CHANNEL } from '../../src/graph/graph-outbox.js';
import { until } from '../support/processes.js';
import { testDeps } from '../support/test-deps.js';

describe("the graph outbox's wake-ups", () => {
  it('sends a handful of NOTIFYs for a burst of commits, naming their lanes; a commit of unknown lane wakes all', async () => {
    const deps = testDeps();
    const listener = new pg.Client({ connectionString: deps.config.databaseUrl });
    await listener.connect();
    const payloads: string[] = [];
    listener.on('notification', (msg) => {
      if (msg.channel === OUTBOX_CHANNEL) payloads.push(msg.payload ?? '');
    });
    try {
      await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
      const outbox = createGraphOutbox(deps.db);
      // 200 commits of lanes 3 and 7 in one burst, as a busy server's verdicts would.
      for (let i = 0; i < 200; i++) outbox.written(deps.db, i % 2 ? 3 : 7);
      const lanes = await until(
        'lanes 3 and 7 named',
        async () => {
          const named = new Set(payloads.flatMap((p) => p.split(',')));
          return named.has('3') && named.has('7') ? named : undefined;
        },
        5_000,
      );
      expect([...lanes].sort()).to.deep.equal(['3', '7']);
      expect(payloads.length).to.be.within(1, 3);
      payloads.length = 0;
      outbox.written(deps.db);
      await until('an all-lanes wake', async () => (payloads.includes('') ? true : undefined), 5_000);
    } finally {
      await listener.end();
    }
  });
});
