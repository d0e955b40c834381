// The engine tests a kept mutation report (mutation/engine-incremental.json) was made with, as
// one digest of test/engine/ (mutation/engine-tests.sha256). Stryker's command runner sees the
// tests as one whole, so an incremental run reuses a killed mutant as killed even when the tests
// that killed it changed: it retests only the mutants of changed engine code. `--write` (after
// `npm run mutation`) records the digest, and takes the checkout's absolute path out of the
// report; `--check` exits 1 when the tests changed since.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const DIR = 'test/engine';
const FILE = 'mutation/engine-tests.sha256';
const REPORT = 'mutation/engine-incremental.json';

function digest() {
  const hash = crypto.createHash('sha256');
  const files = fs
    .readdirSync(DIR, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(fs.readFileSync(path.join(DIR, f)))
      .update('\0');
  return hash.digest('hex');
}

if (process.argv.includes('--write')) {
  fs.writeFileSync(FILE, `${digest()}\n`);
  // The report names the checkout it was made in; kept in the repository, it names none.
  const report = JSON.parse(fs.readFileSync(REPORT, 'utf8'));
  if (report.projectRoot !== undefined) {
    report.projectRoot = '.';
    fs.writeFileSync(REPORT, JSON.stringify(report));
  }
} else {
  const kept = fs.existsSync(FILE) ? fs.readFileSync(FILE, 'utf8').trim() : '';
  if (kept !== digest()) {
    process.stderr.write(
      `the engine tests changed since the kept mutation report: its killed mutants are reused as killed; npm run mutation refreshes it\n`,
    );
    process.exit(1);
  }
}
