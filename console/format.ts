// How times, ages and values read in the console.
export function age(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
  return `${Math.floor(seconds / 86400)}d ${Math.floor((seconds % 86400) / 3600)}h`;
}

export const ageSince = (iso: string | number | null | undefined): string =>
  iso === null || iso === undefined ? '–' : age(Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000)));

export function when(iso: string | number | null | undefined): string {
  if (iso === null || iso === undefined) return '–';
  const d = new Date(iso);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)} UTC`;
}

export const scalar = (v: unknown): string => (v === null || v === undefined ? '–' : typeof v === 'object' ? JSON.stringify(v) : String(v));
