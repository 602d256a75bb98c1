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

/** Bytes in binary units: `512 B`, `1.5 KiB`, `3.2 MiB`, `1.1 GiB`. */
export function formatSize(n: number): string {
  const a = Math.abs(n);
  if (a >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (a >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (a >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${Math.round(n)} B`;
}

const TIME_US: Record<string, number> = {
  nanoseconds: 0.001,
  microseconds: 1,
  milliseconds: 1000,
  seconds: 1e6,
};

/** What one sample type measures, enough to format its values: pprof's `{type, unit}`. */
export interface ValueKind {
  sampleType: { type: string; unit: string };
  /** µs per unit of weight for count columns with a time period (gperftools: the period). */
  periodUs: number;
}

/**
 * A weight in its unit: `1,234 samples · 12.3 ms` (counts with a known period), `1.5 MiB`,
 * `350 ms` (time units), `12 objects`, `4,000 cycles`.
 */
export function formatValue(v: number, k: ValueKind): string {
  const { type, unit } = k.sampleType;
  const u = unit.toLowerCase();
  if (u === 'bytes') return formatSize(v);
  if (TIME_US[u] !== undefined) return formatTime(v * TIME_US[u]);
  const noun = type === 'samples' || u === '' ? 'samples' : /objects$/.test(type) ? 'objects' : type;
  const count = `${formatCount(v)} ${noun}`;
  return k.periodUs > 0 ? `${count} · ${formatTime(v * k.periodUs)}` : count;
}

/** A signed change in the value's unit: `+1.2 MiB`, `−35 samples`. */
export function formatDelta(v: number, k: ValueKind): string {
  const sign = v > 0 ? '+' : v < 0 ? '−' : '±';
  return `${sign}${formatValue(Math.abs(v), k)}`;
}
