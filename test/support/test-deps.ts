// Test dependencies: the real stores, at the URLs scripts/test.sh exports (a separate
// doorman_test database and Redis database 1 by default), with a quiet logger.
import { pino } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';

export const testEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://localhost:5432/doorman_test',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/1',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
};

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...testEnv, ...overrides });
}

const opened: Deps[] = [];

// Deps are closed by the root hook after the run, so tests need not track them.
export function testDeps(envOverrides: Record<string, string> = {}, overrides: Partial<Deps> = {}): Deps {
  const config = testConfig(envOverrides);
  const deps = createDeps(config, { logger: pino({ level: config.logLevel }), ...overrides });
  opened.push(deps);
  return deps;
}

export async function closeAllTestDeps(): Promise<void> {
  await Promise.all(opened.splice(0).map((d) => d.close()));
}
