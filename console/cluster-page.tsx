// The cluster picture: an event's, an account's or a cluster's identity cluster drawn as a graph
// (accounts, identifiers by kind, events; hubs shown as hubs and not expanded), a page of members
// at a time with "draw more"; a click on a node shows its facts and opens its account or events.
import type { Core } from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { scalar, when } from './format';
import { draw, elements, highlightPath, relayout, type DrawEdge, type DrawNode } from './graph-drawing';
import { navigate } from './router';
import type { ClusterFacts } from './types';

interface Picture {
  cluster: ClusterFacts;
  nodes: { key: string; label: string; kind: string; value: string; accounts?: number; anonymous?: number; hub: boolean; history?: boolean; firstSeenAt?: number; lastSeenAt?: number }[];
  events: { key: string; id: string; type: string; at: number }[];
  edges: DrawEdge[];
  drawnMembers: number;
  skip: number;
}

// Why the event's cluster is what it is (doorman graph explain): each mark with its path.
interface Evidence {
  marks: { feedback_id: string | null; review_event_id?: string; outcome: string; subject_kind: string; marked_at: string; via: string[] | null; path: string[] | null }[];
}

const groupOf = (n: Picture['nodes'][number]) => (n.label === 'account' ? 'account' : n.hub ? 'hub' : ['email', 'device', 'card'].includes(n.kind) ? n.kind : 'identifier');

function toDraw(p: Picture): { nodes: DrawNode[]; edges: DrawEdge[] } {
  return {
    nodes: [
      ...p.nodes.map((n) => ({ id: n.key, label: n.hub ? `hub ${n.kind}: ${n.value}` : n.label === 'account' ? n.value : `${n.kind}: ${n.value}`, group: groupOf(n), facts: n })),
      ...p.events.map((e) => ({ id: e.key, label: e.type, group: 'event', facts: e })),
    ],
    edges: p.edges,
  };
}

export function ClusterPage({ from }: { from: { cluster?: string; event?: string; account?: string } }) {
  const [clusterId, setClusterId] = useState(from.cluster);
  const [picture, setPicture] = useState<Picture | null>(null);
  const [drawn, setDrawn] = useState<Map<string, DrawNode>>(new Map());
  const [selected, setSelected] = useState<DrawNode | null>(null);
  const [error, setError] = useState('');
  const [evidence, setEvidence] = useState<Evidence | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);

  useEffect(() => {
    if (clusterId) return;
    const path = from.event ? `/events/${encodeURIComponent(from.event)}/cluster` : `/accounts/${encodeURIComponent(from.account ?? '')}/cluster`;
    api<{ cluster_id: string }>(path).then((r) => setClusterId(r.cluster_id), (e: ApiError) => setError(e.message));
  }, []);
  useEffect(() => {
    if (from.event) api<Evidence>(`/events/${encodeURIComponent(from.event)}/evidence`).then(setEvidence, () => setEvidence(null));
  }, []);
  // The path of the first mark (the earliest) is drawn as evidence once its nodes are drawn:
  // when the evidence arrives after the picture, or a page of the picture after the evidence.
  const evidenceRef = useRef<Evidence | null>(null);
  evidenceRef.current = evidence;
  const showEvidence = () => {
    const path = evidenceRef.current?.marks.find((m) => m.path)?.path;
    if (cy.current && path) highlightPath(cy.current, path);
  };
  useEffect(showEvidence, [evidence]);

  const loadPage = async (skip: number) => {
    try {
      const p = await api<Picture>(`/clusters/${encodeURIComponent(clusterId!)}?skip=${skip}`);
      const d = toDraw(p);
      setDrawn((old) => new Map([...old, ...d.nodes.map((n) => [n.id, n] as const)]));
      setPicture((old) => (old ? { ...p, drawnMembers: old.drawnMembers + p.drawnMembers } : p));
      if (!cy.current) {
        cy.current = await draw(box.current!, elements(d.nodes, d.edges), (id) => setSelected(id ? drawnRef.current.get(id) ?? null : null));
      } else {
        const fresh = elements(d.nodes, d.edges).filter((el) => cy.current!.getElementById(String(el.data.id)).empty());
        cy.current.add(fresh);
        relayout(cy.current);
      }
      showEvidence();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const drawnRef = useRef(drawn);
  drawnRef.current = drawn;
  useEffect(() => {
    if (clusterId) void loadPage(0);
    return () => cy.current?.destroy();
  }, [clusterId]);

  if (error) return <div class="empty"><h1>Cluster picture</h1><p class="error" role="alert">{error}</p></div>;
  const c = picture?.cluster;
  const more = picture ? c!.size - picture.drawnMembers : 0;
  return (
    <div class="cluster-page">
      <header>
        <h1>Cluster {clusterId && <code>{clusterId}</code>}</h1>
        {c && (
          <p>{c.accounts} accounts, {c.size} members{c.confirmedAbuse && <span class="flag bad">confirmed abuse</span>}
            {c.chargebacks > 0 && <span class="flag bad">{c.chargebacks} chargebacks</span>}{c.falsePositive && <span class="flag good">false positive reported</span>}</p>
        )}
        <p class="legend"><span class="k account">account</span><span class="k email">email</span><span class="k device">device</span><span class="k card">card</span><span class="k identifier">other identifier</span><span class="k hub">hub (not expanded)</span><span class="k event">event</span></p>
      </header>
      <div class="cluster-body">
        <div class="graph" ref={box} aria-label="cluster picture" />
        <aside class="node-facts">
          {selected ? <NodeFacts node={selected} /> : <p class="muted">Click a node for its facts. Drag to move, scroll to zoom.</p>}
          {more > 0 && <p><button type="button" class="more" onClick={() => void loadPage(picture!.drawnMembers)}>Draw {Math.min(200, more)} more members</button><br /><span class="muted">{picture!.drawnMembers} of {c!.size} members drawn.</span></p>}
        </aside>
      </div>
      {/* Below the picture: it arrives after the picture and must not move it. */}
      {evidence && evidence.marks.length > 0 && (
        <section class="evidence">
          <h2>Why is this account here?</h2>
          <ul>{evidence.marks.map((m) => (
            <li>{m.outcome} on {m.subject_kind === 'account' ? 'an account' : m.subject_kind}, {when(m.marked_at)},{' '}
              {m.via === null ? 'no live path yet' : m.via.length === 0 ? 'this account itself' : `via ${m.via.join(' → ')}`}
              {m.feedback_id ? <span class="muted"> ({m.feedback_id})</span> : m.review_event_id ? <span class="muted"> (review of {m.review_event_id})</span> : null}</li>
          ))}</ul>
        </section>
      )}
    </div>
  );
}

function NodeFacts({ node }: { node: DrawNode }) {
  const f = node.facts as Record<string, unknown>;
  const rows = Object.entries(f).filter(([k, v]) => !['key', 'label'].includes(k) && v !== null && v !== undefined).map(([k, v]) => [k, /At$|^at$/.test(k) && typeof v === 'number' ? when(v) : scalar(v)]);
  return (
    <div>
      <h2>{node.group}</h2>
      <dl class="facts">{rows.map(([k, v]) => [<dt>{k}</dt>, <dd>{v}</dd>])}</dl>
      {node.group === 'account' && <p><a href={`/console/events?external_user_id=${encodeURIComponent(String(f.value))}`}>Events of this account</a></p>}
      {node.group === 'event' && <p><button type="button" onClick={() => navigate(`/console/events/${encodeURIComponent(String(f.id))}`)}>Open this event</button></p>}
      {(node.group === 'email' || (node.group === 'hub' && f.kind === 'email')) && <p><a href={`/console/events?email=${encodeURIComponent(String(f.value))}`}>Events with this email</a></p>}
    </div>
  );
}
