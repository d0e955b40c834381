// A small SVG line chart of latency percentiles against request rate, verdict beside floor.
export interface Series {
  label: string;
  colour: string;
  dash?: string;
  points: { x: number; y: number }[];
}

export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  const W = 720,
    H = 420,
    L = 70,
    R = 190,
    T = 40,
    B = 60;
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const ys = series.flatMap((s) => s.points.map((p) => p.y));
  const xMax = Math.max(...xs, 1);
  const yMax = Math.max(...ys, 1) * 1.1;
  const px = (x: number) => L + (x / xMax) * (W - L - R);
  const py = (y: number) => H - B - (y / yMax) * (H - T - B);
  const ticks = 5;
  const grid = Array.from({ length: ticks + 1 }, (_, i) => {
    const v = (yMax / ticks) * i;
    return `<line x1="${L}" x2="${W - R}" y1="${py(v)}" y2="${py(v)}" stroke="#ddd"/><text x="${L - 8}" y="${py(v) + 4}" text-anchor="end" font-size="11">${v.toFixed(1)}</text>`;
  }).join('');
  const xTicks = [...new Set(xs)]
    .sort((a, b) => a - b)
    .map((x) => `<text x="${px(x)}" y="${H - B + 18}" text-anchor="middle" font-size="11">${x}</text>`)
    .join('');
  const lines = series
    .map((s, i) => {
      const d = s.points.map((p, j) => `${j ? 'L' : 'M'}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
      const dots = s.points.map((p) => `<circle cx="${px(p.x)}" cy="${py(p.y)}" r="3" fill="${s.colour}"/>`).join('');
      const legendY = T + 16 * i;
      return (
        `<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>${dots}` +
        `<line x1="${W - R + 15}" x2="${W - R + 40}" y1="${legendY}" y2="${legendY}" stroke="${s.colour}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>` +
        `<text x="${W - R + 46}" y="${legendY + 4}" font-size="12">${s.label}</text>`
      );
    })
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${L}" y="22" font-size="15" font-weight="bold">${title}</text>
${grid}${xTicks}
<line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#333"/><line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#333"/>
<text x="${(L + W - R) / 2}" y="${H - 15}" text-anchor="middle" font-size="12">${xLabel}</text>
<text x="18" y="${(T + H - B) / 2}" text-anchor="middle" font-size="12" transform="rotate(-90 18 ${(T + H - B) / 2})">${yLabel}</text>
${lines}
</svg>
`;
}
