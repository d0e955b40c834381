// What verifying a device token costs on the verdict path: 20,000 verifications each of a valid,
// a foreign-kid, a malformed and a tampered token, 100 at a time, with the keys held in memory.
// Prints wall and CPU time per verification and how often the keys were read from Postgres.
//   npx tsx bench/device-token-verify.ts   (DATABASE_URL and SECRETS_KEY as for the server; the stack up)
import { loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { createPool } from '../src/db/create-pool.js';
import { createDeviceKeyRing } from '../src/devices/device-key-ring.js';
import { signDeviceToken, verifyDeviceToken } from '../src/devices/device-token.js';
import { createVault, masterKeyOf } from '../src/vault/vault.js';

const config = loadConfig();
const db = createPool(config);
const ring = createDeviceKeyRing(db, createVault(db, config.secretsKeys.map(masterKeyOf)));
const deps: Pick<Deps, 'secrets'> = { secrets: { get: async () => Buffer.alloc(32), deviceKeys: ring } };
const scope = { tenantId: 'ten_bench', mode: 'test' as const };
const { token } = await signDeviceToken(await ring.signingKey(), scope, `dev_${'a'.repeat(32)}`, new Date(), 900);
const [header, payload, signature] = token.split('.') as [string, string, string];
const foreignHeader = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'dk_foreign' })).toString('base64url');
const cases: Array<[string, string]> = [
  ['valid', token],
  ['foreign kid', `${foreignHeader}.${payload}.${signature}`],
  ['malformed', 'not-a-token'],
  ['tampered', `${header}.${payload}.${signature.slice(0, -2)}AA`],
];
const N = 20_000;
for (const [name, t] of cases) {
  const loads = ring.loads();
  const wall = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let verified = 0;
  for (let i = 0; i < N; i += 100) {
    const batch = await Promise.all(Array.from({ length: 100 }, () => verifyDeviceToken(deps, scope, t, new Date())));
    verified += batch.filter(Boolean).length;
  }
  const used = process.cpuUsage(cpu);
  console.log(
    `${name.padEnd(12)} ${(Number(process.hrtime.bigint() - wall) / 1000 / N).toFixed(1).padStart(6)} µs wall  ${((used.user + used.system) / N).toFixed(1).padStart(6)} µs CPU  verified ${verified}/${N}  key reads ${ring.loads() - loads}`,
  );
}
await db.end();
