// One event as an analyst reads it: what was judged and why (each reason in words, the cluster's
// marks with who reported them, the path, the payment), its review with the consequence of each
// key stated before it acts, undo of a resolution's marks, feedback with a note, the account's
// earlier events and the cluster summary; the review's part is review-actions.tsx, feedback's is
// event-feedback.tsx. Every value from an event is rendered as text (never as markup).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { ageSince, money, plural, scalar, when } from './format';
import { reasonWords } from './reason-words';
import { accountHref } from './links';
import { FeedbackSection } from './event-feedback';
import { ReviewActions, useResolution, type ResolvedNotice, type Resolver } from './review-actions';
import { ClusterMarks } from './why-marks';
import type { EventDetail, EventRow, Evidence, Me } from './types';

// The account's link lives with the console's other links; kept here too for the pages that import it from here.
export { accountHref };

export function Reasons({ reasons }: { reasons: EventRow['reasons'] }) {
  if (reasons.length === 0) return <span class="muted">no reasons</span>;
  return (
    <ul class="reasons">
      {reasons.map((r) => (
        <li>
          <code>{r.code}</code> <span class="words">{reasonWords(r)}</span>
        </li>
      ))}
    </ul>
  );
}

export const Verdict = ({ v }: { v: string }) => <span class={`verdict v-${v}`}>{v}</span>;

// Nested data (signals, context, identity) as a definition list of text. With `amounts` (the
// signals, whose payment is the contract's), a payment's amount reads in its currency's units.
export function Tree({ value, name, amounts }: { value: unknown; name?: string; amounts?: boolean }) {
  if (value === null || typeof value !== 'object') return <span class="val">{scalar(value)}</span>;
  const record = value as Record<string, unknown>;
  const entries = Object.entries(record);
  if (entries.length === 0) return <span class="muted">empty</span>;
  return (
    <dl class="tree">
      {entries.map(([k, v]) => [
        <dt>{k}</dt>,
        <dd>
          {amounts && name === 'payment' && k === 'amount' ? (
            <span class="val amount">{money(v, record.currency)}</span>
          ) : (
            <Tree value={v} name={k} amounts={amounts} />
          )}
        </dd>,
      ])}
    </dl>
  );
}

// Short values (type, verdict, account) keep one line; the reason codes wrap between codes and take
// what width is left (the email does, when no event on the page has a reason); a long address or
// account id is cut short, whole in its title.
export function EventTable({ events, empty }: { events: EventRow[]; empty: string }) {
  if (events.length === 0) return <p class="empty">{empty}</p>;
  return (
    <table class={`rows events${events.some((e) => e.reasons.length > 0) ? '' : ' no-reasons'}`}>
      <thead>
        <tr>
          <th class="time">Time (UTC)</th>
          <th>Type</th>
          <th>Verdict</th>
          <th>Reasons</th>
          <th>User</th>
          <th>Email</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr data-event-id={e.id}>
            <td class="time">
              <a href={`/console/events/${encodeURIComponent(e.id)}`}>{when(e.created_at).replace(' UTC', '')}</a>
            </td>
            <td class="type">{e.event_type}</td>
            <td class="verdict-cell">
              <Verdict v={e.verdict} />
              {e.review && <span class="muted"> {e.review.status}</span>}
            </td>
            <td class="codes">{e.reasons.length === 0 ? <span class="muted">–</span> : e.reasons.map((r) => r.code).join(', ')}</td>
            <td class="user">
              {e.external_user_id ? (
                <a class="cut" href={accountHref(e.external_user_id)} title={e.external_user_id}>
                  {e.external_user_id}
                </a>
              ) : (
                '–'
              )}
            </td>
            <td class="email">
              <span class="cut" title={e.email}>
                {e.email ?? '–'}
              </span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function EventView({
  id,
  onResolved,
  bind,
  me,
}: {
  id: string;
  onResolved?: (n: ResolvedNotice) => void;
  bind?: (r: Resolver | null) => void;
  me?: Me | null;
}) {
  const [detail, setDetail] = useState<EventDetail | null>(null);
  const [error, setError] = useState('');
  // The event this view shows now. An answer for another one (a reload after resolving, which
  // arrives once the queue has moved on to the next review) is dropped, never shown in its place.
  const shown = useRef(id);
  shown.current = id;
  const load = (of: string) =>
    api<EventDetail>(`/events/${encodeURIComponent(of)}`).then(
      (d) => {
        if (shown.current === of) setDetail(d);
      },
      (e: ApiError) => {
        if (shown.current === of) setError(e.message);
      },
    );
  const resolving = useResolution(id, detail, shown, load, setError, onResolved);
  useEffect(() => {
    setDetail(null);
    setError('');
    resolving.reset();
    void load(id);
  }, [id]);
  useLayoutEffect(() => {
    bind?.({
      resolve: (r) => void resolving.resolve(r),
      cancel: () => {
        if (!resolving.asking) return false;
        resolving.setAsking(null);
        return true;
      },
      focusNote: () => resolving.noteRef.current?.focus(),
    });
    return () => bind?.(null);
  });
  if (error && !detail)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!detail || detail.event.id !== id) return <p class="loading">Loading {id}…</p>;
  const e = detail.event;
  return (
    <article class="event" data-event-id={e.id}>
      <header>
        <h2>
          <Verdict v={e.verdict} /> {e.event_type} <span class="muted">{ageSince(e.created_at)} ago</span>
        </h2>
        <p class="ids">
          <code>{e.id}</code> · {when(e.created_at)} · policy {e.policy_version}
        </p>
      </header>
      {detail.review && <ReviewActions detail={detail} resolving={resolving} error={error} me={me} onChanged={() => void load(id)} />}
      <WhyPanel detail={detail} me={me} />
      <EventFacts event={e} />
      <FeedbackSection event={e} />
      <section>
        <h3>Identity cluster</h3>
        <ClusterSummary cluster={detail.cluster} eventId={e.id} />
      </section>
      <EarlierEvents earlier={detail.earlier} />
      <section>
        <h3>Signals the engine saw</h3>
        <div class="signals">
          <Tree value={detail.signals} amounts />
        </div>
      </section>
    </article>
  );
}

// Who and where: the account, the email, the ip, the identity and the context as received.
function EventFacts({ event: e }: { event: EventDetail['event'] }) {
  return (
    <dl class="facts">
      <dt>External user id</dt>
      <dd class="external-user-id">{e.external_user_id ? <a href={accountHref(e.external_user_id)}>{e.external_user_id}</a> : '–'}</dd>
      <dt>Email</dt>
      <dd class="email">{e.email ?? '–'}</dd>
      <dt>IP</dt>
      <dd>{e.ip ?? '–'}</dd>
      {Object.keys(e.identity).length > 0 && [
        <dt>Identity</dt>,
        <dd class="identity">
          <Tree value={e.identity} />
        </dd>,
      ]}
      {e.context && [
        <dt>Context</dt>,
        <dd class="context">
          <Tree value={e.context} />
        </dd>,
      ]}
    </dl>
  );
}

// The account's earlier events (by its external user id, or else its email).
function EarlierEvents({ earlier }: { earlier: EventDetail['earlier'] }) {
  return (
    <section>
      <h3>
        Earlier events{' '}
        {earlier.by && <span class="muted">(same {earlier.by === 'email' ? 'email' : 'external user id'}, before this one)</span>}
      </h3>
      <EventTable
        events={earlier.events}
        empty={earlier.by ? 'No earlier events for this account.' : 'The event names no account or email, so there is nothing to look up.'}
      />
    </section>
  );
}

const CLUSTER_CODES = new Set([
  'cluster_confirmed_abuse',
  'hub_confirmed_abuse',
  'cluster_chargeback',
  'cluster_trusted',
  'identity_cluster',
]);

// "Why was this decided?": each reason in words with its numbers; for the cluster's reasons, the
// marks on it (subject, outcome, when, who reported it and their note, and the path to it, drawn
// in the cluster picture); the payment.
function WhyPanel({ detail, me }: { detail: EventDetail; me?: Me | null }) {
  const e = detail.event;
  const [evidence, setEvidence] = useState<Evidence | null | 'unavailable'>(null);
  const clusterReason = e.reasons.some((r) => CLUSTER_CODES.has(r.code));
  const load = () => api<Evidence>(`/events/${encodeURIComponent(e.id)}/evidence`).then(setEvidence, () => setEvidence('unavailable'));
  useEffect(() => {
    if (clusterReason) void load();
  }, [e.id]);
  const payment = e.payment as Record<string, unknown> | null;
  return (
    <section class="why">
      <h3>Why {e.verdict === 'allow' ? 'allowed' : e.verdict === 'block' ? 'blocked' : 'held for review'}</h3>
      {e.reasons.length === 0 ? <p class="muted">No rule fired: the policy allows by default.</p> : <Reasons reasons={e.reasons} />}
      {clusterReason &&
        (evidence === 'unavailable' ? (
          <p class="error">The identity graph did not answer for the cluster's marks.</p>
        ) : (
          evidence && (
            <ClusterMarks eventId={e.id} evidence={evidence} behind={markTimes(e.reasons)} me={me} onChanged={() => void load()} />
          )
        ))}
      {payment && <Payment payment={payment} />}
    </section>
  );
}

// The times of the marks the verdict's cluster reasons name (their detail's marked_at): the marks
// behind this verdict, which the panel lists first.
const markTimes = (reasons: EventRow['reasons']): Set<number> =>
  new Set(
    reasons.flatMap((r) => {
      const at = r.detail?.marked_at;
      return CLUSTER_CODES.has(r.code) && typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? [Date.parse(at)] : [];
    }),
  );

// The payment as the event carried it, its amount in the currency's units; the card's fingerprint
// leads to its events.
function Payment({ payment }: { payment: Record<string, unknown> }) {
  return (
    <div class="payment">
      <h4>Payment</h4>
      <dl class="facts">
        {Object.entries(payment).map(([k, v]) => [
          <dt>{k.replace(/_/g, ' ')}</dt>,
          <dd class={k === 'amount' ? 'amount' : undefined}>
            {k === 'card_fingerprint' ? (
              <a href={`/console/events?card=${encodeURIComponent(String(v))}`}>{scalar(v)}</a>
            ) : k === 'amount' ? (
              money(v, payment.currency)
            ) : (
              scalar(v)
            )}
          </dd>,
        ])}
      </dl>
    </div>
  );
}

function ClusterSummary({ cluster, eventId }: { cluster: EventDetail['cluster']; eventId: string }) {
  if (cluster === 'unavailable') return <p class="error">The identity graph did not answer; the rest of this page is complete.</p>;
  if (!cluster)
    return <p class="empty">This event linked nothing yet (no account and no identifier, or its link is still being applied).</p>;
  return (
    <div class="cluster-summary">
      <p>
        <strong>{plural(cluster.accounts, 'account')}</strong>, {plural(cluster.size, 'member')}
        {cluster.confirmedAbuse && <span class="flag bad">confirmed abuse</span>}
        {cluster.chargebacks > 0 && <span class="flag bad">{plural(cluster.chargebacks, 'chargeback')}</span>}
        {cluster.falsePositive && <span class="flag good">false positive reported</span>}
      </p>
      {cluster.suppressed.length > 0 && <p class="muted">Suppressed codes: {cluster.suppressed.join(', ')}</p>}
      <a href={`/console/events/${encodeURIComponent(eventId)}/cluster`} class="button">
        Open the cluster picture
      </a>
    </div>
  );
}
