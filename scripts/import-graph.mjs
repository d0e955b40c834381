// Measures the import graph of src/, so a reshaping's before and after can be compared by anyone:
//   node scripts/import-graph.mjs [--json] [--check] [--root src]
// files, lines: the .ts files under the root (generated code and .d.ts left out) and their lines.
// folders: directories that directly hold one of them; loose files: those directly in the root.
// cycles: sets of files that import each other in a loop (strongly connected components of the
//   file graph with more than one file, or a file importing itself). Type-only imports count.
// levels: with each cycle taken as one node, a file importing nothing is level 1, any other is
//   1 + the highest level it imports; levels is the highest.
// rooms: a top-level folder of the root, or a loose file. Rooms are stacked so that as few file
//   imports as possible point up (Eades, Lin and Smyth's greedy order on the room graph, weighted
//   by file imports): upward imports are the file imports from a room to one stacked above it,
//   the imports that point from a lower layer back up. floors: room levels once those are set aside.
// --check exits 1 when there is a file cycle or a room cycle. Only node: built-ins.
import fs from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const root = path.resolve(args.includes('--root') ? args[args.indexOf('--root') + 1] : 'src');
const rel = (f) => path.relative(process.cwd(), f);

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' || e.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

// Comments go first (a URL's `//` inside a string is kept: only a `//` after whitespace or at the
// start of a line starts a comment), then every static, type-only, re-export and dynamic import.
function specifiers(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1');
  const found = [];
  for (const m of code.matchAll(/\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g)) found.push(m[1]);
  for (const m of code.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]);
  return found.filter((s) => s.startsWith('.'));
}

function resolve(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  const stem = base.replace(/\.(js|mjs|cjs)$/, '');
  for (const c of [`${stem}.ts`, `${stem}.tsx`, base, path.join(base, 'index.ts')])
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  return undefined;
}

// Tarjan's strongly connected components, iteratively.
function components(nodes, edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const out = [];
  for (const start of nodes) {
    if (idx.has(start)) continue;
    const work = [[start, 0]];
    idx.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, i] = frame;
      const next = [...(edges.get(v) ?? [])];
      if (i < next.length) {
        frame[1] += 1;
        const w = next[i];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const u = work[work.length - 1][0];
        low.set(u, Math.min(low.get(u), low.get(v)));
      }
      if (low.get(v) === idx.get(v)) {
        const comp = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        out.push(comp);
      }
    }
  }
  return out;
}

// Level of each node: SCCs condensed; 1 + the highest level of what a component imports.
function levelsOf(nodes, edges) {
  const comps = components(nodes, edges);
  const compOf = new Map();
  comps.forEach((c, i) => c.forEach((n) => compOf.set(n, i)));
  const level = new Map();
  // Tarjan emits components in reverse topological order: dependencies first.
  comps.forEach((c, i) => {
    let lv = 1;
    for (const n of c) for (const w of edges.get(n) ?? []) if (compOf.get(w) !== i) lv = Math.max(lv, level.get(compOf.get(w)) + 1);
    level.set(i, lv);
  });
  return { comps, of: (n) => level.get(compOf.get(n)) };
}

const files = sourceFiles(root);
const counted = new Set(files);
const edges = new Map();
let lines = 0;
let unresolved = 0;
for (const f of files) {
  const text = fs.readFileSync(f, 'utf8');
  lines += text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const targets = new Set();
  for (const spec of specifiers(text)) {
    const target = resolve(f, spec);
    // An import of generated code is left out with it: it is no node of the graph.
    if (target && counted.has(target)) targets.add(target);
    else if (!target || !target.startsWith(root + path.sep)) unresolved += 1;
  }
  edges.set(f, targets);
}
const fileLevels = levelsOf(files, edges);
const cycles = fileLevels.comps.filter((c) => c.length > 1 || edges.get(c[0]).has(c[0])).map((c) => c.map(rel).sort());

const roomOf = (f) => path.relative(root, f).split(path.sep)[0];
const rooms = [...new Set(files.map(roomOf))];
const roomEdges = new Map(rooms.map((r) => [r, new Set()]));
for (const [f, targets] of edges) for (const t of targets) if (roomOf(t) !== roomOf(f)) roomEdges.get(roomOf(f)).add(roomOf(t));
const roomCycles = components(rooms, roomEdges)
  .filter((c) => c.length > 1)
  .map((c) => c.sort());
const weight = new Map();
for (const [f, targets] of edges)
  for (const t of targets) {
    if (roomOf(t) === roomOf(f)) continue;
    const key = `${roomOf(f)}\0${roomOf(t)}`;
    weight.set(key, (weight.get(key) ?? 0) + 1);
  }
const position = stackRooms(rooms, weight);
const upward = [];
for (const [f, targets] of edges)
  for (const t of targets) {
    if (roomOf(t) !== roomOf(f) && position.get(roomOf(t)) < position.get(roomOf(f))) upward.push({ from: rel(f), to: rel(t) });
  }
// The room graph without its upward imports is a DAG: its levels are the floors.
const downEdges = new Map(rooms.map((r) => [r, new Set([...roomEdges.get(r)].filter((t) => position.get(t) > position.get(r)))]));
const floors = levelsOf(rooms, downEdges);

// Greedy feedback-arc-set order: importers first (position 0 is the top), imported last. Sinks go
// to the bottom, sources to the top, otherwise the room whose outgoing weight most exceeds its
// incoming weight goes to the top. Returns each room's position, top to bottom.
function stackRooms(nodes, w) {
  const left = new Set(nodes);
  const top = [];
  const bottom = [];
  const out = (n) => [...left].reduce((s, m) => s + (m !== n ? (w.get(`${n}\0${m}`) ?? 0) : 0), 0);
  const inn = (n) => [...left].reduce((s, m) => s + (m !== n ? (w.get(`${m}\0${n}`) ?? 0) : 0), 0);
  while (left.size) {
    let changed = true;
    while (changed) {
      changed = false;
      for (const n of [...left].sort())
        if (out(n) === 0) {
          bottom.unshift(n);
          left.delete(n);
          changed = true;
        }
      for (const n of [...left].sort())
        if (left.has(n) && inn(n) === 0) {
          top.push(n);
          left.delete(n);
          changed = true;
        }
    }
    if (!left.size) break;
    const best = [...left].sort().reduce((a, b) => (out(b) - inn(b) > out(a) - inn(a) ? b : a));
    top.push(best);
    left.delete(best);
  }
  return new Map([...top, ...bottom].map((n, i) => [n, i]));
}

const report = {
  root: rel(root) || '.',
  files: files.length,
  lines,
  folders: new Set(files.map((f) => path.dirname(f))).size,
  loose_files: files.filter((f) => path.dirname(f) === root).length,
  levels: Math.max(0, ...files.map(fileLevels.of)),
  cycles,
  cycle_count: cycles.length,
  rooms: rooms.length,
  floors: Math.max(0, ...rooms.map(floors.of)),
  room_cycles: roomCycles,
  upward_imports: upward,
  upward_import_count: upward.length,
  unresolved,
};

if (args.includes('--json')) process.stdout.write(`${JSON.stringify(report)}\n`);
else {
  const out = [
    `${report.root}: ${report.files} files, ${report.lines} lines, ${report.folders} folders (${report.loose_files} loose files), ${report.rooms} rooms on ${report.floors} floors`,
    `levels of imports: ${report.levels}; import cycles: ${report.cycle_count}; room cycles: ${roomCycles.length}; imports that point back up: ${report.upward_import_count}`,
    ...cycles.map((c) => `cycle: ${c.join(' <-> ')}`),
    ...roomCycles.map((c) => `room cycle: ${c.join(', ')}`),
    ...upward.map((u) => `up: ${u.from} -> ${u.to}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}
if (args.includes('--check') && (report.cycle_count > 0 || roomCycles.length > 0)) process.exitCode = 1;
