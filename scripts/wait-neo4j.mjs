#!/usr/bin/env node
// Waits until a Neo4j server answers on Bolt: driver.verifyConnectivity(), then `RETURN 1`.
// Used by scripts/neo4j.sh; also handy on its own.
//
//   node scripts/wait-neo4j.mjs [--uri bolt://127.0.0.1:7687] [--timeout 90] [--pid N] [--quiet]
//
// The address comes from --uri, else NEO4J_URI, else bolt://127.0.0.1:${NEO4J_BOLT_PORT:-7687}.
// Credentials: NEO4J_USER (default neo4j) and NEO4J_PASSWORD; without a password no auth token
// is sent (the local server runs with auth disabled).
// --pid N gives up early when process N has exited (the server we just started died).
//
// Exit codes: 0 ready; 1 timed out or the process named by --pid died;
//             2 Bolt answers but refuses our credentials (so something *is* listening).
import neo4j from 'neo4j-driver';

function parseArgs(argv) {
  const opts = { timeout: 90, pid: undefined, quiet: false, uri: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) fail(`missing value after ${a}`);
      return argv[++i];
    };
    if (a === '--timeout') opts.timeout = Number(next());
    else if (a === '--pid') opts.pid = Number(next());
    else if (a === '--uri') opts.uri = next();
    else if (a === '--quiet' || a === '-q') opts.quiet = true;
    else fail(`unknown argument ${a}`);
  }
  if (!Number.isFinite(opts.timeout) || opts.timeout <= 0) fail('--timeout needs a positive number of seconds');
  return opts;
}

function fail(msg) {
  console.error(`[wait-neo4j] ${msg}`);
  process.exit(1);
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const opts = parseArgs(process.argv.slice(2));
const uri = opts.uri || process.env.NEO4J_URI || `bolt://127.0.0.1:${process.env.NEO4J_BOLT_PORT || 7687}`;
const password = process.env.NEO4J_PASSWORD || '';
const auth = password ? neo4j.auth.basic(process.env.NEO4J_USER || 'neo4j', password) : neo4j.auth.none();
const log = (msg) => {
  if (!opts.quiet) console.error(`[wait-neo4j] ${msg}`);
};

const started = Date.now();
const deadline = started + opts.timeout * 1000;
let lastError = 'no attempt made';

while (Date.now() < deadline) {
  if (opts.pid !== undefined && !alive(opts.pid)) {
    fail(`process ${opts.pid} exited before Bolt answered on ${uri} (last error: ${lastError})`);
  }
  const left = Math.max(500, deadline - Date.now());
  const driver = neo4j.driver(uri, auth, {
    connectionTimeout: Math.min(3000, left),
    connectionAcquisitionTimeout: Math.min(5000, left),
    maxConnectionPoolSize: 1,
    maxTransactionRetryTime: 0,
    disableLosslessIntegers: true,
  });
  try {
    await driver.verifyConnectivity();
    const { records } = await driver.executeQuery('RETURN 1 AS one');
    if (records[0]?.get('one') !== 1) throw new Error('RETURN 1 gave an unexpected answer');
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    log(`Bolt answers on ${uri} (waited ${secs}s)`);
    await driver.close();
    process.exit(0);
  } catch (err) {
    await driver.close().catch(() => {});
    const code = err?.code || '';
    if (code.startsWith('Neo.ClientError.Security.')) {
      console.error(`[wait-neo4j] Bolt answers on ${uri} but refused our credentials: ${code} ${err.message}`);
      process.exit(2);
    }
    lastError = `${code ? code + ': ' : ''}${err?.message ?? err}`.split('\n')[0];
  }
  await sleep(Math.min(500, Math.max(0, deadline - Date.now())));
}

fail(`Neo4j did not answer on ${uri} within ${opts.timeout}s (last error: ${lastError})`);
