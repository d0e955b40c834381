// Feedback in the console: recording it about an event, its account or its email, with a note, and
// the feedback recorded about an event or an account, which an admin can take back.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import { when } from './format';
import type { EventDetail, FeedbackEntry, FeedbackList, FeedbackRetracted, Me, RetractBody } from './types';

// Feedback about this event, its account or its email, with a note; then what is recorded.
export function FeedbackSection({ event }: { event: EventDetail['event'] }) {
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
    void Promise.all(asks).then(
      (r) => setRows(r.flatMap((x) => x.feedback)),
      (e: ApiError) => setNotice(e.message),
    );
  };
  useEffect(() => {
    load();
    void api<Me>('/me').then(
      (m) => setAdmin(m.role === 'admin'),
      () => undefined,
    );
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
        <thead>
          <tr>
            <th class="time">Time (UTC)</th>
            <th>Outcome</th>
            <th>About</th>
            <th>Note</th>
            <th>State</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((f) => (
            <tr data-feedback-id={f.feedback_id}>
              <td class="time">{when(f.created_at).replace(' UTC', '')}</td>
              <td>{f.outcome}</td>
              <td>
                {f.subject.kind} {f.subject.value}
              </td>
              <td class="note">{f.note ?? '–'}</td>
              <td>
                {f.retracted_at ? (
                  <span class="muted">
                    retracted {when(f.retracted_at)}
                    {f.retract_note ? `: ${f.retract_note}` : ''}
                  </span>
                ) : admin ? (
                  <button type="button" class="retract" onClick={() => void retract(f.feedback_id)}>
                    Retract
                  </button>
                ) : (
                  <span>standing</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {admin && rows.some((f) => !f.retracted_at) && (
        <label>
          Why retract (recorded in the audit log){' '}
          <input name="retract-note" value={note} maxLength={2000} onInput={(e) => setNote(e.currentTarget.value)} />
        </label>
      )}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
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
          <option value="confirmed_abuse">confirmed abuse</option>
          <option value="false_positive">false positive</option>
          <option value="chargeback">chargeback</option>
        </select>
        <span>about</span>
        <select name="subject" value={kind} onChange={(e) => setKind(e.currentTarget.value as typeof kind)}>
          <option value="event_id">this event</option>
          {event.external_user_id && <option value="external_user_id">this account</option>}
          {event.email && <option value="email">this email</option>}
        </select>
        <input
          name="feedback-note"
          class="wide"
          placeholder="Note: why (shown with the mark wherever it explains a verdict)"
          maxLength={2000}
          value={note}
          onInput={(e) => setNote(e.currentTarget.value)}
        />
        <button type="submit">Record feedback</button>
      </form>
      {done && (
        <p class="notice" role="status">
          {done}
        </p>
      )}
    </section>
  );
}
