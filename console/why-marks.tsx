// The marks in an event's Why panel: those standing on its cluster now (the ones behind this
// verdict first, flagged so), each with who reported it, its note and the path from the event's account to its subject (each identifier by kind and
// value); the retract (a feedback report, admins) or undo (a review's marks, its resolver or an
// admin) on the mark itself, said before it acts; and the marks taken back, struck through, with
// who took them back, when and why.
import { useState } from 'preact/hooks';
import { api } from './api';
import { plural, when } from './format';
import { accountHref } from './links';
import type { Evidence, FeedbackRetracted, MarksUndone, Me, RetractBody, UndoMarksBody } from './types';

type Mark = Evidence['marks'][number];

// The marks the panel lists at most, standing and taken back each; the cluster picture lists them all.
const MARKS_SHOWN = 5;

// The path in words, each identifier with its kind and value ("via phone +15557770000 → card card_ring").
export const pathWords = (m: Pick<Mark, 'via' | 'path'>): string => {
  if (!m.via || !m.path) return 'no live path yet';
  if (m.via.length === 0) return 'this account itself';
  const ids = m.path.filter((k) => k.startsWith('id:')).map((k) => k.slice(3).replace(':', ' '));
  return `via ${(ids.length === m.via.length ? ids : m.via).join(' → ')}`;
};

export function RetractedWords({ r }: { r: NonNullable<Mark['retracted']> }) {
  return (
    <span class="retracted-by">
      {' '}
      Taken back by {r.by}, {when(r.at)}
      {r.note ? `: “${r.note}”` : ''}.
    </span>
  );
}

// Who may take this mark back: an admin any; a review's resolver the marks of their resolution.
const mayTakeBack = (m: Mark, me?: Me | null): 'retract' | 'undo' | null => {
  if (!me || m.retracted) return null;
  if (m.feedback_id) return me.role === 'admin' ? 'retract' : null;
  if (m.review_event_id) return me.role === 'admin' || me.email === m.resolved_by ? 'undo' : null;
  return null;
};

export function ClusterMarks({
  eventId,
  evidence,
  behind,
  me,
  onChanged,
}: {
  eventId: string;
  evidence: Evidence;
  // The times of the marks the verdict's reasons name.
  behind: Set<number>;
  me?: Me | null;
  onChanged: () => void;
}) {
  const isBehind = (m: Mark) => behind.has(Date.parse(m.marked_at));
  const first = (a: Mark, b: Mark) => Number(isBehind(b)) - Number(isBehind(a));
  const standing = evidence.marks.filter((m) => !m.retracted).sort(first);
  const taken = evidence.marks.filter((m) => m.retracted).sort(first);
  const [notice, setNotice] = useState('');
  return (
    <div class="marks">
      <h4>
        Marks on its cluster now{' '}
        {evidence.cluster && <a href={`/console/events/${encodeURIComponent(eventId)}/cluster`}>(show the path in the picture)</a>}
      </h4>
      {standing.length === 0 ? (
        <p class="muted">
          None stand now{taken.length > 0 ? ': taken back, as listed below' : ' (taken back, or the cluster split since)'}.
        </p>
      ) : (
        <ul>
          {standing.slice(0, MARKS_SHOWN).map((m) => (
            <li class="mark" data-mark={m.feedback_id ?? m.review_event_id ?? m.subject_key}>
              {isBehind(m) && <span class="flag bad behind">behind this verdict</span>}
              <MarkWords m={m} />
              <TakeBack mark={m} how={mayTakeBack(m, me)} onDone={(text) => (setNotice(text), onChanged())} />
            </li>
          ))}
        </ul>
      )}
      {standing.length > MARKS_SHOWN && (
        <p class="muted">
          and {plural(standing.length - MARKS_SHOWN, 'more mark')}: all of them in{' '}
          <a href={`/console/events/${encodeURIComponent(eventId)}/cluster`}>the cluster picture</a>.
        </p>
      )}
      {taken.length > 0 && (
        <ul class="taken-back">
          {taken.slice(0, MARKS_SHOWN).map((m) => (
            <li class="retracted" data-mark={m.feedback_id ?? m.review_event_id ?? m.subject_key}>
              {isBehind(m) && <span class="flag bad behind">behind this verdict</span>}
              <s>
                <MarkWords m={m} />
              </s>
              <RetractedWords r={m.retracted!} />
            </li>
          ))}
        </ul>
      )}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
    </div>
  );
}

// A mark in words: outcome, subject, when, by whom and their note, the path to it, its review.
function MarkWords({ m }: { m: Mark }) {
  return (
    <span>
      <strong>{m.outcome.replace('_', ' ')}</strong>{' '}
      {m.review_event_id
        ? ['on a reviewed event', m.subject_value && [' of account ', <a href={accountHref(m.subject_value)}>{m.subject_value}</a>]]
        : [
            'on ',
            m.subject_kind === 'account' ? 'account ' : `${m.subject_kind} `,
            m.subject_value &&
              (m.subject_kind === 'account' ? (
                <a href={accountHref(m.subject_value)}>{m.subject_value}</a>
              ) : (
                <code>{m.subject_value}</code>
              )),
          ]}
      , {when(m.marked_at)}, by {m.reported_by}
      {m.note && <span class="note">: “{m.note}”</span>}
      <br />
      <span class="muted path">
        {m.via === null || m.path === null
          ? 'no live path from this event yet'
          : m.via.length === 0
            ? 'this account itself'
            : `path: this account → ${pathWords(m).slice('via '.length)} → the subject`}
      </span>
      {m.review_event_id && (
        <span>
          {' '}
          · <a href={`/console/events/${encodeURIComponent(m.review_event_id)}`}>the review</a>
        </span>
      )}
    </span>
  );
}

// Retract (a report) or undo (a review's marks) on the mark itself: what it does is said first,
// and a note saying why is asked for; audited by the server in the same transaction.
function TakeBack({ mark, how, onDone }: { mark: Mark; how: 'retract' | 'undo' | null; onDone: (text: string) => void }) {
  const [open, setOpen] = useState(false);
  const [why, setWhy] = useState('');
  const [error, setError] = useState('');
  if (!how) return null;
  const word = how === 'retract' ? 'Retract' : 'Undo marks';
  const send = async (e: Event) => {
    e.preventDefault();
    try {
      if (how === 'retract') {
        await api<FeedbackRetracted>(`/feedback/${encodeURIComponent(mark.feedback_id!)}/retract`, {
          body: { note: why } satisfies RetractBody,
        });
        onDone(`Retracted ${mark.feedback_id}: later verdicts no longer carry its mark once the graph writer has applied it.`);
      } else {
        await api<MarksUndone>(`/reviews/${encodeURIComponent(mark.review_event_id!)}/undo-marks`, {
          body: { note: why } satisfies UndoMarksBody,
        });
        onDone(`Undid the marks of the review of ${mark.review_event_id}: its resolution and webhook stand.`);
      }
      setOpen(false);
      setWhy('');
    } catch (err) {
      setError((err as Error).message);
    }
  };
  if (!open)
    return (
      <div>
        <button type="button" class="link take-back" onClick={() => setOpen(true)}>
          {word}
        </button>
      </div>
    );
  return (
    <form class="inline take-back-form" onSubmit={send}>
      <p class="consequence">
        {how === 'retract'
          ? "Retract this report: the mark stops counting for its cluster's later verdicts once the graph writer has applied it; the report stays listed, struck through."
          : "Undo this review's marks: the mark stops counting for its cluster's later verdicts; the resolution and its webhook stand."}
      </p>
      <label>
        Why (recorded in the audit log){' '}
        <input name="take-back-note" required maxLength={2000} value={why} onInput={(e) => setWhy(e.currentTarget.value)} />
      </label>
      <button type="submit">{word}</button>
      <button type="button" class="link" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
