// NEO4J_URI=neo4j://…: the routing scheme, against the local server. Every read the
// verdict and feedback make asks for a reader (READ), the graph writer for the leader (WRITE), and
// the server enforces what was asked: a write sent as a read is refused.
import { expect } from 'chai';
import neo4j, { type Driver, type SessionConfig } from 'neo4j-driver';
import request from 'supertest';
import { createGraphDriver } from '../../src/graph/create-graph-driver.js';
import { bearer } from '../support/fixtures.js';
import { rootGraphWriter } from '../support/root-hooks.js';
import { testConfig } from '../support/test-deps.js';
import { aSignup, verdictHarness } from '../support/verdict-harness.js';

// The real routing driver, with a note of the access mode every session and query asked for.
function recording(driver: Driver, modes: string[]): Driver {
  return new Proxy(driver, {
    get(target, prop, receiver) {
      if (prop === 'session')
        return (config: SessionConfig = {}) => {
          modes.push(config.defaultAccessMode ?? neo4j.session.WRITE);
          return target.session(config);
        };
      if (prop === 'executeQuery') {
        return (query: string, params?: object, config?: { routing?: string }) => {
          modes.push(config?.routing ?? neo4j.routing.WRITE);
          return target.executeQuery(query, params, config as never);
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describe('NEO4J_URI with the neo4j:// routing scheme', function () {
  this.timeout(60_000);

  it('reads from readers and writes through the leader, against the local server', async () => {
    const env = { NEO4J_URI: 'neo4j://127.0.0.1:7687' };
    const driver = createGraphDriver(testConfig(env));
    const modes: string[] = [];
    const h = await verdictHarness(env, { graph: recording(driver, modes) });
    const info = await driver.getServerInfo();
    expect(info.address).to.match(/:7687$/);

    // This process's own writer, on the routing driver, applies the link (the suite's is stopped).
    const root = rootGraphWriter();
    await root.stop();
    await h.deps.graphWriter.start();
    try {
      modes.length = 0;
      const res = await request(h.app)
        .post('/v1/verdict')
        .set(bearer(h.tenant.keys.sk_test))
        .send(aSignup({ external_user_id: 'routed', identity: { phone: '+15558100001' } }));
      expect(res.status).to.equal(200);
      await h.graphSettled();
      // One read for the verdict (the cluster's facts); the writer's batches through the leader.
      expect(
        modes.filter((m) => m === neo4j.session.READ),
        'reads',
      ).to.have.length(1);
      expect(modes.filter((m) => m === neo4j.session.WRITE).length, 'writes').to.be.greaterThan(0);
      expect(modes.filter((m) => m !== neo4j.session.READ && m !== neo4j.session.WRITE)).to.deep.equal([]);
    } finally {
      await h.deps.graphWriter.stop();
      await root.start();
    }
    modes.length = 0;
    await request(h.app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .send({ subject: { kind: 'email', value: 'nobody@routing.example' }, outcome: 'chargeback' })
      .expect(404);
    expect(modes, 'feedback asks the graph as a reader').to.deep.equal([neo4j.routing.READ]);

    // The server holds a READ to its word.
    let refused: unknown;
    await driver
      .executeQuery('CREATE (:RoutingProbe {tenantId: $t, mode: "test"})', { t: h.tenant.tenantId }, { routing: neo4j.routing.READ })
      .catch((err: unknown) => {
        refused = err;
      });
    expect(String(refused)).to.match(/read/i);
  });

  it('accepts neo4j+s:// and bolt+s:// in configuration', () => {
    for (const uri of ['neo4j+s://graph.example.com', 'neo4j+ssc://10.0.0.5:7687', 'bolt+s://graph.example.com:7687']) {
      expect(testConfig({ NEO4J_URI: uri }).neo4jUri).to.equal(uri);
    }
  });
});
