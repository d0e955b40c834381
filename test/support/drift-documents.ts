// The OpenAPI document a real server serves, and two changed copies (a schema that gained a field,
// an open set that gained a known value), as files: each client's drift check must pass on the
// first and fail on the other two (test/client/client-package.test.ts for TypeScript,
// other-client-run.ts for Python and Go).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type DriftDocument = 'served' | 'schema' | 'values';

export interface DriftDocuments {
  file(name: DriftDocument): string;
  remove(): void;
}

export async function driftDocuments(serverUrl: string): Promise<DriftDocuments> {
  const served = (await (await fetch(`${serverUrl}/v1/openapi.json`)).json()) as Record<string, any>;
  const schema = structuredClone(served);
  schema.components.schemas.StoredEvent.properties.risk_band = { type: 'string' };
  const values = structuredClone(served);
  values['x-service-known-values'].reason_codes.push('brand_new_code');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorman-drift-'));
  const documents: Record<DriftDocument, object> = { served, schema, values };
  for (const [name, document] of Object.entries(documents)) fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(document));
  return { file: (name) => path.join(dir, `${name}.json`), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
