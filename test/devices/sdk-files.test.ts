// The browser files: GET /sdk/doorman.js and /sdk/v1/doorman.js (the esbuild bundle, with the
// integrity hash the README publishes), and the demo page, served only with DEMO_PAGES=true.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { SDK_BUNDLE } from '../../src/devices/sdk-routes.js';
import { testDeps } from '../support/test-deps.js';

const integrityOf = (bytes: Buffer) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

describe('browser SDK files', () => {
  const app = createApp(testDeps());

  it('serves the bundle as JavaScript: unversioned for minutes, versioned for a year, 304 when unchanged', async () => {
    const bundle = fs.readFileSync(SDK_BUNDLE);
    const plain = await request(app)
      .get('/sdk/doorman.js')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(plain.status).to.equal(200);
    expect(plain.headers['content-type']).to.equal('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).to.equal('public, max-age=300');
    expect(plain.headers['x-content-type-options']).to.equal('nosniff');
    expect((plain.body as Buffer).equals(bundle)).to.equal(true);
    const versioned = await request(app).get('/sdk/v1/doorman.js');
    expect(versioned.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(versioned.headers['x-ratelimit-limit'], 'static files are unmetered').to.equal(undefined);
    const again = await request(app).get('/sdk/v1/doorman.js').set('If-None-Match', versioned.headers.etag!);
    expect(again.status).to.equal(304);
  });

  it("is the bundle whose integrity hash the README publishes, with FingerprintJS's licence and no monitoring call", () => {
    const bundle = fs.readFileSync(SDK_BUNDLE);
    const readme = fs.readFileSync('README.md', 'utf8');
    const published = [...readme.matchAll(/sha384-[A-Za-z0-9+/=]{64}/g)].map((m) => m[0]);
    expect(published.length, 'the README publishes the hash').to.be.greaterThan(0);
    for (const hash of published) expect(hash, 'README hash = hash of `npm run build` output').to.equal(integrityOf(bundle));
    const text = bundle.toString('utf8');
    expect(text).to.contain('MIT License').and.contain('Copyright (c) 2025 FingerprintJS, Inc');
    expect(text).to.not.contain('openfpcdn');
  });

  it('serves the demo page only when DEMO_PAGES is on', async () => {
    expect((await request(app).get('/demo/device')).status).to.equal(404);
    const demo = await request(createApp(testDeps({ DEMO_PAGES: 'true' }))).get('/demo/device');
    expect(demo.status).to.equal(200);
    expect(demo.type).to.equal('text/html');
    expect(demo.text).to.contain("import { doorman } from '/sdk/doorman.js'");
  });
});
