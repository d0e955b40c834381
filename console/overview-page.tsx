// The overview of the selected mode. "What changed?": the last 24 h against the 24 h before and
// the same 24 h a week earlier, for verdicts, each reason, reviews opened and resolved, feedback,
// clusters made and grown, and policy publications, every count a link to the events behind it.
// Then verdicts per hour (with axes and values), the review backlog, webhook delivery health with
// a redeliver button for failed deliveries.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { ageSince, plural, useTitle, when } from './format';
import type { Me, Overview, Redelivered, WindowName } from './types';

const WINDOWS: { name: WindowName; label: string }[] = [
  { name: 'today', label: 'Last 24 h' },
  { name: 'yesterday', label: 'The 24 h before' },
  { name: 'last_week', label: 'Same 24 h last week' },
];

function HourChart({ rows, since, hours }: { rows: Overview['verdicts_per_hour']; since: string; hours: number }) {
  const start = new Date(since);
  start.setUTCMinutes(0, 0, 0);
  const slots = Array.from({ length: hours + 1 }, (_, i) => {
    const hour = new Date(start.getTime() + i * 3_600_000).toISOString();
    return rows.find((r) => r.hour === hour) ?? { hour, allow: 0, review: 0, block: 0 };
  });
  const top = Math.max(1, ...slots.map((s) => s.allow + s.review + s.block));
  // A round scale: 1, 2, 5 x 10^n at or above the busiest hour, four grid lines.
  const unit = 10 ** Math.floor(Math.log10(top));
  const max = [1, 2, 5, 10].map((m) => m * unit).find((m) => m >= top)!;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(max * f * 100) / 100);
  const w = 24;
  const h = 140;
  const left = 40;
  return (
    <svg class="chart" viewBox={`0 0 ${left + slots.length * w} ${h + 34}`} role="img" aria-label="verdicts per hour, UTC">
      {ticks.map((t) => (
        <g class="tick">
          <line x1={left} x2={left + slots.length * w} y1={h - (t / max) * h + 4} y2={h - (t / max) * h + 4} />
          <text x={left - 4} y={h - (t / max) * h + 8} text-anchor="end">
            {t}
          </text>
        </g>
      ))}
      {slots.map((s, i) => {
        let y = h + 4;
        const total = s.allow + s.review + s.block;
        const x = left + i * w;
        const from = s.hour;
        const to = new Date(Date.parse(s.hour) + 3_600_000).toISOString();
        return (
          <a href={`/console/events${qs({ from, to })}`}>
            {(['allow', 'review', 'block'] as const).map((v) => {
              const bar = (s[v] / max) * h;
              y -= bar;
              return bar > 0 ? (
                <rect class={`bar-${v}`} x={x + 3} y={y} width={w - 6} height={bar}>
                  <title>{`${s.hour.slice(11, 13)}:00 UTC ${v}: ${s[v]}`}</title>
                </rect>
              ) : null;
            })}
            {total > 0 && (
              <text class="value" x={x + w / 2} y={y - 2} text-anchor="middle">
                {total}
              </text>
            )}
            {i % 3 === 0 && (
              <text x={x + w / 2} y={h + 18} text-anchor="middle">
                {s.hour.slice(11, 13)}h
              </text>
            )}
          </a>
        );
      })}
      <text x={left} y={h + 32} class="axis-label">
        hour (UTC); events per hour
      </text>
    </svg>
  );
}

// A count that leads to its events; a difference against the window compared.
const Count = ({ n, href }: { n: number; href?: string }) => (href && n > 0 ? <a href={href}>{n}</a> : <span>{n}</span>);
const delta = (now: number, then: number): string => (now === then ? '±0' : now > then ? `+${now - then}` : `−${then - now}`);

function WhatChanged({ data }: { data: Overview }) {
  const c = data.compare;
  const win = Object.fromEntries(data.windows.map((w) => [w.name, w])) as unknown as Record<WindowName, { from: string; to: string }>;
  const events = (name: WindowName, extra: Record<string, string> = {}) =>
    `/console/events${qs({ ...extra, from: win[name].from, to: win[name].to })}`;
  const resolved = (name: WindowName, review: string) =>
    `/console/events${qs({ review, resolved_from: win[name].from, resolved_to: win[name].to })}`;
  const about = (name: WindowName, feedback: string) =>
    `/console/events${qs({ feedback, feedback_from: win[name].from, feedback_to: win[name].to })}`;
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
    // The last 24 h's clusters and publications are listed below the table (each a link).
    {
      label: 'clusters made (2+ new accounts)',
      get: (n) => c.clusters[n]?.made ?? 0,
      href: (n) => (n === 'today' ? '#clusters-today' : undefined),
    },
    { label: 'clusters grown', get: (n) => c.clusters[n]?.grown ?? 0, href: (n) => (n === 'today' ? '#clusters-today' : undefined) },
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
      {data.clusters_today && (data.clusters_today.made.length > 0 || data.clusters_today.grown.length > 0) && (
        <p id="clusters-today">
          Clusters in the last 24 h:{' '}
          {[
            ...data.clusters_today.made.map((m) => ({ ...m, what: 'new' })),
            ...data.clusters_today.grown.map((g) => ({ ...g, what: `+${g.fresh}` })),
          ].map((x, i) => [
            i > 0 && ', ',
            <a href={`/console/clusters/${encodeURIComponent(x.id)}`}>
              {plural(x.accounts, 'account')} ({x.what})
            </a>,
          ])}
        </p>
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

export function OverviewPage({ me }: { me: Me }) {
  const [data, setData] = useState<Overview | null>(null);
  const [notice, setNotice] = useState('');
  const load = () => api<Overview>('/overview').then(setData);
  useTitle('Overview');
  useEffect(() => {
    void load();
  }, []);
  if (!data) return <p class="loading">Loading the overview…</p>;
  const total = data.verdicts_per_hour.reduce((n, r) => n + r.allow + r.review + r.block, 0);
  const redeliver = async (id: string) => {
    try {
      await api<Redelivered>(`/deliveries/${encodeURIComponent(id)}/redeliver`, { body: {} });
      setNotice(`Delivery ${id} queued again.`);
      await load();
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
  const hook = data.webhook;
  return (
    <div class="overview">
      <h1>
        Overview{' '}
        <span class="muted">
          last {data.hours} h, {me.mode} mode
        </span>
      </h1>
      <div class="cards">
        <WhatChanged data={data} />
        <section class="card">
          <h2>
            Verdicts per hour <span class="muted">(UTC)</span>
          </h2>
          {total === 0 ? (
            <p class="empty">
              No events in the last {data.hours} hours. They appear once your product calls POST /v1/verdict with a {me.mode} key.
            </p>
          ) : (
            <div>
              <HourChart rows={data.verdicts_per_hour} since={data.since} hours={data.hours} />
              <p class="legend">
                <span class="k allow">allow</span>
                <span class="k review">review</span>
                <span class="k block">block</span> {plural(total, 'event')}; click an hour for its events
              </p>
            </div>
          )}
        </section>
        <section class="card">
          <h2>Review backlog</h2>
          <p class="big">{data.backlog.pending}</p>
          <p>
            {data.backlog.pending === 0
              ? 'Nothing waits for a human.'
              : `pending; the oldest waits ${ageSince(data.backlog.oldest_created_at)}.`}{' '}
            <a href="/console/queue">Open the queue</a>
          </p>
        </section>
        <section class="card">
          <h2>Top reason codes</h2>
          {data.top_reasons.length === 0 ? (
            <p class="empty">No reasons fired in the last {data.hours} hours.</p>
          ) : (
            <table class="rows">
              <tbody>
                {data.top_reasons.map((r) => (
                  <tr>
                    <td>
                      <a href={`/console/events${qs({ reason: r.code, from: data.since })}`}>
                        <code>{r.code}</code>
                      </a>
                    </td>
                    <td class="num">
                      <a href={`/console/events${qs({ reason: r.code, from: data.since })}`}>{r.events}</a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section class="card wide">
          <h2>Webhook deliveries</h2>
          {hook.endpoint ? (
            <p>
              To <code>{hook.endpoint.url}</code> {hook.endpoint.enabled ? '' : <span class="flag bad">disabled</span>}
            </p>
          ) : (
            <p class="empty">
              No webhook endpoint for {me.mode}: an operator sets one with <code>doorman webhook set</code>; until then resolutions wait.
            </p>
          )}
          <p>
            Last 24 h: {hook.last_24h.delivered} delivered, {hook.last_24h.pending} pending ({hook.last_24h.retrying} retrying),{' '}
            <strong>{hook.last_24h.failed} failed</strong>.
          </p>
          {notice && (
            <p class="notice" role="status">
              {notice}
            </p>
          )}
          {hook.failed.length === 0 ? (
            <p class="muted">No failed deliveries.</p>
          ) : (
            <table class="rows failed">
              <thead>
                <tr>
                  <th>Created</th>
                  <th>Delivery</th>
                  <th>Event</th>
                  <th>Attempts</th>
                  <th>Last answer</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {hook.failed.map((d) => (
                  <tr>
                    <td>{when(d.created_at)}</td>
                    <td>
                      <code>{d.delivery_id}</code>
                    </td>
                    <td>
                      <a href={`/console/events/${encodeURIComponent(d.event_id)}`}>{d.event_id}</a>
                    </td>
                    <td class="num">{d.attempts}</td>
                    <td>{d.last_status_code ?? d.last_error ?? '–'}</td>
                    <td>
                      {me.role === 'admin' ? (
                        <button type="button" onClick={() => void redeliver(d.delivery_id)}>
                          Redeliver
                        </button>
                      ) : (
                        <span class="muted">admins redeliver</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </div>
    </div>
  );
}
