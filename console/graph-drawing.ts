// Draws nodes and edges with cytoscape (MIT), loaded only on the pages that draw (its own chunk).
// Labels are painted on a canvas, never parsed as markup. The layout is seeded: each node starts
// where its id puts it and the force layout draws its random numbers from a generator seeded by
// the drawing, so the same cluster is drawn the same way on every load.
import type { Core, ElementDefinition, NodeSingular } from 'cytoscape';

export interface DrawNode {
  id: string;
  label: string;
  // account | email | device | card | identifier | hub | event | node
  group: string;
  facts: Record<string, unknown>;
  // An event's verdict (its square's colour); marks the picture highlights.
  verdict?: string;
  classes?: string[];
}

export interface DrawEdge {
  from: string;
  to: string;
  type: string;
}

const COLORS: Record<string, string> = {
  account: '#2457c5',
  email: '#1a7f4b',
  device: '#b35c00',
  card: '#7a3db8',
  identifier: '#5b6570',
  hub: '#c62828',
  event: '#8a8f98',
  node: '#2457c5',
};

const VERDICT_COLORS: Record<string, string> = { allow: '#1a7f4b', review: '#b35c00', block: '#c62828' };

// Emails are drawn whole (as on the event page); other long values are cut.
const shorten = (s: string, group: string) => (group === 'email' || s.length <= 28 ? s : `${s.slice(0, 26)}…`);

// FNV-1a of a string: the seed of a node's first position and of the layout's random numbers.
const hash = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

// mulberry32: a small seeded generator, enough for a layout's jitter.
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};

const startAt = (id: string) => {
  const h = hash(id);
  const angle = ((h % 3600) / 3600) * 2 * Math.PI;
  const r = 80 + ((h >>> 12) % 400);
  return { x: Math.round(Math.cos(angle) * r), y: Math.round(Math.sin(angle) * r) };
};

export function elements(nodes: DrawNode[], edges: DrawEdge[]): ElementDefinition[] {
  const ids = new Set(nodes.map((n) => n.id));
  return [
    ...nodes.map((n) => ({
      group: 'nodes' as const,
      position: startAt(n.id),
      classes: n.classes ?? [],
      data: {
        id: n.id,
        label: shorten(n.label, n.group),
        kind: n.group,
        color: (n.verdict && VERDICT_COLORS[n.verdict]) ?? COLORS[n.group] ?? COLORS.node,
      },
    })),
    ...edges
      .filter((e) => ids.has(e.from) && ids.has(e.to))
      .map((e) => ({ group: 'edges' as const, data: { id: `${e.from}->${e.to}:${e.type}`, source: e.from, target: e.to, type: e.type } })),
  ];
}

export async function draw(container: HTMLElement, els: ElementDefinition[], onSelect: (id: string | null) => void): Promise<Core> {
  const { default: cytoscape } = await import('cytoscape');
  const cy = cytoscape({
    container,
    elements: els,
    style: [
      {
        selector: 'node',
        style: {
          'background-color': 'data(color)',
          label: 'data(label)',
          'font-size': 10,
          'font-family': 'system-ui, sans-serif',
          color: '#1d2330',
          'text-valign': 'bottom',
          'text-margin-y': 3,
          width: 22,
          height: 22,
        },
      },
      { selector: 'node[kind = "event"]', style: { shape: 'round-rectangle', width: 12, height: 12, 'font-size': 8, color: '#5b6570' } },
      { selector: 'node[kind = "hub"]', style: { shape: 'diamond', width: 30, height: 30, 'border-width': 3, 'border-color': '#7f1010' } },
      { selector: 'node[kind = "account"]', style: { width: 28, height: 28 } },
      { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#f5b700' } },
      {
        selector: 'edge',
        style: {
          width: 1.2,
          'line-color': '#b8bec8',
          'curve-style': 'bezier',
          'target-arrow-shape': 'triangle',
          'target-arrow-color': '#b8bec8',
          'arrow-scale': 0.6,
        },
      },
      { selector: 'edge[type = "LINKED"]', style: { width: 2, 'line-color': '#7d8796', 'target-arrow-color': '#7d8796' } },
      // The evidence: the path from the event to a marked subject ("why is this account here?").
      { selector: 'node.evidence', style: { 'border-width': 4, 'border-color': '#e65100' } },
      { selector: 'edge.evidence', style: { width: 4, 'line-color': '#e65100', 'target-arrow-color': '#e65100' } },
      // The event the picture was opened from, and the subject a mark convicted.
      {
        selector: 'node.origin',
        style: {
          'border-width': 5,
          'border-color': '#2457c5',
          'border-style': 'double',
          width: 20,
          height: 20,
          'font-weight': 'bold',
          color: '#1d2330',
        },
      },
      { selector: 'node.origin[kind = "account"]', style: { width: 28, height: 28 } },
      {
        selector: 'node.subject',
        style: { 'border-width': 5, 'border-color': '#c62828', 'border-style': 'double', 'font-weight': 'bold' },
      },
      { selector: 'node.hidden-event, edge.hidden-event', style: { display: 'none' } },
    ],
    layout: { name: 'preset' },
  });
  relayout(cy);
  // A window made narrower (or wider) draws the whole picture again in its new size.
  const resized = new ResizeObserver(() => {
    cy.resize();
    cy.fit(undefined, 20);
  });
  resized.observe(container);
  cy.on('destroy', () => resized.disconnect());
  // Kept on its container, so the browser's devtools (and the browser tests) can reach the graph.
  (container as HTMLElement & { cy?: Core }).cy = cy;
  cy.on('tap', 'node', (e) => onSelect(e.target.id()));
  cy.on('tap', (e) => {
    if (e.target === cy) onSelect(null);
  });
  return cy;
}

// Marks the nodes of a path, and the LINKED edges between consecutive ones, as evidence.
export function highlightPath(cy: Core, path: string[]): void {
  path.forEach((id, i) => {
    cy.getElementById(id).addClass('evidence');
    const next = path[i + 1];
    if (next)
      cy.edges(`[type = "LINKED"]`)
        .filter((e) => (e.source().id() === id && e.target().id() === next) || (e.source().id() === next && e.target().id() === id))
        .addClass('evidence');
  });
}

// The force layout from the seeded start, with Math.random seeded for its run (synchronous:
// animate is off), then restored.
export function relayout(cy: Core): void {
  const random = Math.random;
  Math.random = seeded(
    hash(
      cy
        .nodes()
        .map((n) => n.id())
        .sort()
        .join('|'),
    ),
  );
  try {
    cy.nodes().forEach((n) => {
      n.position(startAt(n.id()));
    });
    cy.layout({
      name: 'cose',
      animate: false,
      randomize: false,
      nodeDimensionsIncludeLabels: true,
      nodeRepulsion: () => 9000,
      idealEdgeLength: () => 60,
      padding: 20,
    }).run();
  } finally {
    Math.random = random;
  }
  separateLabels(cy);
  cy.fit(undefined, 20);
}

// The force layout keeps nodes apart, not their labels: nodes whose boxes (the node with its
// label) overlap are pushed apart along the shorter way out, round after round, until no two drawn
// boxes overlap (or, unsettled after `rounds`, stacked apart downwards). Deterministic (no randomness), so the same picture comes out on every load.
// Hidden nodes (events, when hidden) have no box and are left where they are.
export function separateLabels(cy: Core, rounds = 100, gap = 3): void {
  // The style of events just shown or hidden is applied first (cytoscape applies it lazily), so
  // their boxes are measured as drawn.
  cy.style().update();
  const nodes: NodeSingular[] = cy
    .nodes()
    .filter((n) => !n.hasClass('hidden-event'))
    .toArray() as NodeSingular[];
  for (let round = 0; round < rounds; round++) {
    const boxes = nodes.map((n) => ({ n, b: n.boundingBox({ includeLabels: true, includeNodes: true, includeEdges: false }) }));
    let moved = false;
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i]!;
        const b = boxes[j]!;
        const dx = Math.min(a.b.x2, b.b.x2) - Math.max(a.b.x1, b.b.x1) + gap;
        const dy = Math.min(a.b.y2, b.b.y2) - Math.max(a.b.y1, b.b.y1) + gap;
        if (dx <= 0 || dy <= 0) continue;
        moved = true;
        const pa = a.n.position();
        const pb = b.n.position();
        // Apart along the axis that frees them with the smaller move, each half of it; a tie in
        // position is broken by the nodes' order.
        if (dx < dy) {
          const sign = pa.x < pb.x || (pa.x === pb.x && i < j) ? -1 : 1;
          a.n.position({ x: pa.x + (sign * dx) / 2, y: pa.y });
          b.n.position({ x: pb.x - (sign * dx) / 2, y: pb.y });
        } else {
          const sign = pa.y < pb.y || (pa.y === pb.y && i < j) ? -1 : 1;
          a.n.position({ x: pa.x, y: pa.y + (sign * dy) / 2 });
          b.n.position({ x: pb.x, y: pb.y - (sign * dy) / 2 });
        }
        a.b = a.n.boundingBox({ includeLabels: true, includeNodes: true, includeEdges: false });
        b.b = b.n.boundingBox({ includeLabels: true, includeNodes: true, includeEdges: false });
      }
    if (!moved) return;
  }
  // Not settled in as many rounds (a crowd around one node): each box, top to bottom, moves down
  // below every earlier box it still overlaps. Boxes only move down, so this ends, with none over
  // another.
  const box = (n: NodeSingular) => n.boundingBox({ includeLabels: true, includeNodes: true, includeEdges: false });
  const order = [...nodes].sort((a, b) => box(a).y1 - box(b).y1 || a.id().localeCompare(b.id()));
  const placed: NodeSingular[] = [];
  for (const n of order) {
    for (let clash = true; clash; ) {
      clash = false;
      const b = box(n);
      for (const p of placed) {
        const o = box(p);
        if (Math.min(b.x2, o.x2) - Math.max(b.x1, o.x1) + gap > 0 && Math.min(b.y2, o.y2) - Math.max(b.y1, o.y1) + gap > 0) {
          n.position({ x: n.position().x, y: n.position().y + (o.y2 - b.y1) + gap });
          clash = true;
        }
      }
    }
    placed.push(n);
  }
}

// Events hidden or shown (their squares and edges), to read the identifiers alone.
// Shown again, they are moved clear of the labels around them.
export function hideEvents(cy: Core, hidden: boolean): void {
  const events = cy.nodes('[kind = "event"]');
  events.union(events.connectedEdges()).toggleClass('hidden-event', hidden);
  if (!hidden) {
    separateLabels(cy);
    cy.fit(undefined, 20);
  }
}
