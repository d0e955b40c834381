// What the console's door needs (sign-in, its limits, sessions, analyst accounts); the composition
// root (src/deps.ts) passes its Deps.
import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Passwords } from './passwords.js';

export interface ConsoleAuthDeps {
  db: pg.Pool;
  clock: Clock;
  // The sign-in limits' counters (sign-in-limits.ts).
  redis: Redis;
  passwords: Passwords;
  // secretsKeys: the master keys that sign-in links are tagged under (link-tokens.ts).
  config: Pick<Config, 'publicUrl' | 'consoleIdleMinutes' | 'consoleSignInPerIp' | 'consoleSignInPerAccount' | 'secretsKeys'>;
}
