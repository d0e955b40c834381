// The cluster picture: an event's, an account's or a cluster's identity cluster drawn as a graph
// (accounts, identifiers by kind, events in their verdict's colour; hubs shown as hubs and not
// expanded), a page of members at a time with "draw more", laid out the same way on every load.
// The event it was opened from and the subject a mark convicted are highlighted, with the path
// between them; events can be hidden; a cluster whose accounts are joined only through a hub (or
// an identifier that no longer links) says so. A click on a node shows its facts and where it leads.
import type { Core } from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { plural, scalar, useTitle, when } from './format';
import { draw, elements, hideEvents, highlightPath, relayout, type DrawEdge, type DrawNode } from './graph-drawing';
import { navigate } from './router';
import { HubDetails } from './hub-accounts';
import type { ClusterId, ClusterPicture, Evidence, PictureNode } from './types';

const groupOf = (n: PictureNode) =>
  n.label === 'account' ? 'account' : n.hub ? 'hub' : ['email', 'device', 'card'].includes(n.kind) ? n.kind : 'identifier';

// An email is shown as received (the event page's form) when a drawn event carried it.
const nodeLabel = (n: PictureNode) => {
  if (n.label === 'account') return n.value;
  const shown = n.kind === 'email' && n.received?.length ? n.received[0]! : n.value;
  return n.hub ? `hub ${n.kind}: ${shown}` : `${n.kind}: ${shown}`;
};

function toDraw(p: ClusterPicture, origin?: string): { nodes: DrawNode[]; edges: DrawEdge[] } {
  return {
    nodes: [
      ...p.nodes.map((n) => ({
        id: n.key,
        label: nodeLabel(n),
        group: groupOf(n),
        facts: { ...n, ...(n.kind === 'email' && { normalised: n.value }) },
      })),
      ...p.events.map((e) => ({
        id: e.key,
        label: `${e.type}${e.verdict ? ` · ${e.verdict}` : ''}`,
        group: 'event',
        facts: e,
        verdict: e.verdict ?? undefined,
        classes: e.id === origin ? ['origin'] : [],
      })),
    ],
    edges: p.edges,
  };
}

// The drawn accounts joined only through identifiers that do not link (hubs, or kinds the link
// policy turned off): the groups the accounts fall into without them, and the identifiers that
// hold the groups together. One group: nothing to say.
export function heldByHub(p: ClusterPicture): { groups: number; through: PictureNode[] } {
  const accounts = p.nodes.filter((n) => n.label === 'account').map((n) => n.key);
  const linking = new Set(p.nodes.filter((n) => n.label !== 'account' && !n.hub && n.linking !== false).map((n) => n.key));
  const parent = new Map(accounts.map((a) => [a, a]));
  const find = (a: string): string => (parent.get(a) === a ? a : find(parent.get(a)!));
  const byIdentifier = new Map<string, string[]>();
  for (const e of p.edges.filter((x) => x.type === 'LINKED')) byIdentifier.set(e.to, [...(byIdentifier.get(e.to) ?? []), e.from]);
  for (const [id, accs] of byIdentifier) {
    if (!linking.has(id)) continue;
    for (const a of accs.slice(1)) if (parent.has(a) && parent.has(accs[0]!)) parent.set(find(a), find(accs[0]!));
  }
  const groups = new Set(accounts.map(find)).size;
  const through = p.nodes.filter(
    (n) =>
      n.label !== 'account' &&
      !linking.has(n.key) &&
      new Set((byIdentifier.get(n.key) ?? []).filter((a) => parent.has(a)).map(find)).size > 1,
  );
  return { groups, through };
}

export function ClusterPage({ from }: { from: { cluster?: string; event?: string; account?: string } }) {
  const { clusterId, error, setError } = useClusterId(from);
  useTitle(`Cluster${clusterId ? ` ${clusterId}` : ''}`);
  const evidence = useEvidence(from.event);
  const drawing = useClusterDrawing(clusterId, from.event, evidence, setError);
  if (error)
    return (
      <div class="empty">
        <h1>Cluster picture</h1>
        <p class="error" role="alert">
          {error}
        </p>
      </div>
    );
  const { picture, selected } = drawing;
  const c = picture?.cluster;
  const more = picture ? c!.size - picture.drawnMembers : 0;
  return (
    <div class="cluster-page">
      <header>
        <h1>Cluster {clusterId && <code>{clusterId}</code>}</h1>
        {c && (
          <p>
            {plural(c.accounts, 'account')}, {plural(c.size, 'member')}
            {c.confirmedAbuse && <span class="flag bad">confirmed abuse</span>}
            {c.chargebacks > 0 && <span class="flag bad">{plural(c.chargebacks, 'chargeback')}</span>}
            {c.falsePositive && <span class="flag good">false positive reported</span>}
          </p>
        )}
        {picture && more <= 0 && <HubWarning held={heldByHub(picture)} />}
        <Legend origin={Boolean(from.event)} eventsHidden={drawing.eventsHidden} onHideEvents={drawing.hideEventsNow} />
      </header>
      <div class="cluster-body">
        <div class="graph" ref={drawing.box} aria-label="cluster picture" />
        <aside class="node-facts">
          {selected ? <NodeFacts node={selected} /> : <p class="muted">Click a node for its facts. Drag to move, scroll to zoom.</p>}
          {more > 0 && (
            <p>
              <button type="button" class="more" onClick={() => void drawing.loadPage(picture!.drawnMembers)}>
                Draw {Math.min(200, more)} more members
              </button>
              <br />
              <span class="muted">
                {picture!.drawnMembers} of {c!.size} members drawn.
              </span>
            </p>
          )}
        </aside>
      </div>
      {/* Below the picture: it arrives after the picture and must not move it. */}
      {evidence && evidence.marks.length > 0 && <EvidenceList evidence={evidence} />}
    </div>
  );
}

// The cluster to draw: the one named, or the one of the event or the account it was opened from.
function useClusterId(from: { cluster?: string; event?: string; account?: string }) {
  const [clusterId, setClusterId] = useState(from.cluster);
  const [error, setError] = useState('');
  useEffect(() => {
    if (clusterId) return;
    const path = from.event
      ? `/events/${encodeURIComponent(from.event)}/cluster`
      : `/accounts/${encodeURIComponent(from.account ?? '')}/cluster`;
    api<ClusterId>(path).then(
      (r) => setClusterId(r.cluster_id),
      (e: ApiError) => setError(e.message),
    );
  }, []);
  return { clusterId, error, setError };
}

// The marks on the cluster of the event it was opened from, with their paths.
function useEvidence(event: string | undefined): Evidence | null {
  const [evidence, setEvidence] = useState<Evidence | null>(null);
  useEffect(() => {
    if (event) api<Evidence>(`/events/${encodeURIComponent(event)}/evidence`).then(setEvidence, () => setEvidence(null));
  }, []);
  return evidence;
}

// The path of the first mark (the earliest) drawn as evidence, once its nodes are drawn.
function showPath(cy: Core | null, evidence: Evidence | null): void {
  const path = evidence?.marks.find((m) => m.path)?.path;
  if (cy && path) {
    highlightPath(cy, path);
    // The convicted subject: the path's far end.
    cy.getElementById(path[path.length - 1]!).addClass('subject');
  }
}

// The drawing in `box`, a page of members at a time: the first page draws it, later ones add what
// is new and lay it out again. Hidden events and the evidence's path hold for every page: the path
// is drawn when the evidence arrives after the picture, or a page of the picture after the evidence.
function useClusterDrawing(
  clusterId: string | undefined,
  origin: string | undefined,
  evidence: Evidence | null,
  setError: (message: string) => void,
) {
  const [picture, setPicture] = useState<ClusterPicture | null>(null);
  const [drawn, setDrawn] = useState<Map<string, DrawNode>>(new Map());
  const [selected, setSelected] = useState<DrawNode | null>(null);
  const [eventsHidden, setEventsHidden] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const evidenceRef = useRef<Evidence | null>(null);
  evidenceRef.current = evidence;
  const showEvidence = () => showPath(cy.current, evidenceRef.current);
  useEffect(showEvidence, [evidence]);

  const loadPage = async (skip: number) => {
    try {
      const p = await api<ClusterPicture>(`/clusters/${encodeURIComponent(clusterId!)}?skip=${skip}`);
      const d = toDraw(p, origin);
      setDrawn((old) => new Map([...old, ...d.nodes.map((n) => [n.id, n] as const)]));
      setPicture((old) => (old ? { ...p, drawnMembers: old.drawnMembers + p.drawnMembers } : p));
      if (!cy.current) {
        cy.current = await draw(box.current!, elements(d.nodes, d.edges), (id) =>
          setSelected(id ? (drawnRef.current.get(id) ?? null) : null),
        );
      } else {
        const fresh = elements(d.nodes, d.edges).filter((el) => cy.current!.getElementById(String(el.data.id)).empty());
        cy.current.add(fresh);
        relayout(cy.current);
      }
      hideEvents(cy.current, eventsHiddenRef.current);
      showEvidence();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const drawnRef = useRef(drawn);
  drawnRef.current = drawn;
  const eventsHiddenRef = useRef(eventsHidden);
  eventsHiddenRef.current = eventsHidden;
  useEffect(() => {
    if (clusterId) void loadPage(0);
    return () => cy.current?.destroy();
  }, [clusterId]);
  // At once on the drawing; later pages read the ref.
  const hideEventsNow = (hidden: boolean) => {
    setEventsHidden(hidden);
    if (cy.current) hideEvents(cy.current, hidden);
  };
  return { picture, selected, eventsHidden, box, loadPage, hideEventsNow };
}

// A cluster whose drawn accounts are joined only through a hub (or an identifier that no longer
// links) says so, and what an operator can do.
function HubWarning({ held }: { held: { groups: number; through: PictureNode[] } }) {
  if (held.groups <= 1) return null;
  return (
    <p class="warning hub-warning" role="note">
      Held together by a hub identifier: without{' '}
      {held.through.map((n) => `${n.kind} ${n.value}`).join(', ') || 'identifiers that no longer link'}, these accounts fall into{' '}
      {held.groups} separate groups. Recluster? An operator runs <code>doorman graph recluster</code> for this tenant and mode.
    </p>
  );
}

// What each colour means, and the switch that hides the events.
function Legend({
  origin,
  eventsHidden,
  onHideEvents,
}: {
  origin: boolean;
  eventsHidden: boolean;
  onHideEvents: (hidden: boolean) => void;
}) {
  return (
    <p class="legend">
      <span class="k account">account</span>
      <span class="k email">email</span>
      <span class="k device">device</span>
      <span class="k card">card</span>
      <span class="k identifier">other identifier</span>
      <span class="k hub">hub (not expanded: select it for the accounts behind it)</span>
      <span class="k event">event:</span>
      <span class="k allow">allow</span>
      <span class="k review">review</span>
      <span class="k block">block</span>
      {origin && <span class="k origin">the event opened</span>}
      <span class="k subject">convicted subject</span>
      <label class="check">
        <input type="checkbox" name="hide-events" checked={eventsHidden} onChange={(e) => onHideEvents(e.currentTarget.checked)} /> hide
        events
      </label>
    </p>
  );
}

// "Why is this account here?": every mark on the cluster, the path from the event to its subject,
// and who reported it.
function EvidenceList({ evidence }: { evidence: Evidence }) {
  return (
    <section class="evidence">
      <h2>Why is this account here?</h2>
      <ul>
        {evidence.marks.map((m) => (
          <li>
            {m.outcome} on {m.subject_kind === 'account' ? 'an account' : m.subject_kind}
            {m.subject_value ? ` ${m.subject_value}` : ''}, {when(m.marked_at)},{' '}
            {m.via === null ? 'no live path yet' : m.via.length === 0 ? 'this account itself' : `via ${m.via.join(' → ')}`}
            {m.feedback_id ? (
              <span class="muted"> ({m.feedback_id})</span>
            ) : m.review_event_id ? (
              <span class="muted"> (review of {m.review_event_id})</span>
            ) : null}
            <span class="muted">
              ; by {m.reported_by}
              {m.note ? `: “${m.note}”` : ''}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function NodeFacts({ node }: { node: DrawNode }) {
  const f = node.facts as Record<string, unknown>;
  const rows = Object.entries(f)
    .filter(([k, v]) => !['key', 'label'].includes(k) && v !== null && v !== undefined)
    .map(([k, v]) => [
      k === 'received' ? 'as received' : k,
      /At$|^at$/.test(k) && typeof v === 'number' ? when(v) : Array.isArray(v) ? v.join(', ') : scalar(v),
    ]);
  return (
    <div>
      <h2>{node.group}</h2>
      <dl class="facts">{rows.map(([k, v]) => [<dt>{k}</dt>, <dd>{v}</dd>])}</dl>
      {node.group === 'account' && (
        <p>
          <a href={`/console/accounts/${encodeURIComponent(String(f.value))}`}>Open the account</a> ·{' '}
          <a href={`/console/events?external_user_id=${encodeURIComponent(String(f.value))}`}>its events</a>
        </p>
      )}
      {node.group === 'event' && (
        <p>
          <button type="button" onClick={() => navigate(`/console/events/${encodeURIComponent(String(f.id))}`)}>
            Open this event
          </button>
        </p>
      )}
      {node.group === 'hub' && <HubDetails kind={String(f.kind)} value={String(f.value)} />}
      {(node.group === 'email' || (node.group === 'hub' && f.kind === 'email')) && (
        <p>
          <a href={`/console/events?email=${encodeURIComponent(String(f.value))}`}>Events with this email</a>
        </p>
      )}
    </div>
  );
}
