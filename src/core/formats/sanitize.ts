// What every reader's profile must hold before anything reads it further: values that are numbers
// a writer can write again, and mappings inside 64 bits. A file may say a count of 320 digits
// (Infinity once read), NaN, or a mapping offset past 2^64: such a sample or mapping is left out
// here, with a warning, so that no writer (pprof's int64s, a snapshot, folded text, a report) ever
// meets it (`BigInt(Infinity)` threw in the pprof export).

import type { RawProfile } from '../types.ts';

/** The largest magnitude a value may have: what pprof's int64 values hold (below 2^63). */
const MAX_VALUE = 2 ** 63 - 1024;
const MAX_ADDRESS = (1n << 64n) - 1n;

/** A finite number within int64's range (NaN fails both comparisons). */
const usable = (v: number) => v <= MAX_VALUE && v >= -MAX_VALUE;

/** The profile without the samples whose values are not usable numbers and the mappings past 64 bits. */
export function usableValues(raw: RawProfile): RawProfile {
  const s = raw.samples;
  const cols = s.values ?? [s.weight];
  let bad = -1;
  for (const c of cols) {
    for (let i = 0; i < s.count; i++) {
      if (!usable(c[i])) {
        bad = i;
        break;
      }
    }
    if (bad >= 0) break;
  }
  if (bad >= 0) dropSamples(raw, cols);
  // The period, said in the metadata: a writer writes it as a number too.
  const period = raw.meta.period;
  if (period !== undefined && !usable(period.value)) {
    raw.warnings.push({ message: `the period (${period.value}) is not a usable number: left out` });
    const { period: _, ...rest } = raw.meta;
    raw.meta = rest;
  }
  if (!Number.isFinite(raw.meta.periodUs)) {
    raw.warnings.push({ message: `the period (${raw.meta.periodUs} µs) is not a usable number: left out` });
    raw.meta = { ...raw.meta, periodUs: 0 };
  }
  const mappings = raw.meta.mappings;
  const inRange = (x: bigint) => x >= 0n && x <= MAX_ADDRESS;
  const kept = mappings.filter((m) => inRange(m.start) && inRange(m.end) && inRange(m.offset));
  if (kept.length < mappings.length) {
    const first = mappings.find((m) => !kept.includes(m));
    raw.warnings.push({
      message: `${mappings.length - kept.length} mapping${mappings.length - kept.length === 1 ? '' : 's'} left out: an address or offset beyond 64 bits (${first?.path || 'the first'})`,
    });
    raw.meta = { ...raw.meta, mappings: kept };
  }
  return raw;
}

/**
 * A warning when the profile has nothing to draw: no sample, or samples whose every value is 0 (a
 * gperftools file of a header and trailer, a DCPI file of no chunks, folded lines counting 0). The
 * views would show an empty graph with no word of why. A profile some value column of which is not
 * all 0 (a heap profile whose allocations were all freed: its in-use columns 0, its alloc ones not)
 * has something to show under another sample type: no warning.
 */
export function sayNoSamples(raw: RawProfile): RawProfile {
  const s = raw.samples;
  for (const c of s.values ?? [s.weight]) for (let i = 0; i < s.count; i++) if (c[i] !== 0) return raw;
  raw.warnings.push({
    message:
      s.count === 0
        ? 'the profile holds no samples: there is nothing to draw'
        : `the profile's ${s.count} sample${s.count === 1 ? '' : 's'} all count 0: there is nothing to draw`,
  });
  return raw;
}

function dropSamples(raw: RawProfile, cols: Float64Array[]): void {
  const s = raw.samples;
  const keep = new Uint8Array(s.count);
  let first = -1;
  let dropped = 0;
  for (let i = 0; i < s.count; i++) {
    let ok = true;
    for (const c of cols) if (!usable(c[i])) ok = false;
    if (ok) keep[i] = 1;
    else {
      dropped++;
      if (first < 0) first = i;
    }
  }
  const n = s.count - dropped;
  const start = new Uint32Array(n + 1);
  let entries = 0;
  for (let i = 0; i < s.count; i++) if (keep[i]) entries += s.stackStart[i + 1] - s.stackStart[i];
  const locs = new Uint32Array(entries);
  const pick = <T extends Float64Array | Int32Array>(c: T, make: (n: number) => T): T => {
    const out = make(n);
    for (let i = 0, k = 0; i < s.count; i++) if (keep[i]) out[k++] = c[i];
    return out;
  };
  for (let i = 0, k = 0, at = 0; i < s.count; i++) {
    if (!keep[i]) continue;
    const a = s.stackStart[i];
    const b = s.stackStart[i + 1];
    locs.set(s.stackLocs.subarray(a, b), at);
    at += b - a;
    start[++k] = at;
  }
  const f64 = (m: number) => new Float64Array(m);
  const values = s.values?.map((c) => pick(c, f64));
  const weight = values ? (values[cols.indexOf(s.weight)] ?? pick(s.weight, f64)) : pick(s.weight, f64);
  raw.samples = {
    count: n,
    stackStart: start,
    stackLocs: locs,
    weight,
    ...(values && { values }),
    ...(s.time && { time: pick(s.time, f64) }),
  };
  if (raw.labels)
    raw.labels = raw.labels.map((l) =>
      l.kind === 'string'
        ? { ...l, value: pick(l.value, (m) => new Int32Array(m)) }
        : { ...l, value: pick(l.value, f64) },
    );
  raw.warnings.push({
    message: `${dropped} sample${dropped === 1 ? '' : 's'} left out: a value that is not a number or is beyond ±2^63 (the first: sample ${first + 1})`,
  });
}
