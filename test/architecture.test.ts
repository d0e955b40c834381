// Keeps the rooms honest: the engine stays pure, configuration has one reader, every Cypher
// statement is scoped to a tenant and mode, migrations are numbered in order, nothing refers to
// a file outside the repository, and the mutation sandbox leaves out every ignored folder.
import { execFileSync } from 'node:child_process';
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';

const walk = (dir: string, ext: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? walk(full, ext) : full.endsWith(ext) ? [full] : [];
  });

describe('architecture', () => {
  it('keeps the engine pure: it imports nothing from outside src/engine', () => {
    for (const file of walk('src/engine', '.ts')) {
      const imports = [...fs.readFileSync(file, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      for (const spec of imports) {
        const target = path.resolve(path.dirname(file), spec);
        expect(spec.startsWith('.') && target.startsWith(path.resolve('src/engine')), `${file} imports ${spec}`).to.equal(true);
      }
    }
  });

  it('reads process.env only in src/config.ts', () => {
    const readers = walk('src', '.ts').filter((f) => fs.readFileSync(f, 'utf8').includes('process.env'));
    expect(readers).to.deep.equal([path.join('src', 'config.ts')]);
  });

  it('scopes every Cypher statement to a tenant and a mode', () => {
    for (const file of [...walk('cypher/graph', '.cypher'), ...walk('cypher/analyst', '.cypher'), ...walk('cypher/console', '.cypher')]) {
      const text = fs.readFileSync(file, 'utf8');
      // Every node looked up or created by its properties names its tenant and mode: from the
      // statement's parameters, or from each row of a batch (UNWIND $links AS l: l.tenantId).
      const patterns = [...text.matchAll(/\(\w*:\w+ \{([^}]*)\}/g)];
      expect(patterns.length, `${file} looks nodes up by property`).to.be.greaterThan(0);
      for (const [pattern, props] of patterns) {
        expect(props, `${file}: ${pattern}`).to.match(/tenantId: (\$tenantId|\w+\.tenantId)/);
        expect(props, `${file}: ${pattern}`).to.match(/mode: (\$mode|\w+\.mode)/);
      }
      expect(text.split('\n')[0], `${file} opens with a header comment`).to.match(/^\/\/ /);
    }
  });

  it('numbers migrations in order, each with an up and a down section', () => {
    const names = fs.readdirSync('migrations').filter((n) => n.endsWith('.sql'));
    names.forEach((name, i) => {
      expect(name, 'numbered 0001_…').to.match(new RegExp(`^${String(i + 1).padStart(4, '0')}_[a-z0-9-]+\\.sql$`));
      const text = fs.readFileSync(path.join('migrations', name), 'utf8');
      expect(text).to.match(/-- Up Migration/);
      expect(text).to.match(/-- Down Migration/);
    });
  });

  it('refers to nothing outside the repository: no path that climbs out of it, no outside document', () => {
    const root = path.resolve('.');
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
      .split('\0').filter((f) => f && fs.existsSync(f) && !/(^|\/)package-lock\.json$|\.(png|svg|ico|woff2?|gz)$/.test(f));
    expect(files.length).to.be.greaterThan(100);
    // Documents of the workplace around the repository, named in ways a clone cannot follow.
    const outside = [/\b(?:design|spec|shared)\/[\w.-]+\.md\b/, /\bhouse (?:rule|style)\b/i, /(?:^|[\s'"`(])\/work\//];
    const problems: string[] = [];
    for (const file of files) {
      if (file === path.join('test', 'architecture.test.ts')) continue;
      const text = fs.readFileSync(file, 'utf8');
      text.split('\n').forEach((line, i) => {
        for (const climb of line.matchAll(/(?:\.\.\/)+[\w.-]+/g)) {
          const target = path.resolve(path.dirname(file), climb[0]);
          if (!`${target}/`.startsWith(`${root}/`)) problems.push(`${file}:${i + 1}: ${climb[0]} leaves the repository`);
        }
        for (const pattern of outside) if (pattern.test(line)) problems.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
        // A Markdown document named in prose (a document, or a comment in code) is one of ours.
        const prose = file.endsWith('.md') ? line : /(?:^|\s)(?:\/\/|#|--|\*)\s?(.*)$/.exec(line)?.[1] ?? '';
        for (const doc of prose.matchAll(/[\w./-]*\b[\w-]+\.md\b/g)) {
          const name = doc[0].replace(/^\.\//, '');
          if (!files.some((f) => f === name || f.endsWith(`/${name}`) || path.basename(f) === path.basename(name))) problems.push(`${file}:${i + 1}: names ${name}, which is not in the repository`);
        }
      });
    }
    expect(problems).to.deep.equal([]);
  });

  it('leaves every ignored folder out of the mutation sandbox (Stryker copies the checkout)', async () => {
    const { default: stryker } = (await import(path.resolve('stryker.config.mjs'))) as { default: { ignorePatterns: string[] } };
    const ignored = fs.readFileSync('.gitignore', 'utf8').split('\n').map((l) => l.trim().replace(/^\/|\/$/g, ''))
      .filter((l) => l && !l.startsWith('#') && l !== 'node_modules');
    expect(ignored).to.include.members(['.venv', '.stack', 'dist']);
    expect(stryker.ignorePatterns).to.include.members(ignored);
    // What the scripts have created in this checkout so far is ignored, hence left out.
    const present = execFileSync('git', ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory'], { encoding: 'utf8' })
      .split('\n').filter(Boolean).map((p) => p.replace(/\/$/, '').split('/')[0]!).filter((p) => p !== 'node_modules' && !p.startsWith('clients'));
    const covered = (p: string) => stryker.ignorePatterns.some((pattern) => pattern === p || (pattern.startsWith('*') && p.endsWith(pattern.slice(1))));
    expect([...new Set(present)].filter((p) => !covered(p))).to.deep.equal([]);
  });
});
