// Verdicts per hour on the overview: stacked bars (allow, review, block) on a round scale with
// axes and values. Every hour is a UTC hour with its own tick under its bar (labelled every three
// hours, at 00, 03, 06 … UTC), and its whole column, label included, is one link to the events
// of exactly that hour.
import { qs } from './api';
import type { Overview } from './types';

const HOUR = 3_600_000;

export function HourChart({ rows, since, hours }: { rows: Overview['verdicts_per_hour']; since: string; hours: number }) {
  const start = Math.floor(Date.parse(since) / HOUR) * HOUR;
  const slots = Array.from({ length: hours + 1 }, (_, i) => {
    const hour = new Date(start + i * HOUR).toISOString();
    return rows.find((r) => Date.parse(r.hour) === Date.parse(hour)) ?? { hour, allow: 0, review: 0, block: 0 };
  });
  const top = Math.max(1, ...slots.map((s) => s.allow + s.review + s.block));
  // A round scale: 1, 2, 5 x 10^n at or above the busiest hour, four grid lines.
  const unit = 10 ** Math.floor(Math.log10(top));
  const max = [1, 2, 5, 10].map((m) => m * unit).find((m) => m >= top)!;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => Math.round(max * t * 100) / 100);
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
      {slots.map((s, i) => (
        <HourColumn slot={s} x={left + i * w} w={w} h={h} max={max} />
      ))}
      <text x={left} y={h + 32} class="axis-label">
        hour (UTC); events per hour
      </text>
    </svg>
  );
}

// One hour: its stacked bars, its total above them, its tick and (every third hour) its label,
// over a transparent column that makes all of it the link.
function HourColumn({
  slot: s,
  x,
  w,
  h,
  max,
}: {
  slot: Overview['verdicts_per_hour'][number];
  x: number;
  w: number;
  h: number;
  max: number;
}) {
  const total = s.allow + s.review + s.block;
  const to = new Date(Date.parse(s.hour) + HOUR).toISOString();
  const hh = s.hour.slice(11, 13);
  const centre = x + w / 2;
  let y = h + 4;
  const bars = (['allow', 'review', 'block'] as const).map((v) => {
    const bar = (s[v] / max) * h;
    y -= bar;
    return bar > 0 ? <rect class={`bar-${v}`} x={x + 3} y={y} width={w - 6} height={bar} /> : null;
  });
  return (
    <a class="hour" href={`/console/events${qs({ from: s.hour, to })}`} data-hour={s.hour}>
      <title>{`${hh}:00–${to.slice(11, 13)}:00 UTC: ${total} events (allow ${s.allow}, review ${s.review}, block ${s.block})`}</title>
      <rect class="hit" x={x} y={0} width={w} height={h + 22} />
      {bars}
      {total > 0 && (
        <text class="value" x={centre} y={y - 2} text-anchor="middle">
          {total}
        </text>
      )}
      <line class="hour-tick" x1={centre} x2={centre} y1={h + 4} y2={h + 8} />
      {Number(hh) % 3 === 0 && (
        <text class="hour-label" x={centre} y={h + 18} text-anchor="middle">
          {hh}:00
        </text>
      )}
    </a>
  );
}
