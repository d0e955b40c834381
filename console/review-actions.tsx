// An event's review as the event view shows it: while it is pending, the note and what each key
// does to the event and its cluster, said before it acts (a large cluster asks first); once it is
// resolved, who resolved it and "Undo marks". The queue drives the keys through a Resolver.
import { useRef, useState } from 'preact/hooks';
import { api } from './api';
import { plural, when } from './format';
import type { EventDetail, MarksUndone, Me, Resolution, Resolved, ResolveBody, UndoMarksBody } from './types';

export interface Resolver {
  resolve(resolution: Resolution): void;
  cancel(): boolean;
  focusNote(): void;
}

export interface ResolvedNotice {
  eventId: string;
  resolution: Resolution;
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
export function consequence(d: EventDetail, resolution: Resolution): string {
  const n = clusterAccounts(d);
  const codes = d.event.reasons.map((r) => r.code).join(', ') || 'no codes';
  const who = n > 1 ? `the ${plural(n, 'account')} of its cluster` : 'its account';
  return resolution === 'denied'
    ? `Deny: final verdict block (webhook review.resolved), and marks ${who} as confirmed abuse: their later verdicts carry cluster_confirmed_abuse.`
    : `Approve: final verdict allow (webhook review.resolved), and records a false positive that suppresses ${codes} for ${who}.`;
}

// What the event view shows while it resolves, and what it does: see useResolution.
export interface Resolving {
  note: string;
  type(text: string): void;
  busy: boolean;
  asking: Resolution | null;
  setAsking(asking: Resolution | null): void;
  noteRef: { current: HTMLTextAreaElement | null };
  resolve(resolution: Resolution): Promise<void>;
  reset(): void;
}

// Resolving the review of the event shown (`shown`, the id the view shows now): the note as typed,
// and a large cluster asks first (the same key again, or Confirm, acts; Escape cancels). An error,
// or the end of being busy, is shown only while the view still shows the event; the reload after
// it shows the resolution on the event's own page, and in the queue, where the next review has
// taken its place, it is dropped.
export function useResolution(
  id: string,
  detail: EventDetail | null,
  shown: { current: string },
  load: (of: string) => Promise<void>,
  setError: (message: string) => void,
  onResolved?: (n: ResolvedNotice) => void,
): Resolving {
  const [note, setNote] = useState('');
  // Read at resolution time: a key pressed right after typing must not see an older note.
  const noteNow = useRef('');
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState<Resolution | null>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);
  const resolve = async (resolution: Resolution) => {
    if (busy || detail?.event.id !== id || detail.review?.status !== 'pending') return;
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
      onResolved?.({
        eventId: id,
        resolution,
        text: `${resolution === 'denied' ? 'Denied' : 'Approved'} ${id}: final verdict ${r.final_verdict}, webhook ${r.delivery_id} queued.`,
      });
    } catch (e) {
      if (shown.current === id) setError((e as Error).message);
    } finally {
      if (shown.current === id) setBusy(false);
    }
    void load(id);
  };
  const type = (text: string) => {
    noteNow.current = text;
    setNote(text);
  };
  const reset = () => {
    setBusy(false);
    setNote('');
    setAsking(null);
    noteNow.current = '';
  };
  return { note, type, busy, asking, setAsking, noteRef, resolve, reset };
}

// The review's section of the event view: the actions while it is pending, who resolved it after.
export function ReviewActions({
  detail,
  resolving,
  error,
  me,
  onChanged,
}: {
  detail: EventDetail;
  resolving: Resolving;
  error: string;
  me?: Me | null;
  onChanged: () => void;
}) {
  const review = detail.review!;
  return (
    <section class="review-actions">
      <h3>Review: {review.status}</h3>
      {review.status === 'pending' ? (
        <PendingActions detail={detail} resolving={resolving} error={error} />
      ) : (
        <ResolvedReview eventId={detail.event.id} review={review} me={me} onChanged={onChanged} />
      )}
    </section>
  );
}

// The note, what each key does, and the keys as buttons (or the large cluster's question).
function PendingActions({ detail, resolving, error }: { detail: EventDetail; resolving: Resolving; error: string }) {
  const { note, type, busy, asking, setAsking, noteRef, resolve } = resolving;
  return (
    <div>
      <textarea
        ref={noteRef}
        name="note"
        placeholder="Note (why), stored with the resolution (n)"
        maxLength={2000}
        value={note}
        onInput={(ev) => type(ev.currentTarget.value)}
      />
      <ul class="consequences">
        <li class={asking === 'approved' ? 'asking' : ''}>
          <kbd>a</kbd> {consequence(detail, 'approved')}
        </li>
        <li class={asking === 'denied' ? 'asking' : ''}>
          <kbd>d</kbd> {consequence(detail, 'denied')}
        </li>
      </ul>
      {asking ? (
        <div class="confirm" role="alert">
          <p>
            <strong>This acts on {plural(clusterAccounts(detail), 'account')}.</strong> Press <kbd>{asking === 'denied' ? 'd' : 'a'}</kbd>{' '}
            again or confirm; <kbd>Esc</kbd> cancels.
          </p>
          <div class="buttons">
            <button type="button" class={asking === 'denied' ? 'deny' : 'approve'} onClick={() => void resolve(asking)}>
              Confirm: {asking === 'denied' ? 'deny' : 'approve'}
            </button>
            <button type="button" class="link" onClick={() => setAsking(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <div class="buttons">
          <button type="button" class="approve" disabled={busy} onClick={() => void resolve('approved')}>
            Approve <kbd>a</kbd>
          </button>
          <button type="button" class="deny" disabled={busy} onClick={() => void resolve('denied')}>
            Deny <kbd>d</kbd>
          </button>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

// Who resolved it, and "Undo marks": the resolver or an admin takes the resolution's graph mark
// back (the resolution and its webhook stand).
function ResolvedReview({
  eventId,
  review,
  me,
  onChanged,
}: {
  eventId: string;
  review: NonNullable<EventDetail['review']>;
  me?: Me | null;
  onChanged: () => void;
}) {
  const [why, setWhy] = useState('');
  const [notice, setNotice] = useState('');
  const may = me && (me.role === 'admin' || me.email === review.resolved_by);
  const undo = async (ev: Event) => {
    ev.preventDefault();
    try {
      await api<MarksUndone>(`/reviews/${encodeURIComponent(eventId)}/undo-marks`, { body: { note: why } satisfies UndoMarksBody });
      setNotice('Marks undone: later verdicts no longer carry them once the graph writer has applied it.');
      onChanged();
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
  return (
    <div>
      <p>
        By {review.resolved_by} at {when(review.resolved_at)}
        {review.note && <span>: “{review.note}”</span>}
      </p>
      {review.marks_retracted ? (
        <p class="muted marks-retracted">
          Marks undone by {review.marks_retracted.by} at {when(review.marks_retracted.at)}: “{review.marks_retracted.note}”.
        </p>
      ) : may ? (
        <form class="inline undo" onSubmit={undo}>
          <label>
            Undo marks (the {review.status === 'denied' ? 'denial' : 'approval'} and its webhook stand); why
            <input name="undo-note" required maxLength={2000} value={why} onInput={(e) => setWhy(e.currentTarget.value)} />
          </label>
          <button type="submit">Undo marks</button>
        </form>
      ) : null}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
    </div>
  );
}
