// POST /v1/verdict is served on its own route ahead of Express (src/verdicts/verdict-routes.ts):
// it is matched as Express matched it, and writes the same log line, metric and headers as every
// other route. (The contract's own tests, test/contract/ and the fuzzer, run against it too.)
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { aClientIp, bearer } from '../support/fixtures.js';
import { aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

type Line = Record<string, unknown>;

describe('the verdict route', () => {
  let h: Harness;
  const lines: Line[] = [];
  let app: ReturnType<typeof createApp>;
  before(async () => {
    h = await verdictHarness();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
        done();
      },
    });
    app = createApp({ ...h.deps, logger: pino({ level: 'info' }, sink) });
  });

  const post = (path: string) => request(app).post(path).set(bearer(h.tenant.keys.sk_test)).set('X-Forwarded-For', aClientIp());

  it('answers the path as Express matched it: any case, a trailing slash, a query string', async () => {
    for (const path of ['/v1/verdict', '/V1/Verdict', '/v1/verdict/', '/v1/verdict?source=test']) {
      const res = await post(path).send(aSignup());
      expect(res.status, path).to.equal(200);
      expect(res.body.verdict, path).to.equal('allow');
      expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
      expect(res.headers['server-timing']).to.match(/(^|, )auth;dur=[\d.]+/);
      expect(res.headers['server-timing']).to.match(/(^|, )graph;dur=[\d.]+/);
      expect(res.headers['x-ratelimit-limit']).to.be.a('string');
    }
    for (const path of ['/v1/verdict//', '/v1/verdicts', '/v1/verdict/x']) {
      const res = await post(path).send(aSignup());
      expect(res.status, path).to.equal(404);
      expect(res.body.error).to.equal('not_found');
    }
    const get = await request(app).get('/v1/verdict').set(bearer(h.tenant.keys.sk_test));
    expect(get.status).to.equal(404);
    expect(get.body.error).to.equal('not_found');
  });

  it("writes one log line with the fields every route's line has, and counts the request's metric", async () => {
    lines.length = 0;
    const ok = await post('/v1/verdict?x=1').set('X-Request-Id', 'verdict-route.1').send(aSignup());
    const bad = await post('/v1/verdict').set('X-Request-Id', 'verdict-route.2').send({ event_type: 'nope' });
    const other = await request(app)
      .post('/v1/feedback')
      .set(bearer(h.tenant.keys.sk_test))
      .set('X-Request-Id', 'verdict-route.3')
      .send({ subject: { kind: 'event_id', value: ok.body.id }, outcome: 'false_positive' });
    expect([ok.status, bad.status, other.status]).to.deep.equal([200, 400, 200]);
    expect(ok.headers['x-request-id']).to.equal('verdict-route.1');
    const lineOf = (id: string) => {
      const found = lines.filter((l) => l.request_id === id);
      expect(found, id).to.have.length(1);
      return found[0]!;
    };
    const [a, b, c] = [lineOf('verdict-route.1'), lineOf('verdict-route.2'), lineOf('verdict-route.3')];
    expect(a).to.include({ msg: 'request', route: '/v1/verdict', level: 30 });
    expect(a.req).to.deep.equal({ method: 'POST', path: '/v1/verdict' });
    expect(a.res).to.deep.equal({ status: 200 });
    expect(a.latency_ms).to.be.a('number');
    expect(b.res).to.deep.equal({ status: 400 });
    // The same fields as Express's line for another route.
    const fields = (l: Line) =>
      Object.keys(l)
        .filter((k) => !['time', 'pid', 'hostname'].includes(k))
        .sort();
    expect(fields(a)).to.deep.equal(fields(c));
    const scraped = await h.deps.metrics.registry.getSingleMetricAsString('doorman_http_request_duration_seconds');
    expect(scraped).to.match(/doorman_http_request_duration_seconds_count\{route="\/v1\/verdict",method="POST",status="200"\} [1-9]/);
    expect(scraped).to.match(/doorman_http_request_duration_seconds_count\{route="\/v1\/verdict",method="POST",status="400"\} [1-9]/);
    const graph = await h.deps.metrics.registry.getSingleMetricAsString('doorman_graph_read_seconds');
    expect(graph).to.match(/doorman_graph_read_seconds_count\{result="ok"\} [1-9]/);
  });

  it('answers a body the parser refuses in the contract shape, as the other routes do', async () => {
    const notJson = await post('/v1/verdict').set('Content-Type', 'application/json').send('{"event_type":');
    expect(notJson.status).to.equal(400);
    expect(notJson.body).to.deep.include({ error: 'invalid_request', message: 'The request body is not valid JSON.' });
    const text = await post('/v1/verdict').set('Content-Type', 'text/plain').send('hello');
    expect(text.status).to.equal(400);
    expect(text.body.details.issues).to.deep.equal([{ path: '', message: 'Content-Type must be application/json' }]);
    const big = await post('/v1/verdict').send({ ...aSignup(), context: { pad: 'x'.repeat(h.deps.config.bodyLimitBytes) } });
    expect(big.status).to.equal(400);
    expect(big.body.message).to.match(/larger than the \d+ byte limit/);
    const unknownKey = await request(app).post('/v1/verdict').set(bearer('sk_test_unknownunknownunknownunknown')).send(aSignup());
    expect(unknownKey.status).to.equal(401);
    expect(unknownKey.body.error).to.equal('unauthorized');
  });
});
