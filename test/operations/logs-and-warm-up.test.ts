// What an operator sees: warm-up completes every step and leaves the graph's indexes
// in Neo4j's page cache; log levels can be alerted on (a 5xx is an error with its stack, a 503
// while warming or with a store down is a warning without one, a 4xx is info).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import neo4j from 'neo4j-driver';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { bearer } from '../support/fixtures.js';
import { freePort, startServer, until } from '../support/processes.js';
import { testConfig, testDeps } from '../support/test-deps.js';
import { aTenant } from '../support/fixtures.js';

interface LogLine {
  level: number;
  msg: string;
  err?: { stack?: string; message?: string };
  res?: { status: number };
  step?: string;
}

describe('warm-up and log levels', function () {
  this.timeout(90_000);

  it('warms up without a failed step, leaving the verdict read and the index scans in the page cache', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-warmup-'));
    const logFile = path.join(dir, 'server.log');
    const server = await startServer({ LOG_LEVEL: 'info' }, logFile);
    try {
      const lines = () =>
        fs
          .readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as LogLine);
      const warmed = await until('the warmed-up line', async () => lines().find((l) => l.msg === 'warmed up'));
      expect(warmed.level).to.equal(30);
      expect(
        lines().filter((l) => /warm-up step failed|not loaded/.test(l.msg)),
        'failed warm-up steps',
      ).to.deep.equal([]);
      expect(
        lines().filter((l) => l.level >= 50),
        'error lines on a clean start',
      ).to.deep.equal([]);

      // The verdict's read and the index scans in one read transaction, which then reports its own
      // page hits and faults (per-operator figures of PROFILE stay zero on Community Edition).
      const deps = testDeps();
      const session = deps.graph.session({ defaultAccessMode: neo4j.session.READ });
      try {
        const pages = await session.executeRead(async (tx) => {
          await tx.run(deps.cypher.get('graph/read-cluster'), {
            read: {
              tenantId: '__warmup__',
              mode: 'test',
              account: 'warmup',
              ids: [{ kind: 'email', value: 'warmup@doorman.invalid' }],
              hubThreshold: 25,
              since: 0,
              recentSince: 0,
              pending: [],
              at: 0,
              hubScan: 500,
            },
          });
          await tx.run(deps.cypher.get('warm-up/index-scans'));
          const own = await tx.run(
            'SHOW TRANSACTIONS YIELD currentQuery, pageHits, pageFaults WHERE currentQuery STARTS WITH "SHOW TRANSACTIONS" RETURN pageHits, pageFaults',
          );
          return own.records.map((r) => ({ hits: Number(r.get('pageHits')), faults: Number(r.get('pageFaults')) }));
        });
        expect(pages).to.have.length(1);
        expect(pages[0]!.faults, 'page faults after warm-up').to.equal(0);
        expect(pages[0]!.hits, 'page hits').to.be.greaterThan(0);
      } finally {
        await session.close();
      }
    } finally {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('logs a 5xx at error with its stack, a 503 at warn without one, a 4xx at info', async () => {
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l) as LogLine) });
    // Postgres really unreachable: a pool pointed at a port nothing listens on.
    const deadPort = await freePort();
    const broken: Deps = createDeps(testConfig({ DATABASE_URL: `postgres://127.0.0.1:${deadPort}/nowhere`, PG_QUERY_TIMEOUT_MS: '500' }), {
      logger,
    });
    const healthy = testDeps();
    const tenant = await aTenant(healthy);
    try {
      // Authentication reads keys from Postgres: down, the request never reaches a decision (500).
      const app = createApp({ ...broken, warmState: () => 'warm' });
      const failed = await request(app).get('/v1/events').set(bearer(tenant.keys.sk_test));
      expect(failed.status).to.equal(500);
      const down = await request(app).get('/health');
      expect(down.status).to.equal(503);
      const missing = await request(app).get('/v1/no-such-route');
      expect(missing.status).to.equal(404);
      // Warming: /health says so with a 503.
      const warming = await request(createApp({ ...broken, warmState: () => 'warming' })).get('/health');
      expect(warming.status).to.equal(503);
      expect(warming.body.status).to.equal('warming');

      const byStatus = (status: number) => lines.filter((l) => l.res?.status === status);
      expect(byStatus(500)).to.have.length(1);
      expect(byStatus(500)[0]!.level).to.equal(50);
      expect(byStatus(500)[0]!.err?.stack, 'the stack of the real error')
        .to.be.a('string')
        .and.not.match(/failed with status code/);
      expect(byStatus(503)).to.have.length(2);
      for (const line of byStatus(503)) {
        expect(line.level).to.equal(40);
        expect(line.err).to.equal(undefined);
      }
      expect(byStatus(404)).to.have.length(1);
      expect(byStatus(404)[0]!.level).to.equal(30);
      expect(byStatus(404)[0]!.err).to.equal(undefined);
      // One line per request: nothing else was logged at error.
      expect(lines.filter((l) => l.level >= 50)).to.have.length(1);
    } finally {
      await broken.close();
    }
  });
});
