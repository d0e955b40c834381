// The OpenAPI document lints clean under Redocly's recommended ruleset: no errors, and no warning
// except the waivers below, each with its reason; a new warning fails until fixed or waived here.
import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { expect } from 'chai';
import { openApiDocument } from '../../src/contract/openapi.js';
import type { SignalSource } from '../../src/verdicts/collect-signals.js';

const waivedWarnings = [
  // /health takes no key, no input and is never rate limited: it has no 4xx to document.
  { ruleId: 'operation-4xx-response', pointer: '#/paths/~1health/get/responses' },
];

// By default the rule checks examples as if every object were closed, forcing `unevaluatedProperties: false`
// into each subschema that lists properties, the `then` of VerdictRequest's ip rule included, which then rejects
// valid examples. Our closed objects say `additionalProperties: false` themselves, and that is still enforced.
const examplesRule = { severity: 'warn', allowAdditionalProperties: true } as const;

const describeProblem = (problem: NormalizedProblem) =>
  `${problem.severity} ${problem.ruleId} at ${problem.location.map((l) => l.pointer).join(', ')}: ${problem.message}`;

const isWaived = (problem: NormalizedProblem) =>
  waivedWarnings.some(
    (waiver) =>
      problem.severity === 'warn' &&
      problem.ruleId === waiver.ruleId &&
      problem.location.some((location) => location.pointer === waiver.pointer),
  );

describe('the OpenAPI document', () => {
  let problems: NormalizedProblem[];

  before(async () => {
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-invalid-media-type-examples': examplesRule } });
    const source = JSON.stringify(openApiDocument, null, 2);
    problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
  });

  it('has no lint errors under the recommended ruleset', () => {
    expect(problems.filter((p) => p.severity === 'error').map(describeProblem)).to.deep.equal([]);
  });

  it('has no lint warnings but the waived ones', () => {
    expect(problems.filter((p) => p.severity === 'warn' && !isWaived(p)).map(describeProblem)).to.deep.equal([]);
  });

  it('is OpenAPI 3.1.0 for contract version 0.7.0', () => {
    expect(openApiDocument.openapi).to.equal('3.1.0');
    expect(openApiDocument.info).to.include({ title: 'Doorman', version: '0.7.0' });
  });

  it('describes every route of the contract', () => {
    const operations = Object.entries(openApiDocument.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).to.have.members([
      'POST /v1/verdict',
      'GET /v1/events',
      'GET /v1/events/{id}',
      'PATCH /v1/events/{id}',
      'POST /v1/feedback',
      'POST /v1/device',
      'GET /health',
      'GET /v1/openapi.json',
    ]);
    expect(openApiDocument.webhooks).to.have.key('review.resolved');
  });

  it('lists the known error and reason codes under x-service-known-values', () => {
    const known = openApiDocument['x-service-known-values'] as Record<string, string[]>;
    expect(known.error_codes).to.have.members([
      'invalid_request',
      'unauthorized',
      'not_found',
      'idempotency_conflict',
      'conflict',
      'rate_limited',
      'internal',
    ]);
    expect(known.reason_codes).to.include.members(['disposable_email', 'card_probe_pattern', 'partial_enrichment', 'cluster_chargeback']);
    expect(known.reason_codes).to.include('hub_confirmed_abuse');
    expect(known.reason_codes).to.have.lengthOf(29);
    expect(known.recommended_actions).to.have.members(['challenge', 'hold']);
  });

  it('lists every signal source a verdict can be decided without under x-service-known-values', () => {
    // A Record over the collector's union: a source added there fails to compile here until listed.
    const collectorSources: Record<SignalSource, true> = {
      email: true,
      dns: true,
      rdap: true,
      device: true,
      lists: true,
      velocity: true,
      graph: true,
    };
    const known = openApiDocument['x-service-known-values'] as Record<string, string[]>;
    expect(known.signal_sources).to.have.members(Object.keys(collectorSources));
  });
});
