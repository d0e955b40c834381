// Draws nodes and edges with cytoscape (MIT), loaded only on the pages that draw (its own chunk).
// Labels are painted on a canvas, never parsed as markup.
import type { Core, ElementDefinition } from 'cytoscape';

export interface DrawNode {
  id: string;
  label: string;
  // account | email | device | card | identifier | hub | event | node
  group: string;
  facts: Record<string, unknown>;
}

export interface DrawEdge {
  from: string;
  to: string;
  type: string;
}

const COLORS: Record<string, string> = {
  account: '#2457c5', email: '#1a7f4b', device: '#b35c00', card: '#7a3db8', identifier: '#5b6570', hub: '#c62828', event: '#8a8f98', node: '#2457c5',
};

const shorten = (s: string) => (s.length > 28 ? `${s.slice(0, 26)}…` : s);

export function elements(nodes: DrawNode[], edges: DrawEdge[]): ElementDefinition[] {
  const ids = new Set(nodes.map((n) => n.id));
  return [
    ...nodes.map((n) => ({ group: 'nodes' as const, data: { id: n.id, label: shorten(n.label), kind: n.group, color: COLORS[n.group] ?? COLORS.node } })),
    ...edges.filter((e) => ids.has(e.from) && ids.has(e.to)).map((e) => ({ group: 'edges' as const, data: { id: `${e.from}->${e.to}:${e.type}`, source: e.from, target: e.to, type: e.type } })),
  ];
}

export async function draw(container: HTMLElement, els: ElementDefinition[], onSelect: (id: string | null) => void): Promise<Core> {
  const { default: cytoscape } = await import('cytoscape');
  const cy = cytoscape({
    container,
    elements: els,
    wheelSensitivity: 0.3,
    style: [
      { selector: 'node', style: { 'background-color': 'data(color)', label: 'data(label)', 'font-size': 10, 'font-family': 'system-ui, sans-serif', color: '#1d2330', 'text-valign': 'bottom', 'text-margin-y': 3, width: 22, height: 22 } },
      { selector: 'node[kind = "event"]', style: { shape: 'round-rectangle', width: 12, height: 12, 'font-size': 8, color: '#5b6570' } },
      { selector: 'node[kind = "hub"]', style: { shape: 'diamond', width: 30, height: 30, 'border-width': 3, 'border-color': '#7f1010' } },
      { selector: 'node[kind = "account"]', style: { width: 28, height: 28 } },
      { selector: 'node:selected', style: { 'border-width': 4, 'border-color': '#f5b700' } },
      { selector: 'edge', style: { width: 1.2, 'line-color': '#b8bec8', 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'target-arrow-color': '#b8bec8', 'arrow-scale': 0.6 } },
      { selector: 'edge[type = "LINKED"]', style: { width: 2, 'line-color': '#7d8796', 'target-arrow-color': '#7d8796' } },
      // The evidence: the path from the event to a marked subject ("why is this account here?").
      { selector: 'node.evidence', style: { 'border-width': 4, 'border-color': '#e65100' } },
      { selector: 'edge.evidence', style: { width: 4, 'line-color': '#e65100', 'target-arrow-color': '#e65100' } },
    ],
    layout: { name: 'cose', animate: false, nodeRepulsion: () => 9000, idealEdgeLength: () => 60, padding: 20 },
  });
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
    if (next) cy.edges(`[type = "LINKED"]`).filter((e) => (e.source().id() === id && e.target().id() === next) || (e.source().id() === next && e.target().id() === id)).addClass('evidence');
  });
}

export function relayout(cy: Core): void {
  cy.layout({ name: 'cose', animate: false, nodeRepulsion: () => 9000, idealEdgeLength: () => 60, padding: 20 }).run();
}
