// The cluster picture: an event's, an account's or a cluster's identity cluster drawn as a graph
// (accounts, identifiers by kind, events in their verdict's colour; hubs shown as hubs and not
// expanded), a page of members at a time with "draw more", laid out the same way on every load.
// Every subject a standing mark convicted is outlined, and the evidence path is drawn from the event
// or the account it was opened for; events are hidden at first above 5 accounts, and can be shown
// or hidden; a cluster whose accounts are joined only through a hub (or an identifier that no
// longer links) says so. A click on a node shows its facts and where it leads. Below the picture,
// the ring view lists its accounts and acts on them (ring-members.tsx).
import type { Core } from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { plural, scalar, useTitle, when } from './format';
import { draw, elements, hideEvents, highlightPath, relayout, type DrawEdge, type DrawNode } from './graph-drawing';
import { navigate } from './router';
import { HubDetails } from './hub-accounts';
import { identifierHref } from './links';
import { RingView } from './ring-members';
import { pathWords, RetractedWords } from './why-marks';
import type { ClusterId, ClusterPicture, Evidence, PictureNode } from './types';

const groupOf = (n: PictureNode) =>
  n.label === 'account' ? 'account' : n.hub ? 'hub' : ['email', 'device', 'card'].includes(n.kind) ? n.kind : 'identifier';

// An email is shown as received (the event page's form) when a drawn event carried it.
const nodeLabel = (n: PictureNode) => {
  if (n.label === 'account') return n.value;
  const shown = n.kind === 'email' && n.received?.length ? n.received[0]! : n.value;
  return n.hub ? `hub ${n.kind}: ${shown}` : `${n.kind}: ${shown}`;
};

function toDraw(p: ClusterPicture, from: { event?: string; account?: string }): { nodes: DrawNode[]; edges: DrawEdge[] } {
  return {
    nodes: [
      ...p.nodes.map((n) => ({
        id: n.key,
        label: nodeLabel(n),
        group: groupOf(n),
        facts: { ...n, ...(n.kind === 'email' && { normalised: n.value }) },
        classes: n.label === 'account' && n.value === from.account ? ['origin'] : [],
      })),
      ...p.events.map((e) => ({
        id: e.key,
        label: `${e.type}${e.verdict ? ` · ${e.verdict}` : ''}`,
        group: 'event',
        facts: e,
        verdict: e.verdict ?? undefined,
        classes: e.id === from.event ? ['origin'] : [],
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

// Above this many accounts, the events are hidden until asked for: the identifiers are the ring.
const EVENTS_SHOWN_UP_TO = 5;

export function ClusterPage({ from }: { from: { cluster?: string; event?: string; account?: string } }) {
  const { clusterId, error, setError } = useClusterId(from);
  useTitle(`Cluster${clusterId ? ` ${clusterId}` : ''}`);
  const evidence = useEvidence(from, clusterId);
  const drawing = useClusterDrawing(clusterId, from, evidence, setError);
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
        <Legend
          origin={from.event ? 'event' : from.account ? 'account' : null}
          eventsHidden={drawing.eventsHidden}
          onHideEvents={drawing.hideEventsNow}
        />
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
      {/* Below the picture: they arrive after the picture and must not move it. */}
      {evidence && evidence.marks.length > 0 && <EvidenceList evidence={evidence} />}
      {clusterId && <RingView clusterId={clusterId} self={from.account} />}
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

// The marks on the cluster, with their paths from the event or the account it was opened for (a
// cluster opened by its id has no start: its marks' subjects are outlined, with no path).
function useEvidence(from: { cluster?: string; event?: string; account?: string }, clusterId: string | undefined): Evidence | null {
  const [evidence, setEvidence] = useState<Evidence | null>(null);
  const path = from.event
    ? `/events/${encodeURIComponent(from.event)}/evidence`
    : from.account
      ? `/accounts/${encodeURIComponent(from.account)}/evidence`
      : clusterId
        ? `/clusters/${encodeURIComponent(clusterId)}/evidence`
        : null;
  useEffect(() => {
    if (path) api<Evidence>(path).then(setEvidence, () => setEvidence(null));
  }, [path]);
  return evidence;
}

// The subjects of the marks standing (and the account or identifier a path to each ends at)
// outlined, and the path of the first mark (the earliest) with one drawn as evidence, once their
// nodes are drawn.
function showPath(cy: Core | null, evidence: Evidence | null): void {
  if (!cy || !evidence) return;
  const standing = evidence.marks.filter((m) => !m.retracted);
  for (const m of standing) for (const key of [m.subject_key, m.target_key]) if (key) cy.getElementById(key).addClass('subject');
  const path = standing.find((m) => m.path)?.path;
  if (path) highlightPath(cy, path);
}

// The drawing in `box`, a page of members at a time: the first page draws it, later ones add what
// is new and lay it out again. Hidden events and the evidence's path hold for every page: the path
// is drawn when the evidence arrives after the picture, or a page of the picture after the evidence.
function useClusterDrawing(
  clusterId: string | undefined,
  from: { event?: string; account?: string },
  evidence: Evidence | null,
  setError: (message: string) => void,
) {
  const [picture, setPicture] = useState<ClusterPicture | null>(null);
  const [drawn, setDrawn] = useState<Map<string, DrawNode>>(new Map());
  const [selected, setSelected] = useState<DrawNode | null>(null);
  // Null until the analyst chooses: then hidden above 5 accounts.
  const [eventsChosen, setEventsChosen] = useState<boolean | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const cy = useRef<Core | null>(null);
  const evidenceRef = useRef<Evidence | null>(null);
  evidenceRef.current = evidence;
  const showEvidence = () => showPath(cy.current, evidenceRef.current);
  useEffect(showEvidence, [evidence]);

  const loadPage = async (skip: number) => {
    try {
      const p = await api<ClusterPicture>(`/clusters/${encodeURIComponent(clusterId!)}?skip=${skip}`);
      const d = toDraw(p, from);
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
      hideEvents(cy.current, eventsHiddenRef.current ?? p.cluster.accounts > EVENTS_SHOWN_UP_TO);
      showEvidence();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const drawnRef = useRef(drawn);
  drawnRef.current = drawn;
  const eventsHidden = eventsChosen ?? (picture ? picture.cluster.accounts > EVENTS_SHOWN_UP_TO : false);
  const eventsHiddenRef = useRef(eventsChosen);
  eventsHiddenRef.current = eventsChosen;
  useEffect(() => {
    if (clusterId) void loadPage(0);
    return () => cy.current?.destroy();
  }, [clusterId]);
  // At once on the drawing; later pages read the ref.
  const hideEventsNow = (hidden: boolean) => {
    setEventsChosen(hidden);
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
  origin: 'event' | 'account' | null;
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
      {origin && <span class="k origin">the {origin} opened</span>}
      <span class="k subject">convicted subject</span>
      <span class="k evidence">evidence path</span>
      <label class="check">
        <input type="checkbox" name="hide-events" checked={eventsHidden} onChange={(e) => onHideEvents(e.currentTarget.checked)} /> hide
        events
      </label>
    </p>
  );
}

// "Why is this account here?": every mark on the cluster, the path from the event or account to
// its subject, and who reported it; a mark taken back is struck through, with who, when and why.
function EvidenceList({ evidence }: { evidence: Evidence }) {
  return (
    <section class="evidence">
      <h2>Why is this {evidence.event_id ? 'event' : 'account'} here?</h2>
      <ul>
        {evidence.marks.map((m) => (
          <li class={m.retracted ? 'retracted' : ''}>
            <span class="mark-text">
              {m.outcome.replace('_', ' ')} on{' '}
              {m.review_event_id
                ? `a reviewed event of account ${m.subject_value ?? '–'}`
                : `${m.subject_kind === 'account' ? 'an account' : m.subject_kind}${m.subject_value ? ` ${m.subject_value}` : ''}`}
              , {when(m.marked_at)},{' '}
              {m.via === null ? (evidence.event_id || evidence.account ? 'no live path yet' : 'on this cluster') : pathWords(m)}
            </span>
            {m.feedback_id ? (
              <span class="muted"> ({m.feedback_id})</span>
            ) : m.review_event_id ? (
              <span class="muted"> (review of {m.review_event_id})</span>
            ) : null}
            <span class="muted">
              ; by {m.reported_by}
              {m.note ? `: “${m.note}”` : ''}
            </span>
            {m.retracted && <RetractedWords r={m.retracted} />}
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
      {node.group !== 'account' && node.group !== 'event' && f.kind !== 'email' && (
        <p>
          <a href={identifierHref(String(f.kind), String(f.value))}>
            {f.kind === 'device' ? 'Accounts on this device' : `Events with this ${String(f.kind).replace(/^identity\./, '')}`}
          </a>
        </p>
      )}
    </div>
  );
}
