// Preloaded (NODE_OPTIONS=--require) into a child process by a test: at exit, writes the paths of
// every module the process loaded to $REPORT_MODULES_FILE. CommonJS modules are in require.cache;
// ES modules (a package imported by name may load its ESM build, as OpenTelemetry's do since SDK
// 3) are seen by a synchronous loader hook, which runs in this thread for every load.
const fs = require('node:fs');
const { registerHooks } = require('node:module');
const { fileURLToPath } = require('node:url');

const esm = new Set();
registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith('file:')) esm.add(fileURLToPath(url));
    return nextLoad(url, context);
  },
});
process.on('exit', () =>
  fs.writeFileSync(process.env.REPORT_MODULES_FILE, JSON.stringify([...new Set([...Object.keys(require.cache), ...esm])])),
);
