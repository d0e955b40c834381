// One event as an analyst reads it: what was judged and why (each reason in words, the cluster's
// marks with who reported them, the path, the payment), its review with the consequence of each
// key stated before it acts, undo of a resolution's marks, feedback with a note, the account's
// earlier events and the cluster summary. Every value from an event is rendered as text (never
// as markup).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { ageSince, plural, scalar, when } from './format';
import { reasonWords } from './reason-words';
import type {
  EventDetail, EventRow, Evidence, FeedbackEntry, FeedbackList, FeedbackRetracted, MarksUndone, Me, Resolved, ResolveBody, RetractBody, UndoMarksBody,
} from './types';

export const accountHref = (id: string): string => `/console/accounts/${encodeURIComponent(id)}`;

export function Reasons({ reasons }: { reasons: EventRow['reasons'] }) {
  if (reasons.length === 0) return <span class="muted">no reasons</span>;
  return <ul class="reasons">{reasons.map((r) => <li><code>{r.code}</code> <span class="words">{reasonWords(r)}</span></li>)}</ul>;
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
    <table class="rows events">
      <thead><tr><th class="time">Time (UTC)</th><th>Type</th><th>Verdict</th><th>Reasons</th><th>User</th><th>Email</th></tr></thead>
      <tbody>{events.map((e) => (
        <tr data-event-id={e.id}>
          <td class="time"><a href={`/console/events/${encodeURIComponent(e.id)}`}>{when(e.created_at).replace(' UTC', '')}</a></td>
          <td>{e.event_type}</td><td><Verdict v={e.verdict} />{e.review && <span class="muted"> {e.review.status}</span>}</td>
          <td>{e.reasons.map((r) => r.code).join(', ')}</td>
          <td>{e.external_user_id ? <a href={accountHref(e.external_user_id)}>{e.external_user_id}</a> : '–'}</td><td>{e.email ?? '–'}</td>
        </tr>
      ))}</tbody>
    </table>
  );
}

export interface Resolver {
  resolve(resolution: 'approved' | 'denied'): void;
  cancel(): boolean;
  focusNote(): void;
}

export interface ResolvedNotice {
  eventId: string;
  resolution: 'approved' | 'denied';
  text: string;
}

// Ask before a key acts on a cluster of at least this many accounts (the queue's setting, kept in
// this browser).
const CONFIRM_KEY = 'doorman.confirm-accounts';
export const DEFAULT_CONFIRM_AT = 10;
export const confirmAt = (): number => {
  const v = Number(localStorage.getItem(CONFIRM_KEY));
  return Number.isInteger(v) && v >= 2 ? v : DEFAULT_CONFIRM_AT;
};
export const setConfirmAt = (n: number): void => localStorage.setItem(CONFIRM_KEY, String(n));

const clusterAccounts = (d: EventDetail): number => (d.cluster && d.cluster !== 'unavailable' ? d.cluster.accounts : 1);

// What each key does to this event and its cluster, said before it is pressed.
export function consequence(d: EventDetail, resolution: 'approved' | 'denied'): string {
  const n = clusterAccounts(d);
  const codes = d.event.reasons.map((r) => r.code).join(', ') || 'no codes';
  const who = n > 1 ? `the ${plural(n, 'account')} of its cluster` : 'its account';
  return resolution === 'denied'
    ? `Deny: final verdict block (webhook review.resolved), and marks ${who} as confirmed abuse: their later verdicts carry cluster_confirmed_abuse.`
    : `Approve: final verdict allow (webhook review.resolved), and records a false positive that suppresses ${codes} for ${who}.`;
}

export function EventView({ id, onResolved, bind, me }: { id: string; onResolved?: (n: ResolvedNotice) => void; bind?: (r: Resolver | null) => void; me?: Me | null }) {
  const [detail, setDetail] = useState<EventDetail | null>(null);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  // Read at resolution time: a key pressed right after typing must not see an older note.
  const noteNow = useRef('');
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState<'approved' | 'denied' | null>(null);
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
    setAsking(null);
    noteNow.current = '';
    void load(id);
  }, [id]);
  const resolve = async (resolution: 'approved' | 'denied') => {
    if (busy || detail?.event.id !== id || detail.review?.status !== 'pending') return;
    // A large cluster asks first: the same key again (or Confirm) acts; Escape cancels.
    if (clusterAccounts(detail) >= confirmAt() && asking !== resolution) {
      setAsking(resolution);
      return;
    }
    setAsking(null);
    setBusy(true);
    const text = noteNow.current;
    try {
      const r = await api<Resolved>(`/reviews/${encodeURIComponent(id)}/resolve`, {
        body: { resolution, ...(text && { note: text }) } satisfies ResolveBody,
      });
      onResolved?.({ eventId: id, resolution, text: `${resolution === 'denied' ? 'Denied' : 'Approved'} ${id}: final verdict ${r.final_verdict}, webhook ${r.delivery_id} queued.` });
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
    bind?.({
      resolve: (r) => void resolve(r),
      cancel: () => {
        if (!asking) return false;
        setAsking(null);
        return true;
      },
      focusNote: () => noteRef.current?.focus(),
    });
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
      {detail.review && (
        <section class="review-actions">
          <h3>Review: {detail.review.status}</h3>
          {pending ? (
            <div>
              <textarea ref={noteRef} name="note" placeholder="Note (why), stored with the resolution (n)" maxLength={2000} value={note} onInput={(ev) => { noteNow.current = ev.currentTarget.value; setNote(noteNow.current); }} />
              <ul class="consequences">
                <li class={asking === 'approved' ? 'asking' : ''}><kbd>a</kbd> {consequence(detail, 'approved')}</li>
                <li class={asking === 'denied' ? 'asking' : ''}><kbd>d</kbd> {consequence(detail, 'denied')}</li>
              </ul>
              {asking ? (
                <div class="confirm" role="alert">
                  <p><strong>This acts on {plural(clusterAccounts(detail), 'account')}.</strong> Press <kbd>{asking === 'denied' ? 'd' : 'a'}</kbd> again or confirm; <kbd>Esc</kbd> cancels.</p>
                  <div class="buttons">
                    <button type="button" class={asking === 'denied' ? 'deny' : 'approve'} onClick={() => void resolve(asking)}>Confirm: {asking === 'denied' ? 'deny' : 'approve'}</button>
                    <button type="button" class="link" onClick={() => setAsking(null)}>Cancel</button>
                  </div>
                </div>
              ) : (
                <div class="buttons">
                  <button type="button" class="approve" disabled={busy} onClick={() => void resolve('approved')}>Approve <kbd>a</kbd></button>
                  <button type="button" class="deny" disabled={busy} onClick={() => void resolve('denied')}>Deny <kbd>d</kbd></button>
                </div>
              )}
              {error && <p class="error" role="alert">{error}</p>}
            </div>
          ) : (
            <ResolvedReview eventId={e.id} review={detail.review} me={me} onChanged={() => void load(id)} />
          )}
        </section>
      )}
      <WhyPanel detail={detail} />
      <dl class="facts">
        <dt>External user id</dt><dd class="external-user-id">{e.external_user_id ? <a href={accountHref(e.external_user_id)}>{e.external_user_id}</a> : '–'}</dd>
        <dt>Email</dt><dd class="email">{e.email ?? '–'}</dd>
        <dt>IP</dt><dd>{e.ip ?? '–'}</dd>
        {Object.keys(e.identity).length > 0 && [<dt>Identity</dt>, <dd class="identity"><Tree value={e.identity} /></dd>]}
        {e.context && [<dt>Context</dt>, <dd class="context"><Tree value={e.context} /></dd>]}
      </dl>
      <FeedbackSection event={e} />
      <section>
        <h3>Identity cluster</h3>
        <ClusterSummary cluster={detail.cluster} eventId={e.id} />
      </section>
      <section>
        <h3>Earlier events {detail.earlier.by && <span class="muted">(same {detail.earlier.by === 'email' ? 'email' : 'external user id'}, before this one)</span>}</h3>
        <EventTable events={detail.earlier.events} empty={detail.earlier.by ? 'No earlier events for this account.' : 'The event names no account or email, so there is nothing to look up.'} />
      </section>
      <section>
        <h3>Signals the engine saw</h3>
        <div class="signals"><Tree value={detail.signals} /></div>
      </section>
    </article>
  );
}

// Who resolved it, and the undo of its marks: the resolver or an admin takes the resolution's
// graph mark back (the resolution and its webhook stand).
function ResolvedReview({ eventId, review, me, onChanged }: { eventId: string; review: NonNullable<EventDetail['review']>; me?: Me | null; onChanged: () => void }) {
  const [why, setWhy] = useState('');
  const [notice, setNotice] = useState('');
  const may = me && (me.role === 'admin' || me.email === review.resolved_by);
  const undo = async (ev: Event) => {
    ev.preventDefault();
    try {
      await api<MarksUndone>(`/reviews/${encodeURIComponent(eventId)}/undo-marks`, { body: { note: why } satisfies UndoMarksBody });
      setNotice('Marks taken back: later verdicts no longer carry them once the graph writer has applied it.');
      onChanged();
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
  return (
    <div>
      <p>By {review.resolved_by} at {when(review.resolved_at)}{review.note && <span>: “{review.note}”</span>}</p>
      {review.marks_retracted ? (
        <p class="muted marks-retracted">Its marks were taken back by {review.marks_retracted.by} at {when(review.marks_retracted.at)}: “{review.marks_retracted.note}”.</p>
      ) : may ? (
        <form class="inline undo" onSubmit={undo}>
          <label>Undo its marks (the {review.status === 'denied' ? 'denial' : 'approval'} and its webhook stand); why
            <input name="undo-note" required maxLength={2000} value={why} onInput={(e) => setWhy(e.currentTarget.value)} /></label>
          <button type="submit">Undo marks</button>
        </form>
      ) : null}
      {notice && <p class="notice" role="status">{notice}</p>}
    </div>
  );
}

// The marks the panel lists at most; the cluster picture lists them all.
const MARKS_SHOWN = 5;

const CLUSTER_CODES = new Set(['cluster_confirmed_abuse', 'cluster_chargeback', 'cluster_trusted', 'identity_cluster']);

// "Why was this decided?": each reason in words with its numbers; for the cluster's reasons, the
// marks on it (subject, outcome, when, who reported it and their note, and the path to it, drawn
// in the cluster picture); the payment.
function WhyPanel({ detail }: { detail: EventDetail }) {
  const e = detail.event;
  const [evidence, setEvidence] = useState<Evidence | null | 'unavailable'>(null);
  const clusterReason = e.reasons.some((r) => CLUSTER_CODES.has(r.code));
  useEffect(() => {
    if (clusterReason) api<Evidence>(`/events/${encodeURIComponent(e.id)}/evidence`).then(setEvidence, () => setEvidence('unavailable'));
  }, [e.id]);
  const payment = e.payment as Record<string, unknown> | null;
  return (
    <section class="why">
      <h3>Why {e.verdict === 'allow' ? 'allowed' : e.verdict === 'block' ? 'blocked' : 'held for review'}</h3>
      {e.reasons.length === 0 ? <p class="muted">No rule fired: the policy allows by default.</p> : <Reasons reasons={e.reasons} />}
      {clusterReason && (evidence === 'unavailable' ? <p class="error">The identity graph did not answer for the cluster's marks.</p> : evidence && (
        <div class="marks">
          <h4>Marks on its cluster now {evidence.cluster && <a href={`/console/events/${encodeURIComponent(e.id)}/cluster`}>(show the path in the picture)</a>}</h4>
          {evidence.marks.length === 0 ? <p class="muted">None stand now (taken back, or the cluster split since).</p> : (
            <ul>{evidence.marks.slice(0, MARKS_SHOWN).map((m) => (
              <li class="mark">
                <strong>{m.outcome.replace('_', ' ')}</strong>{' '}
                {m.review_event_id
                  ? ['on a reviewed event', m.subject_value && [' of account ', <a href={accountHref(m.subject_value)}>{m.subject_value}</a>]]
                  : ['on ', m.subject_kind === 'account' ? 'account ' : `${m.subject_kind} `, m.subject_value && (m.subject_kind === 'account' ? <a href={accountHref(m.subject_value)}>{m.subject_value}</a> : <code>{m.subject_value}</code>)]}
                , {when(m.marked_at)}, by {m.reported_by}
                {m.note && <span class="note">: “{m.note}”</span>}
                <br /><span class="muted">{m.via === null ? 'no live path from this event yet' : m.via.length === 0 ? 'this account itself' : `path: this account → ${m.via.join(' → ')} → the subject`}</span>
                {m.review_event_id && <span> · <a href={`/console/events/${encodeURIComponent(m.review_event_id)}`}>the review</a></span>}
              </li>
            ))}</ul>
          )}
          {evidence.marks.length > MARKS_SHOWN && <p class="muted">and {plural(evidence.marks.length - MARKS_SHOWN, 'more mark')}: all of them in <a href={`/console/events/${encodeURIComponent(e.id)}/cluster`}>the cluster picture</a>.</p>}
        </div>
      ))}
      {payment && (
        <div class="payment">
          <h4>Payment</h4>
          <dl class="facts">{Object.entries(payment).map(([k, v]) => [<dt>{k.replace(/_/g, ' ')}</dt>, <dd>{k === 'card_fingerprint' ? <a href={`/console/events?card=${encodeURIComponent(String(v))}`}>{scalar(v)}</a> : scalar(v)}</dd>])}</dl>
        </div>
      )}
    </section>
  );
}

function ClusterSummary({ cluster, eventId }: { cluster: EventDetail['cluster']; eventId: string }) {
  if (cluster === 'unavailable') return <p class="error">The identity graph did not answer; the rest of this page is complete.</p>;
  if (!cluster) return <p class="empty">This event linked nothing yet (no account and no identifier, or its link is still being applied).</p>;
  return (
    <div class="cluster-summary">
      <p><strong>{plural(cluster.accounts, 'account')}</strong>, {plural(cluster.size, 'member')}
        {cluster.confirmedAbuse && <span class="flag bad">confirmed abuse</span>}
        {cluster.chargebacks > 0 && <span class="flag bad">{plural(cluster.chargebacks, 'chargeback')}</span>}
        {cluster.falsePositive && <span class="flag good">false positive reported</span>}</p>
      {cluster.suppressed.length > 0 && <p class="muted">Suppressed codes: {cluster.suppressed.join(', ')}</p>}
      <a href={`/console/events/${encodeURIComponent(eventId)}/cluster`} class="button">Open the cluster picture</a>
    </div>
  );
}

// Feedback about this event, its account or its email, with a note; then what is recorded.
function FeedbackSection({ event }: { event: EventDetail['event'] }) {
  const [recorded, setRecorded] = useState(0);
  return (
    <div key={event.id}>
      <Feedback event={event} onRecorded={() => setRecorded((n) => n + 1)} />
      <RecordedFeedback key={recorded} event={event} />
    </div>
  );
}

// The feedback recorded about this event and its account, with its marks' state; an admin can take
// a mark back (docs/graph.md, "Undo"): audited, applied by the graph writer in order.
export function RecordedFeedback({ event }: { event: { id?: string; external_user_id?: string } }) {
  const [rows, setRows] = useState<FeedbackEntry[] | null>(null);
  const [admin, setAdmin] = useState(false);
  const [notice, setNotice] = useState('');
  const [note, setNote] = useState('');
  const load = () => {
    const asks: Promise<FeedbackList>[] = [];
    if (event.id) asks.push(api<FeedbackList>(`/feedback?event_id=${encodeURIComponent(event.id)}`));
    if (event.external_user_id) asks.push(api<FeedbackList>(`/feedback?external_user_id=${encodeURIComponent(event.external_user_id)}`));
    void Promise.all(asks).then((r) => setRows(r.flatMap((x) => x.feedback)), (e: ApiError) => setNotice(e.message));
  };
  useEffect(() => {
    load();
    void api<Me>('/me').then((m) => setAdmin(m.role === 'admin'), () => undefined);
  }, [event.id, event.external_user_id]);
  const retract = async (id: string) => {
    if (!note.trim()) {
      setNotice('Say why in the note before retracting.');
      return;
    }
    try {
      await api<FeedbackRetracted>(`/feedback/${encodeURIComponent(id)}/retract`, { body: { note } satisfies RetractBody });
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
        <thead><tr><th class="time">Time (UTC)</th><th>Outcome</th><th>About</th><th>Note</th><th>State</th></tr></thead>
        <tbody>{rows.map((f) => (
          <tr data-feedback-id={f.feedback_id}>
            <td class="time">{when(f.created_at).replace(' UTC', '')}</td><td>{f.outcome}</td><td>{f.subject.kind} {f.subject.value}</td><td class="note">{f.note ?? '–'}</td>
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

function Feedback({ event, onRecorded }: { event: EventDetail['event']; onRecorded: () => void }) {
  const [kind, setKind] = useState<'event_id' | 'external_user_id' | 'email'>('event_id');
  const [outcome, setOutcome] = useState('confirmed_abuse');
  const [note, setNote] = useState('');
  const [done, setDone] = useState('');
  const value = kind === 'event_id' ? event.id : kind === 'external_user_id' ? event.external_user_id : event.email;
  const send = async (e: Event) => {
    e.preventDefault();
    if (!value) return;
    try {
      await api('/feedback', { body: { subject: { kind, value }, outcome, ...(note.trim() && { note: note.trim() }) } });
      setDone(`Recorded ${outcome} about ${kind} ${value}${note.trim() ? ' with your note' : ''}.`);
      setNote('');
      onRecorded();
    } catch (err) {
      setDone((err as Error).message);
    }
  };
  return (
    <section class="feedback">
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
        <input name="feedback-note" class="wide" placeholder="Note: why (shown with the mark wherever it explains a verdict)" maxLength={2000} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <button type="submit">Record feedback</button>
      </form>
      {done && <p class="notice" role="status">{done}</p>}
    </section>
  );
}
