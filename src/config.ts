// Configuration: read once from the environment, validated, frozen. The only reader of process.env.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseRedisUrl } from './redis/redis-url.js';

// The checkout (or the image's /app): the nearest folder above this module holding package.json,
// so src/config.ts and its build, dist/server/config.js, agree on it.
function findRepoDir(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
export const repoDir = findRepoDir(path.dirname(fileURLToPath(import.meta.url)));

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly neo4jUri: string;
  readonly neo4jUser: string;
  readonly neo4jPassword: string | undefined;
  readonly redisUrl: string;
  readonly rateLimitPerMinute: number;
  readonly rateLimitWindowSeconds: number;
  // Past saturation (src/http/overload-gate.ts): the event loop's lateness that counts as a queue
  // (0: never refuse), and how long it (or waiters for a Postgres connection) must stand before
  // verdicts are refused with 503.
  readonly overloadLagMs: number;
  readonly overloadIntervalMs: number;
  // Failed authentications per client address (IPv6: per /64) and window, past which keys not
  // seen to succeed lately get 429 without a lookup (http/authenticate.ts).
  readonly authFailuresPerIp: number;
  readonly authFailureWindowSeconds: number;
  // Express's `trust proxy`: false (default), a hop count, or addresses/subnets such as 'loopback'.
  readonly trustProxy: boolean | number | string;
  readonly deviceTokenTtlSeconds: number;
  readonly dnsServers: readonly string[];
  readonly rdapBaseUrl: string | undefined;
  readonly intelDir: string;
  readonly signalDeadlineMs: number;
  // The graph read's own deadline (never below signalDeadlineMs): the cluster read waits this
  // long before the verdict is decided without the graph.
  readonly graphDeadlineMs: number;
  readonly dnsTimeoutMs: number;
  readonly rdapTimeoutMs: number;
  // A JSON file naming intel sources of one's own (src/intel/intel-sources.ts); the built-in ones when unset.
  readonly intelSourcesFile: string | undefined;
  readonly intelFetchTimeoutMs: number;
  readonly intelFetchMaxBytes: number;
  // When the intel update job runs (cron, UTC); null: never, updates only by `doorman intel update`.
  readonly intelUpdateCron: string | null;
  readonly healthTimeoutMs: number;
  readonly logLevel: string;
  readonly bodyLimitBytes: number;
  readonly hubThreshold: number;
  // How often the graph writer looks for links whose time ran out (the link policy's expiry).
  readonly graphExpirySweepMs: number;
  readonly pgPoolMax: number;
  // Webhook URLs on loopback, private, link-local or metadata addresses (local demo and tests).
  readonly webhookAllowPrivate: boolean;
  readonly webhookTimeoutMs: number;
  readonly webhookSecretOverlapHours: number;
  // The retry schedule is written in seconds; tests shrink the unit.
  readonly webhookRetryUnitMs: number;
  // How often pg-boss's supervisor expires stuck jobs (a worker that died mid-delivery).
  readonly jobMaintenanceSeconds: number;
  // POST /v1/device only: a FingerprintJS component set is about 38 KB, more on some GPUs.
  readonly deviceBodyLimitBytes: number;
  // GET /demo/device (local demo; `npm start` turns it on).
  readonly demoPages: boolean;
  // The analyst console (src/console/): the public base URL its sign-in links point at (https
  // there also marks the session cookie Secure), idle time before a session ends, sign-in
  // attempts allowed per account and per client IP in 15 minutes, and the saved queries' bounds.
  readonly publicUrl: string;
  readonly consoleIdleMinutes: number;
  readonly consoleSignInPerAccount: number;
  readonly consoleSignInPerIp: number;
  readonly consoleQueryTimeoutMs: number;
  readonly consoleQueryRowCap: number;
  // Analysts' own Cypher (src/graph-queries/): per run, a timeout, a row cap and a cap on the
  // bytes of rows held (the server's own memory cap is Neo4j's db.memory.transaction.max).
  readonly graphQueryTimeoutMs: number;
  readonly graphQueryRowCap: number;
  readonly graphQueryMaxBytes: number;
  readonly graphQueryPool: number;
  // A Postgres query without an answer this long fails (the connection is dropped), so a
  // stalled database gives a retryable 500 instead of a request that never ends.
  readonly pgQueryTimeoutMs: number;
  // Server-side bounds, below the client's, so Postgres aborts a statement (and rolls it back)
  // before the client gives up on it: a 500 then means nothing was written. Sent as startup
  // parameters on a direct connection; a transaction-mode pooler refuses those, so behind one they
  // are off here and set on the database role instead (docs/reliability.md).
  readonly pgStatementTimeoutMs: number;
  readonly pgIdleInTransactionTimeoutMs: number;
  readonly pgServerTimeouts: boolean;
  // A Redis command without an answer this long fails: velocity becomes a missing signal and
  // the rate limiter falls back to its in-memory insurance, instead of waiting on a stall.
  readonly redisCommandTimeoutMs: number;
  // Server timeouts (http/http-server.ts): headers, the whole request, idle keep-alive.
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  // Prometheus metrics on their own listener, never on the public API (0 turns it off).
  readonly metricsPort: number;
  readonly metricsHost: string;
  // Events older than this many days are removed from Postgres and the graph (retention job).
  readonly eventRetentionDays: number;
  readonly retentionBatchSize: number;
  // A direct (session) connection for what PgBouncer's transaction mode cannot carry: LISTEN,
  // session advisory locks (graph writer lanes, migrations) and the job queue. Defaults to DATABASE_URL.
  readonly databaseDirectUrl: string;
  // The most that rows held in memory (API keys, list entries, policies) may lag Postgres: each
  // LISTEN connection proves itself with a heartbeat every third of this, and a memory without a
  // proof this recent is not trusted (db/listen.ts).
  readonly memoryStalenessMs: number;
  // Named (server-side prepared) statements on the hot queries. PgBouncer before 1.21 cannot carry
  // them in transaction mode, so the default is on only when DATABASE_URL is the direct connection.
  readonly pgNamedStatements: boolean;
  // OpenTelemetry traces go here when set (bin/doorman.js starts the SDK; the SDK reads OTEL_*).
  readonly otelEndpoint: string | undefined;
  // Master keys of the vault (src/vault/): SECRETS_KEY seals, SECRETS_PREVIOUS_KEYS still open
  // what older keys wrapped (during a rotation). Each 32 random bytes in base64. Empty when unset:
  // serve, worker and migrate then refuse to start, and nothing can be sealed or opened.
  readonly secretsKeys: readonly Buffer[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

// Reads the environment section by section (each section's variables in turn, so its problems are
// listed together), then the bounds that tie two variables together; reports every problem at once.
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const read = new EnvReader(env);
  const config: Config = {
    ...postgresConfig(read),
    ...neo4jAndRedisConfig(read),
    ...httpConfig(read),
    ...signalsConfig(read),
    ...intelConfig(read),
    ...graphConfig(read),
    ...webhooksAndJobsConfig(read),
    ...consoleConfig(read),
    ...retentionConfig(read),
    ...observabilityConfig(read),
    secretsKeys: secretsKeys(env, read.problems),
  };
  const problems = [...read.problems, ...crossCheckProblems(config)];
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

// The small readers every section uses. An unset or empty variable reads as its default; a value
// that is not valid is a problem (kept to report with the others) and reads as the default.
class EnvReader {
  readonly problems: string[] = [];

  constructor(readonly env: NodeJS.ProcessEnv) {}

  str(name: string, fallback: string): string {
    const v = this.env[name];
    return v === undefined || v === '' ? fallback : v;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  }

  url(name: string, fallback: string, protocols: string[]): string {
    const v = this.str(name, fallback);
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol)) this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${u.protocol}")`);
    } catch {
      this.problems.push(`${name} is not a URL (got "${v}")`);
    }
    return v;
  }

  // Five cron fields (minute hour day month weekday), as pg-boss's scheduler reads them.
  cron(name: string, value: string): string {
    const fields = value.split(/\s+/);
    if (fields.length !== 5 || !fields.every((f) => /^[0-9A-Za-z*,/-]+$/.test(f))) {
      this.problems.push(`${name} must be five cron fields or off (got "${value}")`);
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    this.problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }
}

const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];

// Postgres: the connections, the pool, the client's and the server's timeouts, and how stale the
// rows held in memory may be.
function postgresConfig(read: EnvReader) {
  const { env } = read;
  const databaseUrl = withOsUser(read.url('DATABASE_URL', 'postgres://localhost:5432/doorman', POSTGRES_PROTOCOLS));
  // Postgres timeouts: the client's, and the server's below it. By default a statement gets a fifth
  // less than the client's wait (at most a second less, at least 50 ms), and a transaction may sit
  // idle as long as the client waits for one statement.
  const clientMs = read.int('PG_QUERY_TIMEOUT_MS', 5000, 100, 600_000);
  const defaultStatementMs = Math.max(50, clientMs - Math.max(50, Math.min(1000, Math.round(clientMs / 5))));
  const statementMs = read.int('PG_STATEMENT_TIMEOUT_MS', defaultStatementMs, 10, 600_000);
  const databaseDirectUrl = env.DATABASE_DIRECT_URL ? withOsUser(read.url('DATABASE_DIRECT_URL', '', POSTGRES_PROTOCOLS)) : databaseUrl;
  return {
    databaseUrl,
    databaseDirectUrl,
    pgPoolMax: read.int('PG_POOL_MAX', 20, 1, 1000),
    pgQueryTimeoutMs: clientMs,
    memoryStalenessMs: read.int('MEMORY_STALENESS_MS', 3000, 300, 60_000),
    pgNamedStatements: read.bool('PG_NAMED_STATEMENTS', databaseDirectUrl === databaseUrl),
    pgStatementTimeoutMs: statementMs,
    pgIdleInTransactionTimeoutMs: read.int('PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', clientMs, 100, 3_600_000),
    pgServerTimeouts: read.bool('PG_SERVER_TIMEOUTS', databaseDirectUrl === databaseUrl),
  } satisfies Partial<Config>;
}

const NEO4J_PROTOCOLS = ['bolt:', 'neo4j:', 'bolt+s:', 'neo4j+s:', 'bolt+ssc:', 'neo4j+ssc:'];

function neo4jAndRedisConfig(read: EnvReader) {
  return {
    neo4jUri: read.url('NEO4J_URI', 'bolt://127.0.0.1:7687', NEO4J_PROTOCOLS),
    neo4jUser: read.str('NEO4J_USER', 'neo4j'),
    neo4jPassword: read.env.NEO4J_PASSWORD || undefined,
    redisUrl: redisUrl(read.str('REDIS_URL', 'redis://127.0.0.1:6379'), read.problems),
    redisCommandTimeoutMs: read.int('REDIS_COMMAND_TIMEOUT_MS', 1000, 50, 60_000),
  } satisfies Partial<Config>;
}

// The public API's listener: address, rate limits, proxies, bodies, device tokens and timeouts.
function httpConfig(read: EnvReader) {
  return {
    port: read.int('PORT', 8080, 0, 65535),
    host: read.str('HOST', '127.0.0.1'),
    rateLimitPerMinute: read.int('RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000),
    rateLimitWindowSeconds: read.int('RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600),
    overloadLagMs: read.int('OVERLOAD_LAG_MS', 30, 0, 10_000),
    overloadIntervalMs: read.int('OVERLOAD_INTERVAL_MS', 200, 10, 60_000),
    authFailuresPerIp: read.int('AUTH_FAILURES_PER_IP', 300, 1, 10_000_000),
    authFailureWindowSeconds: read.int('AUTH_FAILURE_WINDOW_SECONDS', 300, 1, 86_400),
    trustProxy: parseTrustProxy(read.env.TRUST_PROXY),
    deviceTokenTtlSeconds: read.int('DEVICE_TOKEN_TTL_SECONDS', 900, 30, 86_400),
    healthTimeoutMs: read.int('HEALTH_TIMEOUT_MS', 1000, 50, 30_000),
    bodyLimitBytes: read.int('BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    deviceBodyLimitBytes: read.int('DEVICE_BODY_LIMIT_BYTES', 128 * 1024, 1024, 10 * 1024 * 1024),
    demoPages: read.bool('DEMO_PAGES', false),
    headersTimeoutMs: read.int('HEADERS_TIMEOUT_MS', 10_000, 100, 600_000),
    requestTimeoutMs: read.int('REQUEST_TIMEOUT_MS', 15_000, 100, 600_000),
    keepAliveTimeoutMs: read.int('KEEP_ALIVE_TIMEOUT_MS', 65_000, 100, 600_000),
  } satisfies Partial<Config>;
}

// The outside facts a verdict gathers (src/signals/): resolvers, RDAP, the intel files, deadlines.
function signalsConfig(read: EnvReader) {
  const signalDeadlineMs = read.int('SIGNAL_DEADLINE_MS', 150, 10, 10_000);
  return {
    dnsServers: read
      .str('DNS_SERVERS', '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    rdapBaseUrl: read.env.RDAP_BASE_URL ? read.url('RDAP_BASE_URL', '', ['http:', 'https:']) : undefined,
    intelDir: read.str('INTEL_DIR', path.join(repoDir, 'data', 'intel')),
    signalDeadlineMs,
    // The identity graph is the verdict's heart: its read gets longer than the outside lookups
    // (README, "Signals and deadlines", has the figures this was chosen from).
    graphDeadlineMs: Math.max(read.int('GRAPH_DEADLINE_MS', 250, 10, 10_000), signalDeadlineMs),
    // Below the signal deadline, so a slow resolver is reported as such (timeout_failopen)
    // while the rest of the email facts still arrive in time.
    dnsTimeoutMs: read.int('DNS_TIMEOUT_MS', 100, 5, 10_000),
    rdapTimeoutMs: read.int('RDAP_TIMEOUT_MS', 100, 5, 10_000),
  } satisfies Partial<Config>;
}

// The public feeds `doorman intel update` fetches (src/intel/): where a file naming sources of
// one's own lies, each fetch's bounds, and the schedule of the job that runs the update.
function intelConfig(read: EnvReader) {
  const cron = read.str('INTEL_UPDATE_CRON', '7 * * * *').trim();
  return {
    intelSourcesFile: read.env.INTEL_SOURCES ? read.str('INTEL_SOURCES', '') : undefined,
    intelFetchTimeoutMs: read.int('INTEL_FETCH_TIMEOUT_MS', 30_000, 100, 600_000),
    intelFetchMaxBytes: read.int('INTEL_FETCH_MAX_BYTES', 32 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    // Five cron fields, or `off`: the job then never runs (updates only by hand).
    intelUpdateCron: cron === 'off' ? null : read.cron('INTEL_UPDATE_CRON', cron),
  } satisfies Partial<Config>;
}

// The identity graph's writer, and the analysts' own Cypher.
function graphConfig(read: EnvReader) {
  return {
    // An identifier shared by more accounts than this stops linking them (a hub).
    hubThreshold: read.int('GRAPH_HUB_THRESHOLD', 25, 2, 1_000_000),
    graphExpirySweepMs: read.int('GRAPH_EXPIRY_SWEEP_MS', 30_000, 100, 3_600_000),
    graphQueryTimeoutMs: read.int('GRAPH_QUERY_TIMEOUT_MS', 10_000, 100, 120_000),
    graphQueryRowCap: read.int('GRAPH_QUERY_ROW_CAP', 10_000, 1, 1_000_000),
    graphQueryMaxBytes: read.int('GRAPH_QUERY_MAX_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    graphQueryPool: read.int('GRAPH_QUERY_POOL', 4, 1, 64),
  } satisfies Partial<Config>;
}

function webhooksAndJobsConfig(read: EnvReader) {
  return {
    webhookAllowPrivate: read.bool('WEBHOOK_ALLOW_PRIVATE', false),
    webhookTimeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookSecretOverlapHours: read.int('WEBHOOK_SECRET_OVERLAP_HOURS', 24, 0, 24 * 30),
    webhookRetryUnitMs: read.int('WEBHOOK_RETRY_UNIT_MS', 1000, 1, 1000),
    jobMaintenanceSeconds: read.int('JOB_MAINTENANCE_SECONDS', 120, 1, 3600),
  } satisfies Partial<Config>;
}

// The analyst console (src/console/). Its public URL defaults to this service's own port.
function consoleConfig(read: EnvReader) {
  return {
    publicUrl: read.url('PUBLIC_URL', `http://localhost:${read.env.PORT || 8080}`, ['http:', 'https:']).replace(/\/+$/, ''),
    consoleIdleMinutes: read.int('CONSOLE_IDLE_MINUTES', 30, 1, 24 * 60),
    consoleSignInPerAccount: read.int('CONSOLE_SIGN_IN_PER_ACCOUNT', 5, 1, 1000),
    consoleSignInPerIp: read.int('CONSOLE_SIGN_IN_PER_IP', 30, 1, 100_000),
    consoleQueryTimeoutMs: read.int('CONSOLE_QUERY_TIMEOUT_MS', 5000, 100, 60_000),
    consoleQueryRowCap: read.int('CONSOLE_QUERY_ROW_CAP', 1000, 1, 100_000),
  } satisfies Partial<Config>;
}

function retentionConfig(read: EnvReader) {
  return {
    eventRetentionDays: read.int('EVENT_RETENTION_DAYS', 365, 1, 36_500),
    retentionBatchSize: read.int('RETENTION_BATCH_SIZE', 1000, 1, 100_000),
  } satisfies Partial<Config>;
}

// Logs, metrics and traces.
function observabilityConfig(read: EnvReader) {
  const logLevel = read.str('LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) read.problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);
  return {
    logLevel,
    metricsPort: read.int('METRICS_PORT', 9464, 0, 65535),
    metricsHost: read.str('METRICS_HOST', '127.0.0.1'),
    otelEndpoint: read.env.OTEL_EXPORTER_OTLP_ENDPOINT ? read.url('OTEL_EXPORTER_OTLP_ENDPOINT', '', ['http:', 'https:']) : undefined,
  } satisfies Partial<Config>;
}

// The bounds that tie two variables together, checked once every section is read.
function crossCheckProblems(config: Config): string[] {
  const problems: string[] = [];
  const { pgStatementTimeoutMs: statementMs, pgQueryTimeoutMs: clientMs } = config;
  if (statementMs >= clientMs) {
    problems.push(
      `PG_STATEMENT_TIMEOUT_MS (${statementMs}) must be below PG_QUERY_TIMEOUT_MS (${clientMs}), ` +
        'so Postgres aborts a statement before the client gives up on it',
    );
  }
  // Node refuses a headers timeout longer than the whole-request timeout.
  if (config.headersTimeoutMs > config.requestTimeoutMs) problems.push('HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS');
  return problems;
}

// libpq's rule, which node-postgres does not apply when $USER is unset: no user in the URL means
// the operating-system user.
function withOsUser(databaseUrl: string): string {
  try {
    const u = new URL(databaseUrl);
    if (u.username) return databaseUrl;
    u.username = encodeURIComponent(os.userInfo().username);
    return u.toString();
  } catch {
    return databaseUrl; // reported by the caller's check
  }
}

// 32 bytes of base64 each (`openssl rand -base64 32`, or `doorman secrets new-key`).
function secretsKeys(env: NodeJS.ProcessEnv, problems: string[]): Buffer[] {
  const keys: Buffer[] = [];
  const parse = (name: string, text: string) => {
    const key = Buffer.from(text.trim(), 'base64');
    if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+=*$/.test(text.trim())) {
      problems.push(`${name} must be 32 random bytes in base64 (\`doorman secrets new-key\` prints one)`);
    } else keys.push(key);
  };
  if (env.SECRETS_KEY) parse('SECRETS_KEY', env.SECRETS_KEY);
  else if (env.SECRETS_PREVIOUS_KEYS) problems.push('SECRETS_PREVIOUS_KEYS needs SECRETS_KEY, the key that seals from now on');
  const previousKeys = (env.SECRETS_PREVIOUS_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  for (const previous of previousKeys) parse('SECRETS_PREVIOUS_KEYS', previous);
  return keys;
}

function redisUrl(value: string, problems: string[]): string {
  try {
    parseRedisUrl(value);
  } catch (err) {
    problems.push(`REDIS_URL: ${(err as Error).message}`);
  }
  return value;
}

function parseTrustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}
