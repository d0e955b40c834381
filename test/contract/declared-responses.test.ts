// The OpenAPI document declares every 400 the service can give, and its links name real
// operations, so clients and the fuzzer's stateful phase can rely on both.
import { expect } from 'chai';
import { openApiDocument } from '../../src/contract/openapi.js';

type Operation = {
  operationId: string;
  requestBody?: unknown;
  parameters?: { in: string }[];
  responses: Record<string, { links?: Record<string, { operationId: string }> }>;
};
const operations = Object.entries(openApiDocument.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, operation })),
);

describe('the OpenAPI document’s responses', () => {
  it('declares a 400 on every operation that takes a body, a query or a path parameter', () => {
    const takesInput = operations.filter(
      ({ operation }) => operation.requestBody || (operation.parameters ?? []).some((p) => p.in !== 'header'),
    );
    expect(takesInput.map((o) => o.label)).to.include.members(['GET /v1/events', 'GET /v1/events/{id}', 'POST /v1/verdict']);
    for (const { label, operation } of takesInput) expect(operation.responses, label).to.have.property('400');
  });

  it('links a verdict to reading, binding and reporting on its event, each to an operation that exists', () => {
    const ids = new Set(operations.map((o) => o.operation.operationId));
    const links = operations.flatMap(({ operation }) => Object.values(operation.responses).flatMap((r) => Object.values(r.links ?? {})));
    const verdictLinks = Object.values(operations.find((o) => o.label === 'POST /v1/verdict')!.operation.responses['200']!.links ?? {});
    expect(verdictLinks.map((l) => l.operationId)).to.have.members(['getEvent', 'attachUser', 'recordFeedback']);
    for (const link of links) expect(ids.has(link.operationId), link.operationId).to.equal(true);
  });
});
