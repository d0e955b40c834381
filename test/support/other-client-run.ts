// What the Python and Go clients' runs inside the mocha suite share (test/client/python-client.test.ts,
// go-client.test.ts): their toolchains from scripts/clients-install.sh (a Python virtualenv from
// PyPI, the Go client's generator from the module proxy), which `npm test` starts early; a real
// `doorman serve`, the real webhook workers and, per client, a fresh tenant with the control
// server and flaky proxy of client-control.ts, as the environment its integration tests read; and
// the served OpenAPI document with two changed copies for the drift checks (drift-documents.ts).
import { spawn } from 'node:child_process';
import type { Deps } from '../../src/deps.js';
import type { Scope } from '../../src/scope.js';
import { startWorkers } from '../../src/start-workers.js';
import { type ClientControl, startClientControl } from './client-control.js';
import { clientServer } from './client-server.js';
import { type DriftDocuments, driftDocuments } from './drift-documents.js';
import { aTenant } from './fixtures.js';
import { testDeps } from './test-deps.js';
import { IPS } from './verdict-harness.js';

const ROOT = process.cwd();

// Runs a command to its end, output kept (and shown whole when it fails).
export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

let toolchains: Promise<Record<string, string>> | undefined;
// Where the toolchains are (PYTHON_VENV, GO_BIN), installed first when missing.
export function clientToolchains(): Promise<Record<string, string>> {
  toolchains ??= (async () => {
    const { code, output } = await runCommand('bash', ['scripts/clients-install.sh']);
    if (code !== 0) throw new Error(`scripts/clients-install.sh failed:\n${output}`);
    // Its last lines are KEY=VALUE.
    return Object.fromEntries(
      output
        .split('\n')
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
  })();
  return toolchains;
}

export interface ClientRun {
  tools: Record<string, string>;
  // The environment of the client's integration tests, for a fresh tenant of its own.
  integrationEnv(): Promise<Record<string, string>>;
  // The served document and two changed copies, as files.
  documents(): Promise<DriftDocuments>;
  close(): Promise<void>;
}

export async function startClientRun(): Promise<ClientRun> {
  const deps: Deps = testDeps({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_UNIT_MS: '10',
    WEBHOOK_TIMEOUT_MS: '2000',
    JOB_MAINTENANCE_SECONDS: '1',
  });
  const [worker, serverUrl, tools] = await Promise.all([startWorkers(deps), clientServer().then((s) => s.url), clientToolchains()]);
  const controls: ClientControl[] = [];
  return {
    tools,
    async integrationEnv() {
      const tenant = await aTenant(deps);
      const scope: Scope = { tenantId: tenant.tenantId, mode: 'test' };
      const control = await startClientControl(deps, scope, serverUrl);
      controls.push(control);
      return {
        DOORMAN_BASE_URL: serverUrl,
        DOORMAN_SECRET_KEY: tenant.keys.sk_test,
        DOORMAN_REVIEW_IP: IPS.proxy,
        DOORMAN_FLAKY_URL: control.flakyUrl,
        DOORMAN_CONTROL_URL: control.controlUrl,
      };
    },
    documents: () => driftDocuments(serverUrl),
    async close() {
      await Promise.all(controls.map((c) => c.close()));
      await worker.close();
    },
  };
}
