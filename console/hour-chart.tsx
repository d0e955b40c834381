// Verdicts per hour on the overview: stacked bars (allow, review, block) on a round scale with
// axes and values, each hour a link to its events.
import { qs } from './api';
import type { Overview } from './types';

export function HourChart({ rows, since, hours }: { rows: Overview['verdicts_per_hour']; since: string; hours: number }) {
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
