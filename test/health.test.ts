// GET /health: unauthenticated; 200 with every dependency up, 503 naming the one that is down.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { testDeps } from './support/test-deps.js';
import { freePort } from './support/free-port.js';

const deadPort = freePort;

describe('GET /health', () => {
  it('answers 200 with each dependency up and its latency', async () => {
    const res = await request(createApp(testDeps())).get('/health');
    expect(res.status).to.equal(200);
    expect(res.body.status).to.equal('ok');
    for (const name of ['postgres', 'neo4j', 'redis']) {
      expect(res.body.checks[name].status, name).to.equal('up');
      expect(res.body.checks[name].latency_ms).to.be.a('number');
    }
  });

  const cases: [string, (port: number) => Record<string, string>][] = [
    ['postgres', (port) => ({ DATABASE_URL: `postgres://localhost:${port}/doorman_test` })],
    ['neo4j', (port) => ({ NEO4J_URI: `bolt://127.0.0.1:${port}` })],
    ['redis', (port) => ({ REDIS_URL: `redis://127.0.0.1:${port}` })],
  ];
  for (const [name, env] of cases) {
    it(`answers 503 when ${name} is down, and says which`, async () => {
      const deps = testDeps({ ...env(await deadPort()), HEALTH_TIMEOUT_MS: '1500' });
      const res = await request(createApp(deps)).get('/health');
      expect(res.status).to.equal(503);
      expect(res.body.status).to.equal('unavailable');
      expect(res.body.error).to.equal('internal');
      expect(res.body.message).to.contain(name);
      expect(res.body.checks[name].status).to.equal('down');
      expect(res.body.checks[name].error).to.be.a('string');
      for (const other of cases.map(([n]) => n).filter((n) => n !== name)) expect(res.body.checks[other].status, other).to.equal('up');
    });
  }

  it('needs no API key and ignores a bad one', async () => {
    const res = await request(createApp(testDeps())).get('/health').set('Authorization', 'Bearer nonsense');
    expect(res.status).to.equal(200);
  });
});
