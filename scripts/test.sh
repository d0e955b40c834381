#!/usr/bin/env bash
# `npm test`: install what the suite needs when missing (node modules, PgBouncer, Chromium), bring
# up the stack, check the format, type-check, run the suite against a separate test database (doorman_test) and
# Redis database 1. With no file arguments it is the whole suite: first the smoke stage
# (scripts/smoke.mjs: a clean copy of the committed tree, built and run as a user runs it), then
# the mocha suite in shards side by side (scripts/test-shards.mjs), the fault-injection suite
# (scripts/test-faults.sh) and the fuzzer (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules

export DATABASE_URL="${TEST_DATABASE_URL:-postgres://localhost:5432/doorman_test}"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/1}"
export PG_EXTRA_DATABASES=""
# The checkout's .env configures `npm start` and the CLI; the tests set their own configuration.
export DOORMAN_ENV_FILE=none
bash scripts/stack.sh up

# Installed here, as for a clean machine, so that no test skips for a missing package:
# PgBouncer for the transaction-pooling test, Debian's Chromium for the browser tests.
command -v pgbouncer >/dev/null || apt_install pgbouncer
bash scripts/chromium.sh >/dev/null

whole_suite=$(( $# == 0 ))
# The scopes this run creates are the tenants made from now on (the graph check below).
run_started="$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)"
if [ "$whole_suite" = 1 ]; then
  # The fault suite's toxiproxy (built from its Go module), the fuzzer's schemathesis (from
  # PyPI) and the other clients' toolchains are made ready in the background while the rest
  # runs: on a fresh clone they take a minute or two, mostly waiting on downloads. Their output
  # is shown if they fail.
  # The smoke stage runs beside the type-checks too (its own copy, database and port); its
  # report is printed whole when it is done.
  prep="$(mktemp -d)"
  trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$prep"' EXIT
  bash scripts/toxiproxy.sh >"$prep/toxiproxy.out" 2>"$prep/toxiproxy.log" & toxiproxy_prep=$!
  bash scripts/fuzz-install.sh >"$prep/fuzz.out" 2>"$prep/fuzz.log" & fuzz_prep=$!
  # The Python and Go clients' toolchains (their tests run it again, which waits for this one if
  # it is still going; a failure is reported there, with its output).
  bash scripts/clients-install.sh >/dev/null 2>&1 &
  echo "[test] the smoke stage (in the background): the built service and CLI from a clean copy of the committed tree"
  node scripts/smoke.mjs >"$prep/smoke.log" 2>&1 & smoke=$!
  # The engine's mutation score, incrementally: only the mutants of engine code changed since the
  # report kept in mutation/ are tested (a copy is written, the kept one stays as committed);
  # under 95% it fails. `npm run mutation` refreshes the kept report (scripts/mutation-tests-digest.mjs
  # says when the engine tests changed since it was made). At the lowest CPU priority: the suite's
  # timing tests (verdicts within their deadline beside hostile queries) must not share the CPU
  # with it evenly.
  echo "[test] engine mutation, incremental (in the background)"
  nice -n 19 bash scripts/mutation-incremental.sh >"$prep/mutation.log" 2>&1 & mutation=$!
fi

# The TypeScript client (clients/typescript/) has its own dependencies; its tests import its build.
ensure_node_modules clients/typescript
echo "[test] building the TypeScript client (at ${SECONDS} s)"
npm run --prefix clients/typescript --silent build
echo "[test] checking the format: npm run format writes it (at ${SECONDS} s)"
node_modules/.bin/biome format . >/dev/null 2>&1 || { node_modules/.bin/biome format . --max-diagnostics=5 || true; die "files are not formatted: run npm run format"; }
echo "[test] type-checking (at ${SECONDS} s)"
tsc_native -p tsconfig.test.json --noEmit
tsc_native -p sdk/tsconfig.json
tsc_native -p console/tsconfig.json
# The server runs from source here, but serves the browser SDK and the analyst console from their
# bundles in dist/browser/ (about a second each; the server's build in dist/server/ is untouched).
node scripts/build-sdk.mjs
node scripts/build-console.mjs
if [ "$whole_suite" = 1 ]; then
  smoke_ok=0; wait "$smoke" || smoke_ok=$?
  echo "[test] the smoke stage (done at ${SECONDS} s):"; cat "$prep/smoke.log"
  [ "$smoke_ok" = 0 ] || die "the smoke stage failed"
fi
echo "[test] running the suite (at ${SECONDS} s)"
# With no arguments, the whole suite; with paths, only those files. In shards side by side
# (scripts/test-shards.mjs; TEST_SHARDS=1 runs one mocha process).
if [ $# -eq 0 ]; then set -- 'test/**/*.test.ts'; fi
node scripts/test-shards.mjs "$@"
if [ "$whole_suite" = 1 ]; then
  # One truth: after the suite's own traffic, every scope it created holds in Neo4j what
  # Postgres says it must (`doorman graph verify`), in each shard's database.
  echo "[test] graph verify over every scope the suite created (at ${SECONDS} s)"
  verify_failed=0
  npx tsx scripts/verify-graphs.ts --since "$run_started" --shards "${TEST_SHARDS:-2}" --concurrency 6 || verify_failed=1
  [ "$verify_failed" = 0 ] || die "the graph differs from Postgres in a scope the suite created (above)"
fi
# The whole suite also runs the fault-injection suite and the external fuzzer (docs/reliability.md).
if [ "$whole_suite" = 1 ]; then
  wait "$toxiproxy_prep" || { cat "$prep/toxiproxy.log" >&2; die "building toxiproxy failed"; }
  wait "$fuzz_prep" || { cat "$prep/fuzz.log" >&2; die "installing schemathesis failed"; }
  echo "[test] the fault-injection suite (at ${SECONDS} s)"
  DOORMAN_STACK_READY=1 bash scripts/test-faults.sh
  echo "[test] the fuzzer (at ${SECONDS} s)"
  DOORMAN_STACK_READY=1 bash scripts/fuzz.sh
  mutation_ok=0; wait "$mutation" || mutation_ok=$?
  echo "[test] engine mutation, incremental (done at ${SECONDS} s):"
  grep -E "reused|Final mutation score|All files|warning" "$prep/mutation.log" | sed 's/\x1b\[[0-9;]*m//g' || true
  [ "$mutation_ok" = 0 ] || { tail -40 "$prep/mutation.log"; die "the engine's mutation score fell under 95% (npm run mutation shows every survivor)"; }
fi
echo "[test] done in ${SECONDS} s"
