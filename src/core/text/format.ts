// Number, time and size formatting shared by the views, the exports and the CLI.

/** One formatter: toLocaleString builds a new one per call (tens of µs, on every render). */
const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function formatCount(n: number): string {
  return COUNT.format(Math.round(n));
}

export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '–';
  const p = (100 * part) / whole;
  return `${p >= 10 ? p.toFixed(1) : p.toFixed(2)} %`;
}

/** Microseconds to a readable duration. */
export function formatTime(us: number): string {
  if (us >= 60e6) return `${(us / 60e6).toFixed(2)} min`;
  if (us >= 1e6) return `${(us / 1e6).toFixed(2)} s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(1)} ms`;
  return `${Math.round(us)} µs`;
}

export function formatBytes(n: number): string {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} kB`;
  return `${n} bytes`;
}
