// Values the console did not shape itself (graph query results, the audit log's detail) shown by
// what they are: a time as a UTC time, a graph node with its kind and a link to its page, ids
// (accounts, events, clusters, cards, devices, emails, identity values) as links, maps as key:
// value pairs. What a value is comes from its shape and the name of its column or key. Everything
// is rendered as text, never as markup.
import type { ComponentChildren } from 'preact';
import { scalar, timeOf, when } from './format';
import {
  accountHref,
  cardHref,
  clusterHref,
  deviceHref,
  emailHref,
  emailIdentifierHref,
  eventHref,
  identifierHref,
  ipHref,
  subjectHref,
} from './links';

// Nodes, relationships and paths as the server sends them (src/graph-queries/read-graph-query.ts).
export type GraphNode = { id: string; labels: string[]; properties: Record<string, unknown> };
export type GraphRel = { id: string; type: string; start: string; end: string };

// Where the values come from: the graph keeps emails normalised; the audit log keeps what the
// analyst or the API gave.
export type Source = 'graph' | 'audit';

// The last name of a column's expression (b.externalId for "b.externalId", firstSeenAt for
// "min(l.firstSeenAt)"), which says what its values are.
const nameOf = (column: string): string => /([A-Za-z_]\w*)\W*$/.exec(column)?.[1] ?? column;

const ACCOUNT = /^(account|accounts|other|others|external_?user_?ids?|externalIds?|users?)$/i;
const EVENT = /^(event|events|event_?ids?)$/i;
const CLUSTER = /^(cluster|clusters|cluster_?ids?)$/i;
const CARD = /^(card|cards|card_?fingerprints?|cardValue)$/i;
const DEVICE = /^(device|devices|device_?ids?)$/i;
const EMAIL = /^(email|emails|address|addresses)$/i;
const IP = /^(ip|ips|ip_?address)$/i;
// A "kind:value" identifier, as the what-links query lists them and the audit log names subjects.
const IDENTIFIERS = /^(identifier|identifiers|subject)$/i;

// The kind a node is: its label, or an identifier's kind (an identity entry's key: phone, wifi…).
export function kindOf(n: GraphNode): string {
  for (const label of ['Account', 'Event', 'Cluster', 'Email', 'Card', 'Device', 'Feedback']) if (n.labels.includes(label)) return label;
  if (n.labels.includes('Identifier') && typeof n.properties.kind === 'string') return n.properties.kind;
  return n.labels[0] ?? 'node';
}

// What a node is called (an account's external id, an identifier's value, an event's or cluster's id).
export const nameOfNode = (n: GraphNode): string => scalar(n.properties.externalId ?? n.properties.value ?? n.properties.id ?? '');

export function nodeHref(n: GraphNode): string | undefined {
  const p = n.properties;
  if (n.labels.includes('Account') && typeof p.externalId === 'string') return accountHref(p.externalId);
  if (n.labels.includes('Event') && typeof p.id === 'string') return eventHref(p.id);
  if (n.labels.includes('Cluster') && typeof p.id === 'string') return clusterHref(p.id);
  if (n.labels.includes('Identifier') && typeof p.kind === 'string' && typeof p.value === 'string') return identifierHref(p.kind, p.value);
  return undefined;
}

export function NodeName({ node }: { node: GraphNode }) {
  const href = nodeHref(node);
  const name = nameOfNode(node);
  return (
    <span class="node-name">
      <span class="kind">{kindOf(node)}</span> {href ? <a href={href}>{name}</a> : name}
      {node.properties.hub === true && <span class="tag"> hub</span>}
    </span>
  );
}

// A text value's link by the name of its column or key (and the row's kind, where the saved
// queries say what a value is: linked-to-email and hubs return kind and value).
function hrefOf(name: string, v: string, source: Source, row: Record<string, unknown>): string | undefined {
  if (name === 'value' && typeof row.kind === 'string') return row.kind === 'account' ? accountHref(v) : identifierHref(row.kind, v);
  if (name === 'value' && row.label === 'Account') return accountHref(v);
  if (ACCOUNT.test(name)) return accountHref(v);
  if (EVENT.test(name)) return eventHref(v);
  if (CLUSTER.test(name)) return clusterHref(v);
  if (CARD.test(name)) return cardHref(v);
  if (DEVICE.test(name)) return deviceHref(v);
  if (EMAIL.test(name)) return source === 'graph' ? emailIdentifierHref(v) : emailHref(v);
  if (IP.test(name)) return ipHref(v);
  // Ids that say what they are, whatever their column is called.
  if (/^evt_[A-Za-z0-9]+$/.test(v)) return eventHref(v);
  if (/^clu_[A-Za-z0-9]+$/.test(v)) return clusterHref(v);
  return undefined;
}

// A "kind:value" string: the kind named, the value linked where it leads somewhere.
function KindValue({ kind, value, source }: { kind: string; value: string; source: Source }) {
  const href = source === 'audit' ? subjectHref(kind, value) : identifierHref(kind, value);
  return (
    <span class="node-name">
      <span class="kind">{kind}</span> {href ? <a href={href}>{value}</a> : value}
    </span>
  );
}

export function TypedValue({
  name,
  value,
  source,
  row = {},
}: {
  name: string;
  value: unknown;
  source: Source;
  row?: Record<string, unknown>;
}): ComponentChildren {
  if (value === null || value === undefined) return '–';
  const key = nameOf(name);
  const at = timeOf(key, value);
  if (at !== undefined) return <time title={String(value)}>{when(at)}</time>;
  if (typeof value === 'string') {
    const kv = IDENTIFIERS.test(key) ? /^([A-Za-z_][\w.]*):(.+)$/s.exec(value) : null;
    if (kv) return <KindValue kind={kv[1]!} value={kv[2]!} source={source} />;
    const href = hrefOf(key, value, source, row);
    return href ? <a href={href}>{value}</a> : value;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return <span class="muted">none</span>;
    return <span class="list">{value.map((v, i) => [i > 0 && ', ', <TypedValue name={name} value={v} source={source} />])}</span>;
  }
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (o.$node) return <NodeName node={o.$node as GraphNode} />;
    if (o.$path) return <PathView path={o.$path as { nodes: { $node: GraphNode }[] }} />;
    if (o.$rel) return <span class="rel">[{(o.$rel as GraphRel).type}]</span>;
    return <Fields value={o} source={source} />;
  }
  return scalar(value);
}

// A path as its nodes in order, each with its kind: account, the identifier they share, account.
function PathView({ path }: { path: { nodes: { $node: GraphNode }[] } }) {
  return <span class="path">{path.nodes.map((n, i) => [i > 0 && <span class="muted"> — </span>, <NodeName node={n.$node} />])}</span>;
}

// A map as key: value pairs, each value typed by its key; nested maps nest.
export function Fields({ value, source }: { value: Record<string, unknown>; source: Source }) {
  const entries = Object.entries(value);
  if (entries.length === 0) return <span class="muted">none</span>;
  return (
    <dl class="fields">
      {entries.map(([k, v]) => [
        <dt>{k}</dt>,
        <dd>
          <TypedValue name={k} value={v} source={source} />
        </dd>,
      ])}
    </dl>
  );
}
