// The overview of the selected mode: "What changed?" (what-changed.tsx), then verdicts per hour
// (hour-chart.tsx), the review backlog, the top reason codes and webhook delivery health with a
// redeliver button for failed deliveries.
import { useEffect, useState } from 'preact/hooks';
import { api, qs } from './api';
import { ageSince, plural, useTitle, when } from './format';
import { HourChart } from './hour-chart';
import { WhatChanged } from './what-changed';
import type { Me, Overview, Redelivered } from './types';

export function OverviewPage({ me }: { me: Me }) {
  const [data, setData] = useState<Overview | null>(null);
  const [notice, setNotice] = useState('');
  const load = () => api<Overview>('/overview').then(setData);
  useTitle('Overview');
  useEffect(() => {
    void load();
  }, []);
  if (!data) return <p class="loading">Loading the overview…</p>;
  const redeliver = async (id: string) => {
    try {
      await api<Redelivered>(`/deliveries/${encodeURIComponent(id)}/redeliver`, { body: {} });
      setNotice(`Delivery ${id} queued again.`);
      await load();
    } catch (e) {
      setNotice((e as Error).message);
    }
  };
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
        <VerdictsCard data={data} me={me} />
        <BacklogCard backlog={data.backlog} />
        <TopReasonsCard data={data} />
        <WebhookCard hook={data.webhook} me={me} notice={notice} onRedeliver={redeliver} />
      </div>
    </div>
  );
}

// Verdicts per hour over the overview's hours, as a chart whose hours link to their events.
function VerdictsCard({ data, me }: { data: Overview; me: Me }) {
  const total = data.verdicts_per_hour.reduce((n, r) => n + r.allow + r.review + r.block, 0);
  return (
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
  );
}

// How many reviews wait for a human, and how long the oldest has waited.
function BacklogCard({ backlog }: { backlog: Overview['backlog'] }) {
  return (
    <section class="card">
      <h2>Review backlog</h2>
      <p class="big">{backlog.pending}</p>
      <p>
        {backlog.pending === 0 ? 'Nothing waits for a human.' : `pending; the oldest waits ${ageSince(backlog.oldest_created_at)}.`}{' '}
        <a href="/console/queue">Open the queue</a>
      </p>
    </section>
  );
}

// The reason codes that fired most over the overview's hours, each a link to its events.
function TopReasonsCard({ data }: { data: Overview }) {
  return (
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
  );
}

// Webhook delivery health: the endpoint, the last 24 h's counts, what a redelivery did, and the
// failed deliveries.
function WebhookCard({
  hook,
  me,
  notice,
  onRedeliver,
}: {
  hook: Overview['webhook'];
  me: Me;
  notice: string;
  onRedeliver: (id: string) => Promise<void>;
}) {
  return (
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
        <FailedDeliveries failed={hook.failed} admin={me.role === 'admin'} onRedeliver={onRedeliver} />
      )}
    </section>
  );
}

// The failed deliveries, each with its event and last answer; an admin can redeliver one.
function FailedDeliveries({
  failed,
  admin,
  onRedeliver,
}: {
  failed: Overview['webhook']['failed'];
  admin: boolean;
  onRedeliver: (id: string) => Promise<void>;
}) {
  return (
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
        {failed.map((d) => (
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
              {admin ? (
                <button type="button" onClick={() => void onRedeliver(d.delivery_id)}>
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
  );
}
