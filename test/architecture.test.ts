// Keeps the rooms honest: the engine stays pure, configuration has one reader, every Cypher
// statement is scoped to a tenant and mode, migrations are numbered in order.
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
    for (const file of [...walk('cypher/graph', '.cypher'), ...walk('cypher/analyst', '.cypher')]) {
      const text = fs.readFileSync(file, 'utf8');
      expect(text, file).to.contain('$tenantId');
      expect(text, file).to.contain('$mode');
      expect(text.split('\n')[0], `${file} opens with a header comment`).to.match(/^\/\/ /);
    }
  });

  // Branches take numbers from their own ranges, so numbers may skip but never repeat.
  it('numbers migrations in order, each with an up and a down section', () => {
    const names = fs.readdirSync('migrations').filter((n) => n.endsWith('.sql'));
    const numbers = names.map((n) => Number(n.slice(0, 4)));
    expect(new Set(numbers).size, 'each number once').to.equal(names.length);
    expect(numbers[0]).to.equal(1);
    names.forEach((name) => {
      expect(name, 'numbered 0001_…').to.match(/^\d{4}_[a-z0-9-]+\.sql$/);
      const text = fs.readFileSync(path.join('migrations', name), 'utf8');
      expect(text).to.match(/-- Up Migration/);
      expect(text).to.match(/-- Down Migration/);
    });
  });
});
