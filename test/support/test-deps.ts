// Test dependencies: the real stores, at the URLs scripts/test.sh exports (a separate
// doorman_test database and Redis database 1 by default), with a quiet logger.
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { systemClock } from '../../src/clock.js';

export const TEST_SECRETS_KEY = 'ZG9vcm1hbiB0ZXN0IHN1aXRlIGtleTogbm90IHJlYWw=';

export const testEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://localhost:5432/doorman_test',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/1',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  // Many deps are open at once in a run (and servers in child processes): keep pools small.
  PG_POOL_MAX: '4',
  // No metrics listener unless a test asks for one (child servers would contend for one port).
  METRICS_PORT: '0',
  // Child processes (bin/doorman.js) read no checkout .env: a developer's local settings
  // (WEBHOOK_ALLOW_PRIVATE, DEMO_PAGES, …) must not change what the tests see.
  DOORMAN_ENV_FILE: 'none',
  // X-Forwarded-For from loopback names the client: each test sends an address of its own
  // (fixtures.ts aClientIp), so per-IP limits never carry over from one test to another.
  TRUST_PROXY: 'loopback',
  // Failed authentications from this machine add up over a run; the tests of that limit set
  // their own (test/http/authentication.test.ts).
  AUTH_FAILURES_PER_IP: '1000000',
  // The vault's master key for doorman_test, the same on every run (the database persists, and
  // its data keys are wrapped under this key). A test value: never a real deployment's.
  SECRETS_KEY: TEST_SECRETS_KEY,
  // The overload gate off: the suite runs its shards, the stores and their servers side by side
  // on a machine that is past saturation by design, and a verdict refused with 503 there would be
  // a flaky test, not a finding. test/verdicts/overload.test.ts and the bench turn it on.
  OVERLOAD_LAG_MS: '0',
  // No fetching of the public feeds on a schedule: the intel tests fetch from stand-ins of their own.
  INTEL_UPDATE_CRON: 'off',
};

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...testEnv, ...overrides });
}

const opened: Deps[] = [];
const shared = new Map<string, Deps>();

// Deps are closed by the root hook after the run, so tests need not track them. Deps without
// object overrides are shared per configuration: connections stay few however many tests run.
export function testDeps(envOverrides: Record<string, string> = {}, overrides: Partial<Deps> = {}): Deps {
  const cacheKey = Object.keys(overrides).length === 0 ? JSON.stringify(Object.entries(envOverrides).sort()) : undefined;
  const cached = cacheKey === undefined ? undefined : shared.get(cacheKey);
  if (cached) return cached;
  const config = testConfig(envOverrides);
  const deps = createDeps(config, { logger: pino({ level: config.logLevel }), ...overrides });
  opened.push(deps);
  if (cacheKey !== undefined) shared.set(cacheKey, deps);
  return deps;
}

// A private set of deps (never shared), for tests that stop, start or count something in them.
export function ownTestDeps(envOverrides: Record<string, string> = {}): Deps {
  return testDeps(envOverrides, { clock: systemClock });
}

export async function closeAllTestDeps(): Promise<void> {
  shared.clear();
  await Promise.all(opened.splice(0).map((d) => d.close()));
}
