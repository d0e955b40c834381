// The overview of the selected mode: verdicts per hour by outcome, top reason codes, the review
// backlog and its age, webhook delivery health with a redeliver button for failed deliveries.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { ageSince, when } from './format';
import type { Me } from './types';

interface Overview {
  since: string;
  hours: number;
  verdicts_per_hour: { hour: string; allow: number; review: number; block: number }[];
  top_reasons: { code: string; events: number }[];
  backlog: { pending: number; oldest_created_at: string | null };
  webhook: {
    endpoint: { url: string; enabled: boolean } | null;
    last_24h: { pending: number; delivered: number; failed: number; retrying: number };
    failed: { delivery_id: string; event_id: string; attempts: number; last_status_code: number | null; last_error: string | null; created_at: string }[];
  };
}

function HourChart({ rows, since, hours }: { rows: Overview['verdicts_per_hour']; since: string; hours: number }) {
  const start = new Date(since);
  start.setUTCMinutes(0, 0, 0);
  const slots = Array.from({ length: hours + 1 }, (_, i) => {
    const hour = new Date(start.getTime() + i * 3_600_000).toISOString();
    return rows.find((r) => r.hour === hour) ?? { hour, allow: 0, review: 0, block: 0 };
  });
  const max = Math.max(1, ...slots.map((s) => s.allow + s.review + s.block));
  const w = 24;
  const h = 140;
  return (
    <svg class="chart" viewBox={`0 0 ${slots.length * w} ${h + 18}`} role="img" aria-label="verdicts per hour">
      {slots.map((s, i) => {
        let y = h;
        return (
          <g>
            {(['allow', 'review', 'block'] as const).map((v) => {
              const bar = (s[v] / max) * h;
              y -= bar;
              return bar > 0 ? <rect class={`bar-${v}`} x={i * w + 3} y={y} width={w - 6} height={bar}><title>{`${s.hour.slice(11, 13)}:00 ${v}: ${s[v]}`}</title></rect> : null;
            })}
            {i % 3 === 0 && <text x={i * w + w / 2} y={h + 14} text-anchor="middle">{s.hour.slice(11, 13)}h</text>}
          </g>
        );
      })}
    </svg>
  );
}

export function OverviewPage({ me }: { me: Me }) {
  const [data, setData] = useState<Overview | null>(null);
  const [notice, setNotice] = useState('');
  const load = () => api<Overview>('/overview').then(setData);
  useEffect(() => void load(), []);
  if (!data) return <p class="loading">Loading the overview…</p>;
  const total = data.verdicts_per_hour.reduce((n, r) => n + r.allow + r.review + r.block, 0);
  const redeliver = async (id: string) => {
    try {
      await api(`/deliveries/${encodeURIComponent(id)}/redeliver`, { body: {} });
      setNotice(`Delivery ${id} queued again.`);
      await load();
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
  const hook = data.webhook;
  return (
    <div class="overview">
      <h1>Overview <span class="muted">last {data.hours} h, {me.mode} mode</span></h1>
      <div class="cards">
        <section class="card">
          <h2>Verdicts per hour</h2>
          {total === 0 ? <p class="empty">No events in the last {data.hours} hours. They appear once your product calls POST /v1/verdict with a {me.mode} key.</p> : (
            <div><HourChart rows={data.verdicts_per_hour} since={data.since} hours={data.hours} />
              <p class="legend"><span class="k allow">allow</span><span class="k review">review</span><span class="k block">block</span> {total} events</p></div>
          )}
        </section>
        <section class="card">
          <h2>Review backlog</h2>
          <p class="big">{data.backlog.pending}</p>
          <p>{data.backlog.pending === 0 ? 'Nothing waits for a human.' : `pending; the oldest waits ${ageSince(data.backlog.oldest_created_at)}.`} <a href="/console/queue">Open the queue</a></p>
        </section>
        <section class="card">
          <h2>Top reason codes</h2>
          {data.top_reasons.length === 0 ? <p class="empty">No reasons fired in the last {data.hours} hours.</p> : (
            <table class="rows"><tbody>{data.top_reasons.map((r) => <tr><td><code>{r.code}</code></td><td class="num">{r.events}</td></tr>)}</tbody></table>
          )}
        </section>
        <section class="card wide">
          <h2>Webhook deliveries</h2>
          {hook.endpoint ? <p>To <code>{hook.endpoint.url}</code> {hook.endpoint.enabled ? '' : <span class="flag bad">disabled</span>}</p> : <p class="empty">No webhook endpoint for {me.mode}: an operator sets one with <code>doorman webhook set</code>; until then resolutions wait.</p>}
          <p>Last 24 h: {hook.last_24h.delivered} delivered, {hook.last_24h.pending} pending ({hook.last_24h.retrying} retrying), <strong>{hook.last_24h.failed} failed</strong>.</p>
          {notice && <p class="notice" role="status">{notice}</p>}
          {hook.failed.length === 0 ? <p class="muted">No failed deliveries.</p> : (
            <table class="rows failed"><thead><tr><th>Created</th><th>Delivery</th><th>Event</th><th>Attempts</th><th>Last answer</th><th /></tr></thead>
              <tbody>{hook.failed.map((d) => (
                <tr><td>{when(d.created_at)}</td><td><code>{d.delivery_id}</code></td><td><a href={`/console/events/${encodeURIComponent(d.event_id)}`}>{d.event_id}</a></td><td class="num">{d.attempts}</td>
                  <td>{d.last_status_code ?? d.last_error ?? '–'}</td>
                  <td>{me.role === 'admin' ? <button type="button" onClick={() => void redeliver(d.delivery_id)}>Redeliver</button> : <span class="muted">admins redeliver</span>}</td></tr>
              ))}</tbody></table>
          )}
        </section>
      </div>
    </div>
  );
}
