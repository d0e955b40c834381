// GET /v1/openapi.json serves the same document the validator is built from.
import { expect } from 'chai';
import request from 'supertest';
import { createApp } from '../src/app.js';
import { openApiDocument } from '../src/contract/openapi.js';
import { testDeps } from './support/test-deps.js';

describe('GET /v1/openapi.json', () => {
  it('serves the OpenAPI document without authentication', async () => {
    const res = await request(createApp(testDeps())).get('/v1/openapi.json');
    expect(res.status).to.equal(200);
    expect(res.body.openapi).to.equal('3.1.0');
    expect(res.body.info.version).to.equal('0.7.0');
    expect(res.body).to.deep.equal(JSON.parse(JSON.stringify(openApiDocument)));
  });
});
