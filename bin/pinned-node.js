// Runs the CLI again on the pinned Node (.nvmrc) from the cache folder scripts/lib.sh installs it
// into, when the `node` that started it is older than the floor. The child gets the terminal, a
// supervisor's SIGTERM or SIGHUP sent to the parent is passed on (SIGINT from a terminal reaches
// the whole foreground group, the child included, so it is not sent twice: a second signal would
// cut `doorman serve`'s drain short), and the child's exit status becomes the parent's. Without a
// cached Node it refuses in one line: Doorman does not run on a runtime past its support.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export function reexecOnPinnedNode(floor, nvmrc) {
  const version = nvmrc.trim().replace(/^v/, '');
  const cache =
    process.env.DOORMAN_NODE_CACHE || path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'doorman', 'node');
  const node = path.join(cache, `v${version}`, 'bin', 'node');
  if (!existsSync(node)) {
    process.stderr.write(
      `doorman: Node ${floor} or later is needed (this is ${process.version}); install Node ${version}, or run \`npm start\` or \`npm test\` once, which installs it into ${path.dirname(node)}\n`,
    );
    process.exit(1);
  }
  const child = spawn(node, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, forward);
  process.on('SIGINT', () => undefined);
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
  // The rest of bin/doorman.js never runs in this process.
  return new Promise(() => {});
}
