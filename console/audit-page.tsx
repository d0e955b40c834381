// The audit log (admins): who did what, newest first, both modes.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { AuditDetail, AuditSubject } from './audit-detail';
import { when } from './format';
import type { AuditPage as Page } from './types';

export function AuditPage() {
  const [entries, setEntries] = useState<Page['entries'] | null>(null);
  const [cursor, setCursor] = useState<string | undefined>();
  const load = async (next?: string) => {
    const page = await api<Page>(`/audit${qs({ cursor: next })}`);
    setEntries((old) => (next && old ? [...old, ...page.entries] : page.entries));
    setCursor(page.next_cursor);
  };
  useEffect(() => void load(), []);
  if (!entries) return <p class="loading">Loading the audit log…</p>;
  return (
    <div>
      <h1>Audit log</h1>
      {entries.length === 0 ? (
        <p class="empty">Nothing yet: sign-ins, resolutions, feedback and query runs appear here.</p>
      ) : (
        <table class="rows audit">
          <thead>
            <tr>
              <th class="time">When</th>
              <th>Mode</th>
              <th>Analyst</th>
              <th>Action</th>
              <th>Subject</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr>
                <td class="time">{when(e.at)}</td>
                <td>{e.mode}</td>
                <td>{e.analyst}</td>
                <td>{e.action}</td>
                <td>
                  <AuditSubject entry={e} />
                </td>
                <td class="detail">
                  <AuditDetail entry={e} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" onClick={() => void load(cursor)}>
          Older entries
        </button>
      )}
    </div>
  );
}
