// Every input gets the contract's answer, never a 500: each hostile input here (NUL and
// lone surrogates, deep nesting, content encodings, malformed paths, OPTIONS, forged cursors,
// unsafe amounts), a 4xx in the shape {error, message, details?}.
import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { bearer } from '../support/fixtures.js';
import { aCheckout, aSignup, verdictHarness, type Harness } from '../support/verdict-harness.js';

type Res = request.Response;

function expectInvalid(res: Res, path?: string, message?: RegExp) {
  expect(res.status, JSON.stringify(res.body)).to.equal(400);
  expect(res.type).to.equal('application/json');
  expect(res.body.error).to.equal('invalid_request');
  expect(res.body.message).to.be.a('string').and.not.empty;
  const issues = res.body.details.issues as { path: string; message: string }[];
  if (path !== undefined)
    expect(
      issues.map((i) => i.path),
      JSON.stringify(issues),
    ).to.include(path);
  if (message)
    expect(
      issues.some((i) => message.test(i.message)),
      JSON.stringify(issues),
    ).to.equal(true);
}

function expectNotFound(res: Res) {
  expect(res.status, JSON.stringify(res.body)).to.equal(404);
  expect(res.type).to.equal('application/json');
  expect(res.body.error).to.equal('not_found');
}

// superagent would JSON-encode a Buffer sent with a JSON content type; this sends its bytes.
const asIs = ((bytes: Buffer) => bytes) as unknown as (body: unknown) => string;
const NUL = /NUL/;
const SURROGATE = /surrogate/;

describe('hostile input', () => {
  let h: Harness;
  let eventId: string;
  const sk = () => bearer(h.tenant.keys.sk_test);
  // A body sent as these exact bytes, so escapes like \u0000 and \ud800 reach the server unchanged.
  const raw = (method: 'post' | 'patch', path: string, body: string, headers: Record<string, string> = {}) =>
    request(h.app)
      [method](path)
      .set(path === '/v1/device' ? bearer(h.tenant.keys.pk_test) : sk())
      .set('Content-Type', 'application/json')
      .set(headers)
      .send(body);

  before(async () => {
    h = await verdictHarness();
    eventId = (await h.verdict(aSignup())).body.id;
  });

  describe('NUL characters', () => {
    const signup = (extra: string) => `{"event_type":"signup","ip":"100.64.10.1",${extra}}`;
    const cases: [string, string, string][] = [
      ['context', signup('"context":{"note":"a\\u0000b"}'), '/context/note'],
      ['user_agent', signup('"user_agent":"Mozilla\\u0000"'), '/user_agent'],
      ['email', signup('"email":"a\\u0000@example.org"'), '/email'],
      ['external_user_id', signup('"external_user_id":"u\\u0000"'), '/external_user_id'],
      ['an identity value', signup('"identity":{"phone":"+1\\u0000"}'), '/identity/phone'],
      ['an identity key', signup('"identity":{"ph\\u0000one":"+1"}'), '/identity/ph\u0000one'],
      [
        'an unknown payment key',
        '{"event_type":"checkout_attempt","ip":"100.64.10.1","payment":{"extra\\u0000":"x"}}',
        '/payment/extra\u0000',
      ],
    ];
    for (const [where, body, path] of cases) {
      it(`rejects one in a verdict's ${where} with 400 naming the path`, async () => {
        expectInvalid(await raw('post', '/v1/verdict', body), path, NUL);
      });
    }

    it('rejects one in feedback subject.value and note', async () => {
      const res = await raw(
        'post',
        '/v1/feedback',
        '{"subject":{"kind":"email","value":"a\\u0000@x.org"},"outcome":"chargeback","note":"\\u0000"}',
      );
      expectInvalid(res, '/subject/value', NUL);
      expectInvalid(res, '/note', NUL);
    });

    it('rejects one in PATCH external_user_id', async () => {
      expectInvalid(await raw('patch', `/v1/events/${eventId}`, '{"external_user_id":"u\\u0000"}'), '/external_user_id', NUL);
    });

    it('answers 404 for a path id holding one (no event id can)', async () => {
      expectNotFound(await request(h.app).get('/v1/events/evt_%00').set(sk()));
      expectNotFound(await raw('patch', '/v1/events/evt_%00', '{"external_user_id":"u1"}'));
    });

    it('rejects one in a device component key or value', async () => {
      expectInvalid(await raw('post', '/v1/device', '{"components":{"canvas":"x\\u0000"}}'), '/components/canvas', NUL);
    });
  });

  describe('lone surrogates', () => {
    it('rejects one in a verdict body with 400 (Postgres jsonb cannot store it)', async () => {
      const res = await raw('post', '/v1/verdict', '{"event_type":"signup","ip":"100.64.10.1","user_agent":"\\ud800"}');
      expectInvalid(res, '/user_agent', SURROGATE);
      expectInvalid(
        await raw('post', '/v1/verdict', '{"event_type":"login","context":{"x":["ok","\\udc00z"]}}'),
        '/context/x/1',
        SURROGATE,
      );
    });

    it('rejects one in PATCH, so a replay of a bound value still answers 200, never 409', async () => {
      const id = (await h.verdict(aSignup())).body.id;
      expectInvalid(await raw('patch', `/v1/events/${id}`, '{"external_user_id":"u\\ud800"}'), '/external_user_id', SURROGATE);
      const pair = '{"external_user_id":"u\\ud83d\\ude00"}';
      expect((await raw('patch', `/v1/events/${id}`, pair)).status).to.equal(200);
      expect((await raw('patch', `/v1/events/${id}`, pair)).status).to.equal(200);
    });
  });

  describe('deep nesting', () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);

    it('rejects a context of 10,000 nested arrays with 400', async () => {
      expectInvalid(
        await raw('post', '/v1/verdict', `{"event_type":"login","context":{"x":${nested(10_000)}}}`),
        undefined,
        /deeper than 32/,
      );
    });

    it('rejects device components 2,000 levels deep with 400', async () => {
      expectInvalid(await raw('post', '/v1/device', `{"components":{"c":${nested(2000)}}}`), undefined, /deeper than 32/);
    });

    it('accepts 32 levels and rejects 33', async () => {
      // The body is level 1, context 2, and the arrays from 3 on: 30 of them reach 32.
      const at = (levels: number) => raw('post', '/v1/verdict', `{"event_type":"login","context":{"x":${nested(levels)}}}`);
      expect((await at(30)).status).to.equal(200);
      expectInvalid(await at(31), '/context/x/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0', /deeper than 32/);
    });
  });

  describe('content encodings', () => {
    const routes: ['post' | 'patch', () => string, object][] = [
      ['post', () => '/v1/verdict', aSignup()],
      ['post', () => '/v1/feedback', { subject: { kind: 'event_id', value: eventId }, outcome: 'chargeback' }],
      ['patch', () => `/v1/events/${eventId}`, { external_user_id: 'u_enc' }],
      ['post', () => '/v1/device', { components: { canvas: 'c' } }],
    ];
    for (const [method, path, body] of routes) {
      it(`answers 400 on ${method.toUpperCase()} ${path().replace(/evt_\w+/, '{id}')} for a body that is not what its Content-Encoding says`, async () => {
        for (const encoding of ['gzip', 'deflate', 'br']) {
          expectInvalid(await raw(method, path(), JSON.stringify(body), { 'Content-Encoding': encoding }), '', /Content-Encoding/);
        }
        expectInvalid(await raw(method, path(), JSON.stringify(body), { 'Content-Encoding': 'compress' }), '', /Content-Encoding/);
      });
    }

    it('accepts a real gzip body', async () => {
      const res = await request(h.app)
        .post('/v1/verdict')
        .set(sk())
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .serialize(asIs)
        .send(gzipSync(JSON.stringify(aSignup())));
      expect(res.status).to.equal(200);
    });
  });

  describe('malformed paths', () => {
    for (const path of ['/v1/events/%FF%FE', '/v1/events/%ED%A0%80', '/v1/events/%']) {
      it(`answers 400 to GET ${path}, with or without a key`, async () => {
        expectInvalid(await request(h.app).get(path), '', /percent-encoded/);
        expectInvalid(await request(h.app).get(path).set(sk()), '', /percent-encoded/);
      });
    }
  });

  describe('OPTIONS', () => {
    for (const path of ['/v1/verdict', '/v1/events', `/v1/events/evt_1`, '/v1/feedback', '/v1/openapi.json', '/health']) {
      it(`answers OPTIONS ${path} with a JSON 404, unmetered`, async () => {
        const res = await request(h.app).options(path).set(sk());
        expectNotFound(res);
        expect(res.headers).not.to.have.property('x-ratelimit-limit');
      });
    }

    it('still answers the CORS preflight on /v1/device', async () => {
      const res = await request(h.app)
        .options('/v1/device')
        .set('Origin', 'https://shop.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(res.status).to.equal(204);
      expect(res.headers['access-control-allow-origin']).to.equal('https://shop.example');
    });
  });

  describe('GET /v1/events cursor', () => {
    const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const list = (c: string) =>
      request(h.app)
        .get(`/v1/events?cursor=${encodeURIComponent(c)}`)
        .set(sk());

    it('answers 400 for a forged cursor, one whose id holds a NUL, and one before year 1', async () => {
      expectInvalid(await list('not-a-cursor'), '/cursor');
      expectInvalid(await list(cursor(['2026-01-01T00:00:00.000Z', 'evt_\u0000'])), '/cursor');
      expectInvalid(await list(cursor(['-271821-04-20T00:00:00.000Z', 'evt_1'])), '/cursor');
      expectInvalid(await list('\u0000'), '/cursor', NUL);
    });
  });

  describe('payment amount', () => {
    it('accepts 2^53 - 1 and rejects 2^53 and beyond (they would lose precision)', async () => {
      expect((await h.verdict(aCheckout({}, { amount: Number.MAX_SAFE_INTEGER }))).status).to.equal(200);
      expectInvalid(
        await raw('post', '/v1/verdict', '{"event_type":"checkout_attempt","ip":"100.64.10.1","payment":{"amount":9007199254740993}}'),
        '/payment/amount',
      );
      expectInvalid(
        await raw('post', '/v1/verdict', '{"event_type":"checkout_attempt","ip":"100.64.10.1","payment":{"amount":1e300}}'),
        '/payment/amount',
      );
    });
  });
});
