// Writes the soak's figures: per process, resident memory and connections at the start and end
// of the measured window, their fitted trend, and a plain verdict; per minute, the load's
// throughput, latency and errors. Markdown to SOAK_OUT (default docs/soak.md), raw samples beside it as CSV.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoDir } from '../src/config.js';
import { slopePerHour, type ProcessSample } from './soak-sampler.js';

export interface Minute {
  sent: number;
  statuses: Record<string, number>;
  latencies: number[];
}

// The first fifth is warm-up (caches, pools, JIT filling): trends are fitted on the rest.
const WARM_UP = 0.2;
// Flat: the fitted change over the measured window stays under 5% of the mean.
const FLAT_SHARE = 0.05;

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]!) : 0;
};
const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);

export function processRow(name: string, all: ProcessSample[]): string[] {
  const measured = all.slice(Math.floor(all.length * WARM_UP));
  if (measured.length < 10) return [`| ${name} | too few samples | | | | | | | |`];
  const hours = (measured.at(-1)!.at - measured[0]!.at) / 3_600_000;
  const mean = measured.reduce((a, s) => a + s.rssMb, 0) / measured.length;
  const rssSlope = slopePerHour(measured.map((s) => ({ x: s.at, y: s.rssMb })));
  const conns = measured.map((s) => total(s.connections));
  const connSlope = slopePerHour(measured.map((s, i) => ({ x: s.at, y: conns[i]! })));
  // RSS of a garbage-collected process is a sawtooth, and a straight line fitted through it
  // follows wherever the teeth happen to fall. What a leak raises is the floor (the lowest RSS,
  // after a collection) and the ceiling: the lowest and highest sample of each fifth of the
  // window. Memory is flat unless both rise by 5% of the mean or more from the first fifth to the last.
  const fifths = Array.from({ length: 5 }, (_, i) =>
    measured.slice(Math.floor((i * measured.length) / 5), Math.floor(((i + 1) * measured.length) / 5)).map((s) => s.rssMb),
  );
  const floors = fifths.map((f) => Math.min(...f));
  const ceilings = fifths.map((f) => Math.max(...f));
  const rssFlat = floors.at(-1)! - floors[0]! < FLAT_SHARE * mean || ceilings.at(-1)! - ceilings[0]! < FLAT_SHARE * mean;
  const connFlat = Math.max(...conns) - Math.min(...conns) <= 2 || connSlope * hours <= 1;
  const ports = [...new Set(measured.flatMap((s) => Object.keys(s.connections)))]
    .sort()
    .map((p) => `${p}: ${measured[0]!.connections[p] ?? 0}→${measured.at(-1)!.connections[p] ?? 0}`)
    .join(', ');
  return [
    `| ${name} | ${measured[0]!.rssMb} → ${measured.at(-1)!.rssMb} (max ${Math.max(...measured.map((s) => s.rssMb))}) | ${floors.join(', ')} | ${ceilings.join(', ')} | ${rssSlope.toFixed(1)} MB/h ` +
      `| ${conns[0]} → ${conns.at(-1)} (max ${Math.max(...conns)}; ${ports}) | ${measured[0]!.fds} → ${measured.at(-1)!.fds} ` +
      `| ${rssFlat ? 'flat' : 'GROWING'} | ${connFlat ? 'flat' : 'GROWING'} |`,
  ];
}

export function writeSoakReport(run: {
  minutes: number;
  rate: number;
  seconds: number;
  samples: Record<string, ProcessSample[]>;
  perMinute: Minute[];
}): string {
  const out = path.resolve(repoDir, process.env.SOAK_OUT ?? 'docs/soak.md');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const all = run.perMinute.flatMap((m) => m.latencies);
  const statuses = run.perMinute.reduce<Record<string, number>>((acc, m) => {
    for (const [k, v] of Object.entries(m.statuses)) acc[k] = (acc[k] ?? 0) + v;
    return acc;
  }, {});
  const lines = [
    '# Soak',
    '',
    ...(run.minutes < 30
      ? [`**A ${run.minutes}-minute run, not the 30-minute soak: it shows the harness works; its trends mean little.**`, '']
      : []),
    `Produced by \`npm run soak\` (\`bench/soak.ts\`): ${run.minutes} min at ${run.rate} req/s of the benchmark's traffic mix against one ` +
      '`doorman serve --no-worker` and one `doorman worker`, on the local stack, every process sampled from /proc every 10 s. ' +
      `The first ${WARM_UP * 100}% of the samples are warm-up. Memory is "flat" unless both the floor (the lowest RSS of each fifth ` +
      `of the rest, after a collection) and the ceiling (the highest) rise by ${FLAT_SHARE * 100}% of the mean or more from the first fifth ` +
      'to the last: RSS of a garbage-collected process is a sawtooth, and a least-squares line through it (shown too) follows where the teeth fall. ' +
      'Connections are "flat" within 2 of each other or under one added per window.',
    '',
    `Run: ${new Date().toISOString()}, ${Math.round(run.seconds)} s, ${os.cpus().length} cores, load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}.`,
    '',
    `Requests: ${total(statuses)} (${JSON.stringify(statuses)}), sent at ${Math.round(total(statuses) / run.seconds)} req/s on average ` +
      `(at most 256 in flight: a machine too slow for the rate lowers it), latency from each request's scheduled time ` +
      `p50 ${pct(all, 0.5)} ms, p99 ${pct(all, 0.99)} ms, max ${pct(all, 1)} ms.`,
    '',
    '## Processes',
    '',
    '| process | RSS MB (start → end of window) | RSS floor per fifth | RSS ceiling per fifth | fitted line | TCP connections (by far port) | open fds | memory | connections |',
    '|---|---|---|---|---|---|---|---|---|',
    ...Object.entries(run.samples).flatMap(([name, s]) => processRow(name, s)),
    '',
    '## Per minute',
    '',
    '| minute | sent | ok | errors | p50 ms | p99 ms |',
    '|---|---|---|---|---|---|',
    ...run.perMinute.map(
      (m, i) =>
        `| ${i + 1} | ${m.sent} | ${m.statuses['200'] ?? 0} | ${m.sent - (m.statuses['200'] ?? 0)} | ${pct(m.latencies, 0.5)} | ${pct(m.latencies, 0.99)} |`,
    ),
    '',
    `Raw samples: \`${path.basename(out, '.md')}-samples.csv\`.`,
    '',
  ];
  fs.writeFileSync(out, lines.join('\n'));
  const csv = [
    'process,at,rss_mb,fds,connections',
    ...Object.entries(run.samples).flatMap(([name, s]) =>
      s.map((x) => `${name},${new Date(x.at).toISOString()},${x.rssMb},${x.fds},"${JSON.stringify(x.connections).replaceAll('"', "'")}"`),
    ),
  ];
  fs.writeFileSync(out.replace(/\.md$/, '-samples.csv'), `${csv.join('\n')}\n`);
  return out;
}
