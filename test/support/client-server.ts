// One real `doorman serve` child for the client's tests (test/client/), started on first use and
// shared by them, with the verdict harness's stand-ins (DNS, RDAP, intel ranges) so a signup from
// the proxy range is a `review`; ended with the run's other children.
import { type Child, startServer } from './processes.js';
import { standIns } from './verdict-harness.js';

let shared: Promise<Child & { url: string }> | undefined;

export async function serverEnv(): Promise<Record<string, string>> {
  const { dns, rdap, intelDir } = await standIns();
  // Generous deadlines, as the tests assert that a verdict had every signal: the stand-ins answer
  // at once, but beside the rest of the suite (the Python and Go clients' suites among it) a
  // lookup's default 100 ms was once missed and the verdict decided without `rdap`.
  return {
    DNS_SERVERS: dns.server,
    RDAP_BASE_URL: rdap.url,
    INTEL_DIR: intelDir,
    SIGNAL_DEADLINE_MS: '2000',
    DNS_TIMEOUT_MS: '1000',
    RDAP_TIMEOUT_MS: '1000',
  };
}

export function clientServer(): Promise<Child & { url: string }> {
  shared ??= (async () => {
    // It lives to the end of the run: it leaves the graph to the test process's writer, so no
    // lane stays with it while later tests need a writer of their own to hold every lane.
    const child = await startServer(await serverEnv(), undefined, ['--no-graph-writer']);
    return Object.assign(child, { url: `http://127.0.0.1:${child.port}` });
  })();
  return shared;
}
