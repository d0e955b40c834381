// "What changed?" on the overview: the last 24 h against the 24 h before and the same 24 h a week
// earlier, for verdicts, each reason, reviews opened and resolved, resolutions' marks undone,
// feedback, clusters made and grown (and of those, confirmed abuse), and policy publications,
// every count a link to the events or the clusters behind it.
import { qs } from './api';
import { when } from './format';
import type { Overview, WindowName } from './types';

const WINDOWS: { name: WindowName; label: string }[] = [
  { name: 'today', label: 'Last 24 h' },
  { name: 'yesterday', label: 'The 24 h before' },
  { name: 'last_week', label: 'Same 24 h last week' },
];

// A count that leads to its events; a difference against the window compared.
const Count = ({ n, href }: { n: number; href?: string }) => (href && n > 0 ? <a href={href}>{n}</a> : <span>{n}</span>);
const delta = (now: number, then: number): string => (now === then ? '±0' : now > then ? `+${now - then}` : `−${then - now}`);

export function WhatChanged({ data }: { data: Overview }) {
  const c = data.compare;
  const win = Object.fromEntries(data.windows.map((w) => [w.name, w])) as unknown as Record<WindowName, { from: string; to: string }>;
  const events = (name: WindowName, extra: Record<string, string> = {}) =>
    `/console/events${qs({ ...extra, from: win[name].from, to: win[name].to })}`;
  const resolved = (name: WindowName, review: string) =>
    `/console/events${qs({ review, resolved_from: win[name].from, resolved_to: win[name].to })}`;
  const about = (name: WindowName, feedback: string) =>
    `/console/events${qs({ feedback, feedback_from: win[name].from, feedback_to: win[name].to })}`;
  const undone = (name: WindowName) => `/console/events${qs({ undone_from: win[name].from, undone_to: win[name].to })}`;
  // The full list of the window's clusters (cluster-changes-page.tsx), whose counts are these.
  const clusters = (name: WindowName, filter: Record<string, string>) =>
    `/console/clusters${qs({ from: win[name].from, to: win[name].to, ...filter })}`;
  type Row = { label: string; get: (n: WindowName) => number; href?: (n: WindowName) => string | undefined };
  const rows: Row[] = [
    ...(['allow', 'review', 'block'] as const).map((v) => ({
      label: `verdict ${v}`,
      get: (n: WindowName) => c.verdicts[n]?.[v] ?? 0,
      href: (n: WindowName) => events(n, { verdict: v }),
    })),
    { label: 'reviews opened', get: (n) => c.activity[n]?.opened ?? 0, href: (n) => events(n, { verdict: 'review' }) },
    { label: 'reviews approved', get: (n) => c.activity[n]?.approved ?? 0, href: (n) => resolved(n, 'approved') },
    { label: 'reviews denied', get: (n) => c.activity[n]?.denied ?? 0, href: (n) => resolved(n, 'denied') },
    { label: 'feedback: confirmed abuse', get: (n) => c.activity[n]?.confirmed_abuse ?? 0, href: (n) => about(n, 'confirmed_abuse') },
    { label: 'feedback: false positive', get: (n) => c.activity[n]?.false_positive ?? 0, href: (n) => about(n, 'false_positive') },
    { label: 'feedback: chargeback', get: (n) => c.activity[n]?.chargeback ?? 0, href: (n) => about(n, 'chargeback') },
    { label: 'feedback retracted', get: (n) => c.activity[n]?.retracted ?? 0, href: (n) => about(n, 'retracted') },
    // A resolution's graph mark taken back (the review and its webhook stand).
    { label: 'review marks undone', get: (n) => c.activity[n]?.marks_undone ?? 0, href: undone },
    { label: 'clusters made (2+ new accounts)', get: (n) => c.clusters[n]?.made ?? 0, href: (n) => clusters(n, { change: 'made' }) },
    { label: 'clusters grown', get: (n) => c.clusters[n]?.grown ?? 0, href: (n) => clusters(n, { change: 'grown' }) },
    {
      label: 'clusters made or grown: confirmed abuse',
      get: (n) => c.clusters[n]?.confirmed ?? 0,
      href: (n) => clusters(n, { confirmed: '1' }),
    },
    // The publications are listed below the table.
    { label: 'policy versions published', get: (n) => c.activity[n]?.policies ?? 0, href: () => '#publications' },
  ];
  return (
    <section class="card wide what-changed">
      <h2>What changed?</h2>
      <table class="rows compare">
        <thead>
          <tr>
            <th />
            <th class="num">{WINDOWS[0]!.label}</th>
            <th class="num">{WINDOWS[1]!.label}</th>
            <th class="num">change</th>
            <th class="num">{WINDOWS[2]!.label}</th>
            <th class="num">change</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const [a, b, l] = WINDOWS.map((w) => r.get(w.name));
            return (
              <tr data-row={r.label}>
                <th>{r.label}</th>
                {WINDOWS.map((w, i) => [
                  <td class="num">
                    <Count n={r.get(w.name)} href={r.href?.(w.name)} />
                  </td>,
                  i === 1 ? <td class="num delta">{delta(a!, b!)}</td> : i === 2 ? <td class="num delta">{delta(a!, l!)}</td> : null,
                ])}
              </tr>
            );
          })}
          <tr class="section">
            <th colSpan={6}>Reasons</th>
          </tr>
          {c.reasons.length === 0 ? (
            <tr>
              <td colSpan={6} class="muted">
                No reason fired in these windows.
              </td>
            </tr>
          ) : (
            c.reasons.map((r) => (
              <tr data-reason={r.code}>
                <th>
                  <a href={`/console/events${qs({ reason: r.code })}`}>
                    <code>{r.code}</code>
                  </a>
                </th>
                {WINDOWS.map((w, i) => [
                  <td class="num">
                    <Count n={r.counts[w.name] ?? 0} href={events(w.name, { reason: r.code })} />
                  </td>,
                  i === 1 ? (
                    <td class="num delta">{delta(r.counts.today ?? 0, r.counts.yesterday ?? 0)}</td>
                  ) : i === 2 ? (
                    <td class="num delta">{delta(r.counts.today ?? 0, r.counts.last_week ?? 0)}</td>
                  ) : null,
                ])}
              </tr>
            ))
          )}
        </tbody>
      </table>
      {Object.values(c.clusters).some((x) => x === null) && (
        <p class="muted">The identity graph did not answer for some windows: their cluster counts show 0.</p>
      )}
      {Object.values(c.clusters).some((x) => x?.capped) && (
        <p class="muted">More accounts were first seen in some windows than the graph was asked about: their cluster counts may be low.</p>
      )}
      {c.publications.length > 0 && (
        <p id="publications">
          Policy published (the last 8 days):{' '}
          {c.publications.map((p, i) => [
            i > 0 && '; ',
            <span>
              <code>{p.policy_version}</code> at {when(p.published_at)}
              {p.note && `: ${p.note}`}
            </span>,
          ])}
        </p>
      )}
    </section>
  );
}
