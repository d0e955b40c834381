// One event as an analyst reads it: what was judged, the signals the engine saw, the account's
// earlier events, the cluster summary, and the review and feedback actions. Every value from an
// event is rendered as text (never as markup).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { ageSince, scalar, when } from './format';
import type { EventDetail, EventRow } from './types';

export function Reasons({ reasons }: { reasons: EventRow['reasons'] }) {
  if (reasons.length === 0) return <span class="muted">no reasons</span>;
  return <ul class="reasons">{reasons.map((r) => <li><code>{r.code}</code>{r.detail && <span class="muted"> {Object.entries(r.detail).map(([k, v]) => `${k}=${scalar(v)}`).join(' ')}</span>}</li>)}</ul>;
}

export const Verdict = ({ v }: { v: string }) => <span class={`verdict v-${v}`}>{v}</span>;

// Nested data (signals, context, identity) as a definition list of text.
export function Tree({ value }: { value: unknown }) {
  if (value === null || typeof value !== 'object') return <span class="val">{scalar(value)}</span>;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return <span class="muted">empty</span>;
  return <dl class="tree">{entries.map(([k, v]) => [<dt>{k}</dt>, <dd><Tree value={v} /></dd>])}</dl>;
}

export function EventTable({ events, empty }: { events: EventRow[]; empty: string }) {
  if (events.length === 0) return <p class="empty">{empty}</p>;
  return (
    <table class="rows">
      <thead><tr><th>Time</th><th>Type</th><th>Verdict</th><th>Reasons</th><th>User</th><th>Email</th></tr></thead>
      <tbody>{events.map((e) => (
        <tr>
          <td><a href={`/console/events/${encodeURIComponent(e.id)}`}>{when(e.created_at)}</a></td>
          <td>{e.event_type}</td><td><Verdict v={e.verdict} />{e.review && <span class="muted"> {e.review.status}</span>}</td>
          <td>{e.reasons.map((r) => r.code).join(', ')}</td><td>{e.external_user_id ?? '–'}</td><td>{e.email ?? '–'}</td>
        </tr>
      ))}</tbody>
    </table>
  );
}

export interface Resolver {
  resolve(resolution: 'approved' | 'denied'): void;
  focusNote(): void;
}

export function EventView({ id, onResolved, bind }: { id: string; onResolved?: (message: string) => void; bind?: (r: Resolver | null) => void }) {
  const [detail, setDetail] = useState<EventDetail | null>(null);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  // Read at resolution time: a key pressed right after typing must not see an older note.
  const noteNow = useRef('');
  const [busy, setBusy] = useState(false);
  const noteRef = useRef<HTMLTextAreaElement>(null);
  // The event this view shows now. An answer for another one (a reload after resolving, which
  // arrives once the queue has moved on to the next review) is dropped, never shown in its place.
  const shown = useRef(id);
  shown.current = id;
  const load = (of: string) => api<EventDetail>(`/events/${encodeURIComponent(of)}`).then(
    (d) => { if (shown.current === of) setDetail(d); },
    (e: ApiError) => { if (shown.current === of) setError(e.message); },
  );
  useEffect(() => {
    setDetail(null);
    setBusy(false);
    setError('');
    setNote('');
    noteNow.current = '';
    void load(id);
  }, [id]);
  const resolve = async (resolution: 'approved' | 'denied') => {
    if (busy || detail?.event.id !== id || detail.review?.status !== 'pending') return;
    setBusy(true);
    const text = noteNow.current;
    try {
      const r = await api<{ final_verdict: string; delivery_id: string }>(`/reviews/${encodeURIComponent(id)}/resolve`, { body: { resolution, ...(text && { note: text }) } });
      onResolved?.(`${resolution === 'denied' ? 'Denied' : 'Approved'} ${id}: final verdict ${r.final_verdict}, webhook ${r.delivery_id} queued.`);
    } catch (e) {
      if (shown.current === id) setError((e as Error).message);
    } finally {
      if (shown.current === id) setBusy(false);
    }
    // Shows the resolution where this view still shows the event (its own page); in the queue the
    // next review has taken its place, and the answer is dropped.
    void load(id);
  };
  useLayoutEffect(() => {
    bind?.({ resolve: (r) => void resolve(r), focusNote: () => noteRef.current?.focus() });
    return () => bind?.(null);
  });
  if (error && !detail) return <p class="error" role="alert">{error}</p>;
  if (!detail || detail.event.id !== id) return <p class="loading">Loading {id}…</p>;
  const e = detail.event;
  const pending = detail.review?.status === 'pending';
  return (
    <article class="event" data-event-id={e.id}>
      <header>
        <h2><Verdict v={e.verdict} /> {e.event_type} <span class="muted">{ageSince(e.created_at)} ago</span></h2>
        <p class="ids"><code>{e.id}</code> · {when(e.created_at)} · policy {e.policy_version}</p>
      </header>
      <dl class="facts">
        <dt>External user id</dt><dd class="external-user-id">{e.external_user_id ?? '–'}</dd>
        <dt>Email</dt><dd class="email">{e.email ?? '–'}</dd>
        <dt>IP</dt><dd>{e.ip ?? '–'}</dd>
        <dt>Reasons</dt><dd><Reasons reasons={e.reasons} /></dd>
        {Object.keys(e.identity).length > 0 && [<dt>Identity</dt>, <dd class="identity"><Tree value={e.identity} /></dd>]}
        {e.context && [<dt>Context</dt>, <dd class="context"><Tree value={e.context} /></dd>]}
      </dl>
      {detail.review && (
        <section class="review-actions">
          <h3>Review: {detail.review.status}</h3>
          {pending ? (
            <div>
              <textarea ref={noteRef} name="note" placeholder="Note (why), stored with the resolution (n)" maxLength={2000} value={note} onInput={(ev) => { noteNow.current = ev.currentTarget.value; setNote(noteNow.current); }} />
              <div class="buttons">
                <button type="button" class="approve" disabled={busy} onClick={() => void resolve('approved')}>Approve <kbd>a</kbd></button>
                <button type="button" class="deny" disabled={busy} onClick={() => void resolve('denied')}>Deny <kbd>d</kbd></button>
              </div>
              {error && <p class="error" role="alert">{error}</p>}
            </div>
          ) : (
            <p>By {detail.review.resolved_by} at {when(detail.review.resolved_at)}{detail.review.note && <span>: “{detail.review.note}”</span>}</p>
          )}
        </section>
      )}
      <Feedback event={e} />
      <RecordedFeedback event={e} />
      <section>
        <h3>Identity cluster</h3>
        <ClusterSummary cluster={detail.cluster} eventId={e.id} />
      </section>
      <section>
        <h3>Earlier events {detail.earlier.by && <span class="muted">(same {detail.earlier.by === 'email' ? 'email' : 'external user id'})</span>}</h3>
        <EventTable events={detail.earlier.events} empty={detail.earlier.by ? 'No earlier events for this account.' : 'The event names no account or email, so there is nothing to look up.'} />
      </section>
      <section>
        <h3>Signals the engine saw</h3>
        <div class="signals"><Tree value={detail.signals} /></div>
      </section>
    </article>
  );
}

function ClusterSummary({ cluster, eventId }: { cluster: EventDetail['cluster']; eventId: string }) {
  if (cluster === 'unavailable') return <p class="error">The identity graph did not answer; the rest of this page is complete.</p>;
  if (!cluster) return <p class="empty">This event linked nothing yet (no account and no identifier, or its link is still being applied).</p>;
  return (
    <div class="cluster-summary">
      <p><strong>{cluster.accounts}</strong> accounts, {cluster.size} members
        {cluster.confirmedAbuse && <span class="flag bad">confirmed abuse</span>}
        {cluster.chargebacks > 0 && <span class="flag bad">{cluster.chargebacks} chargebacks</span>}
        {cluster.falsePositive && <span class="flag good">false positive reported</span>}</p>
      {cluster.suppressed.length > 0 && <p class="muted">Suppressed codes: {cluster.suppressed.join(', ')}</p>}
      <a href={`/console/events/${encodeURIComponent(eventId)}/cluster`} class="button">Open the cluster picture</a>
    </div>
  );
}

interface FeedbackEntry {
  feedback_id: string;
  outcome: string;
  subject: { kind: string; value: string };
  note: string | null;
  created_at: string;
  retracted_at: string | null;
  retract_note: string | null;
}

// The feedback recorded about this event and its account, with its marks' state; an admin can take
// a mark back (docs/graph.md, "Undo"): audited, applied by the graph writer in order.
function RecordedFeedback({ event }: { event: EventDetail['event'] }) {
  const [rows, setRows] = useState<FeedbackEntry[] | null>(null);
  const [admin, setAdmin] = useState(false);
  const [notice, setNotice] = useState('');
  const [note, setNote] = useState('');
  const load = () => {
    const asks = [api<{ feedback: FeedbackEntry[] }>(`/feedback?event_id=${encodeURIComponent(event.id)}`)];
    if (event.external_user_id) asks.push(api<{ feedback: FeedbackEntry[] }>(`/feedback?external_user_id=${encodeURIComponent(event.external_user_id)}`));
    void Promise.all(asks).then((r) => setRows(r.flatMap((x) => x.feedback)), (e: ApiError) => setNotice(e.message));
  };
  useEffect(() => {
    load();
    void api<{ role: string }>('/me').then((m) => setAdmin(m.role === 'admin'), () => undefined);
  }, [event.id]);
  const retract = async (id: string) => {
    if (!note.trim()) {
      setNotice('Say why in the note before retracting.');
      return;
    }
    try {
      await api(`/feedback/${encodeURIComponent(id)}/retract`, { body: { note } });
      setNotice(`Retracted ${id}: later verdicts no longer carry its mark.`);
      setNote('');
      load();
    } catch (err) {
      setNotice((err as Error).message);
    }
  };
  if (rows === null || (rows.length === 0 && !notice)) return null;
  return (
    <section class="recorded-feedback">
      <h3>Recorded feedback</h3>
      <table class="rows">
        <thead><tr><th>Time</th><th>Outcome</th><th>About</th><th>Note</th><th>State</th></tr></thead>
        <tbody>{rows.map((f) => (
          <tr data-feedback-id={f.feedback_id}>
            <td>{when(f.created_at)}</td><td>{f.outcome}</td><td>{f.subject.kind} {f.subject.value}</td><td>{f.note ?? '–'}</td>
            <td>{f.retracted_at
              ? <span class="muted">retracted {when(f.retracted_at)}{f.retract_note ? `: ${f.retract_note}` : ''}</span>
              : admin ? <button type="button" class="retract" onClick={() => void retract(f.feedback_id)}>Retract</button> : <span>standing</span>}</td>
          </tr>
        ))}</tbody>
      </table>
      {admin && rows.some((f) => !f.retracted_at) && (
        <label>Why retract (recorded in the audit log) <input name="retract-note" value={note} maxLength={2000} onInput={(e) => setNote(e.currentTarget.value)} /></label>
      )}
      {notice && <p class="notice" role="status">{notice}</p>}
    </section>
  );
}

function Feedback({ event }: { event: EventDetail['event'] }) {
  const [kind, setKind] = useState<'event_id' | 'external_user_id' | 'email'>('event_id');
  const [outcome, setOutcome] = useState('confirmed_abuse');
  const [done, setDone] = useState('');
  const value = kind === 'event_id' ? event.id : kind === 'external_user_id' ? event.external_user_id : event.email;
  const send = async (e: Event) => {
    e.preventDefault();
    if (!value) return;
    try {
      await api('/feedback', { body: { subject: { kind, value }, outcome } });
      setDone(`Recorded ${outcome} about ${kind} ${value}.`);
    } catch (err) {
      setDone((err as Error).message);
    }
  };
  return (
    <section>
      <h3>Feedback</h3>
      <form class="inline" onSubmit={send}>
        <select name="outcome" value={outcome} onChange={(e) => setOutcome(e.currentTarget.value)}>
          <option value="confirmed_abuse">confirmed abuse</option><option value="false_positive">false positive</option><option value="chargeback">chargeback</option>
        </select>
        <span>about</span>
        <select name="subject" value={kind} onChange={(e) => setKind(e.currentTarget.value as typeof kind)}>
          <option value="event_id">this event</option>
          {event.external_user_id && <option value="external_user_id">this account</option>}
          {event.email && <option value="email">this email</option>}
        </select>
        <button type="submit">Record feedback</button>
      </form>
      {done && <p class="notice" role="status">{done}</p>}
    </section>
  );
}
