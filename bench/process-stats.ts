// CPU and memory of one process, sampled from /proc while a load runs (Linux only).
import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

function cpuTicks(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

export function sampleProcess(pid: number): () => { cpuPercent: number; cpuSeconds: number; rssMbMax: number } {
  const startTicks = cpuTicks(pid);
  const start = performance.now();
  let rssMax = rssMb(pid);
  const timer = setInterval(() => {
    rssMax = Math.max(rssMax, rssMb(pid));
  }, 500);
  return () => {
    clearInterval(timer);
    const seconds = (performance.now() - start) / 1000;
    const cpuSeconds = (cpuTicks(pid) - startTicks) / TICKS_PER_SECOND;
    return { cpuPercent: Math.round((cpuSeconds / seconds) * 100), cpuSeconds, rssMbMax: Math.round(Math.max(rssMax, rssMb(pid))) };
  };
}
