// Preloaded (NODE_OPTIONS=--require) into a child process by a test: at exit, writes the paths of
// every CommonJS module the process loaded to $REPORT_MODULES_FILE.
const fs = require('node:fs');
process.on('exit', () => fs.writeFileSync(process.env.REPORT_MODULES_FILE, JSON.stringify(Object.keys(require.cache))));
