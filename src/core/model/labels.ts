// Per-sample labels (RawProfile.labels: pprof's Sample.label, perf script's comm/pid/tid, heap
// profiles' `bytes`): which samples label filters keep (pprof's -tagfocus/-tagignore), the root
// frame a "group by label" gives each sample (`key=value`), and a summary of the values for a
// picker. Labels are per sample, so the fold applies them (fold.ts) before identical stacks merge.
// Semantics, and where they differ from pprof: docs/labels.md.

import type { LabelFilter, LabelRangeFilter, RawProfile, SampleLabel } from '../types.ts';

/** The value of the root frame of the samples that lack the group-by key: `key=(none)`. */
export const NO_LABEL = '(none)';

export function isRangeFilter(f: LabelFilter): f is LabelRangeFilter {
  return !('values' in f);
}

/** The label column for `key`, if the profile has one. */
export function labelColumn(raw: Pick<RawProfile, 'labels'>, key: string): SampleLabel | undefined {
  return raw.labels?.find((l) => l.key === key);
}

/** A label's text as a number (a numeric string label: perf's pid/tid); NaN when it is not one. */
function numberOf(text: string): number {
  const t = text.trim();
  return t === '' ? Number.NaN : Number(t);
}

/** Whether label value `x` (a number, never NaN) satisfies the filter's values or range. */
function numberMatches(f: LabelFilter, x: number, wanted: Set<number>): boolean {
  if (!isRangeFilter(f)) return wanted.has(x);
  return (f.min === undefined || x >= f.min) && (f.max === undefined || x <= f.max);
}

/**
 * Which samples `filters` keep: 1 kept, 0 dropped; null when there are no filters. Focus filters
 * must all hold, any ignore filter that matches drops. A sample without the key fails a focus and
 * passes an ignore; a key the profile does not have is reported in `warnings`.
 */
export function labelKeepMask(
  raw: Pick<RawProfile, 'labels' | 'strings' | 'samples'>,
  filters: readonly LabelFilter[] | undefined,
): { keep: Uint8Array | null; warnings: string[] } {
  const warnings: string[] = [];
  if (!filters || filters.length === 0) return { keep: null, warnings };
  const n = raw.samples.count;
  const keep = new Uint8Array(n).fill(1);
  for (const f of filters) {
    const focus = f.op === 'focus';
    const col = labelColumn(raw, f.key);
    if (!col) {
      warnings.push(
        `label filter ${describeFilter(f)}: the profile has no label "${f.key}"${focus ? ' (no sample kept)' : ''}`,
      );
      if (focus) keep.fill(0);
      continue;
    }
    const wantedStrings = new Set(isRangeFilter(f) ? [] : f.values);
    const wantedNumbers = new Set<number>();
    if (!isRangeFilter(f)) {
      for (const v of f.values) {
        const x = numberOf(v);
        if (!Number.isNaN(x)) wantedNumbers.add(x);
      }
    }
    if (col.kind === 'string') {
      // Per string index: 0 not decided yet, 1 matches, 2 does not.
      const decided = new Uint8Array(raw.strings.length);
      const v = col.value;
      for (let s = 0; s < n; s++) {
        const i = v[s];
        let hit: boolean;
        if (i < 0) hit = false;
        else {
          let d = decided[i];
          if (d === 0) {
            const text = raw.strings[i];
            let m: boolean;
            if (isRangeFilter(f)) {
              const x = numberOf(text);
              m = !Number.isNaN(x) && numberMatches(f, x, wantedNumbers);
            } else m = wantedStrings.has(text);
            d = m ? 1 : 2;
            decided[i] = d;
          }
          hit = d === 1;
        }
        if (focus ? !hit : hit) keep[s] = 0;
      }
    } else {
      const v = col.value;
      for (let s = 0; s < n; s++) {
        const x = v[s];
        const hit = !Number.isNaN(x) && numberMatches(f, x, wantedNumbers);
        if (focus ? !hit : hit) keep[s] = 0;
      }
    }
  }
  return { keep, warnings };
}

/** A label value as text: the string, or the number as JavaScript writes it (no unit). */
export function labelValueText(col: SampleLabel, strings: readonly string[], s: number): string | null {
  if (col.kind === 'string') {
    const i = col.value[s];
    return i < 0 ? null : strings[i];
  }
  const x = col.value[s];
  return Number.isNaN(x) ? null : String(x);
}

/**
 * The group-by root frame of each sample: `intern('key=value')`, or `intern('key=(none)')` where
 * the sample lacks the key (every sample, when the profile has no such label: then `warning`).
 * Samples that `keep` (labelKeepMask) drops get -1, and intern nothing.
 */
export function groupFrames(
  raw: Pick<RawProfile, 'labels' | 'strings' | 'samples'>,
  key: string,
  intern: (name: string) => number,
  keep: Uint8Array | null = null,
): { frame: Int32Array; warning?: string } {
  const n = raw.samples.count;
  const col = labelColumn(raw, key);
  const frame = new Int32Array(n).fill(-1);
  let noneId = -1;
  const none = () => {
    if (noneId < 0) noneId = intern(`${key}=${NO_LABEL}`);
    return noneId;
  };
  if (!col) {
    for (let s = 0; s < n; s++) if (keep === null || keep[s] !== 0) frame[s] = none();
    return {
      frame,
      warning: `group by label "${key}": the profile has no such label (one root, ${key}=${NO_LABEL})`,
    };
  }
  if (col.kind === 'string') {
    const ids = new Int32Array(raw.strings.length).fill(-1);
    const v = col.value;
    for (let s = 0; s < n; s++) {
      if (keep !== null && keep[s] === 0) continue;
      const i = v[s];
      if (i < 0) frame[s] = none();
      else {
        let id = ids[i];
        if (id < 0) {
          id = intern(`${key}=${raw.strings[i]}`);
          ids[i] = id;
        }
        frame[s] = id;
      }
    }
  } else {
    const ids = new Map<number, number>();
    const v = col.value;
    for (let s = 0; s < n; s++) {
      if (keep !== null && keep[s] === 0) continue;
      const x = v[s];
      if (Number.isNaN(x)) frame[s] = none();
      else {
        let id = ids.get(x);
        if (id === undefined) {
          id = intern(`${key}=${String(x)}`);
          ids.set(x, id);
        }
        frame[s] = id;
      }
    }
  }
  return { frame };
}

export interface LabelValueCount {
  value: string;
  samples: number;
  weight: number;
}

export interface LabelSummary {
  key: string;
  kind: 'string' | 'number';
  unit?: string;
  /** Samples that carry the key, and their weight. */
  samples: number;
  weight: number;
  /** How many distinct values the key has (`values` may hold fewer). */
  distinct: number;
  /** The heaviest values (by weight, then samples, then value), at most `limit`. */
  values: LabelValueCount[];
  /** Numeric labels: the smallest and largest value. */
  min?: number;
  max?: number;
}

/**
 * Every label key of a profile with its heaviest values, for a picker (and `flamelens info`).
 * `weight` defaults to the profile's default value column.
 */
export function labelSummary(
  raw: Pick<RawProfile, 'labels' | 'strings' | 'samples'>,
  opts: { limit?: number; weight?: Float64Array } = {},
): LabelSummary[] {
  const limit = opts.limit ?? 20;
  const weight = opts.weight ?? raw.samples.weight;
  const n = raw.samples.count;
  const out: LabelSummary[] = [];
  for (const col of raw.labels ?? []) {
    const counts = new Map<string | number, { samples: number; weight: number }>();
    let samples = 0;
    let total = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (let s = 0; s < n; s++) {
      let k: string | number;
      if (col.kind === 'string') {
        const i = col.value[s];
        if (i < 0) continue;
        k = raw.strings[i];
      } else {
        const x = col.value[s];
        if (Number.isNaN(x)) continue;
        k = x;
        if (x < min) min = x;
        if (x > max) max = x;
      }
      const c = counts.get(k);
      if (c) {
        c.samples++;
        c.weight += weight[s];
      } else counts.set(k, { samples: 1, weight: weight[s] });
      samples++;
      total += weight[s];
    }
    const values = [...counts].map(([k, c]) => ({ value: String(k), samples: c.samples, weight: c.weight }));
    values.sort(
      (a, b) =>
        b.weight - a.weight || b.samples - a.samples || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0),
    );
    const summary: LabelSummary = {
      key: col.key,
      kind: col.kind,
      samples,
      weight: total,
      distinct: counts.size,
      values: values.slice(0, limit),
    };
    if (col.kind === 'number') {
      if (col.unit !== undefined) summary.unit = col.unit;
      if (samples > 0) {
        summary.min = min;
        summary.max = max;
      }
    }
    out.push(summary);
  }
  return out;
}

// ─── the text form: KEY=V1,V2 | KEY=MIN:MAX (CLI --tagfocus/--tagignore) ─────────────────────

/** Binary multiples, as pprof's memory units (1kb = 1024). */
const UNIT: Record<string, number> = {
  '': 1,
  b: 1,
  byte: 1,
  bytes: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};
const NUMBER = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))\s*([a-z]*)$/i;

/** `4kb` → 4096, `12` → 12; null when it is not a number with a known unit. */
function quantity(text: string): { value: number; unit: boolean } | null {
  const m = NUMBER.exec(text.trim());
  if (!m) return null;
  const scale = UNIT[m[2].toLowerCase()];
  if (scale === undefined) return null;
  return { value: Number(m[1]) * scale, unit: m[2] !== '' };
}

/**
 * A filter from its text: `KEY=V1,V2` (any of the values), `KEY=MIN:MAX`, `KEY=MIN:`, `KEY=:MAX`
 * (inclusive; units b, kb, mb, gb, tb are powers of 1024 as in pprof), or `KEY=4kb` (exactly that
 * number). A plain `KEY=123` is a value: it matches a numeric label equal to 123, or the string
 * `123`. Throws on text without `KEY=`.
 */
export function parseLabelFilter(text: string, op: LabelFilter['op']): LabelFilter {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`label filter "${text}" is not KEY=VALUE[,VALUE…] or KEY=MIN:MAX`);
  const key = text.slice(0, eq);
  const rest = text.slice(eq + 1);
  const colon = rest.indexOf(':');
  if (colon >= 0 && rest.indexOf(':', colon + 1) < 0) {
    const lo = rest.slice(0, colon).trim();
    const hi = rest.slice(colon + 1).trim();
    const min = lo === '' ? null : quantity(lo);
    const max = hi === '' ? null : quantity(hi);
    if ((lo === '' || min) && (hi === '' || max) && (min || max)) {
      const f: LabelRangeFilter = { key, op };
      if (min) f.min = min.value;
      if (max) f.max = max.value;
      return f;
    }
  }
  const q = quantity(rest);
  if (q?.unit) return { key, op, min: q.value, max: q.value };
  const values = rest.split(',');
  return { key, op, values };
}

/**
 * The filters with one more value of `key` to keep (`focus`) or to hide (`ignore`): added to the
 * filter of that key and op that lists values, as an alternative (`worker=alpha,gamma`, pprof's
 * `-tagfocus=worker=alpha|gamma`), else a filter of its own. Two focus filters of one key would
 * keep only the samples with both values, none when a sample has one value per key.
 */
export function addLabelValue(
  filters: readonly LabelFilter[],
  op: LabelFilter['op'],
  key: string,
  value: string,
): LabelFilter[] {
  const i = filters.findIndex((f) => f.key === key && f.op === op && !isRangeFilter(f));
  if (i < 0) return [...filters, { key, op, values: [value] }];
  const f = filters[i] as LabelFilter & { values: string[] };
  if (f.values.includes(value)) return [...filters];
  return filters.map((g, j) => (j === i ? { ...f, values: [...f.values, value] } : g));
}

/** A filter as text, as parseLabelFilter reads it (with its op: `focus worker=a,b`). */
export function describeFilter(f: LabelFilter): string {
  if (!isRangeFilter(f)) return `${f.op} ${f.key}=${f.values.join(',')}`;
  return `${f.op} ${f.key}=${f.min ?? ''}:${f.max ?? ''}`;
}

/** Whether `x` is a LabelFilter (for data read from a link or a message). */
export function isLabelFilter(x: unknown): x is LabelFilter {
  if (typeof x !== 'object' || x === null) return false;
  const f = x as Record<string, unknown>;
  if (typeof f.key !== 'string' || f.key === '' || (f.op !== 'focus' && f.op !== 'ignore')) return false;
  if ('values' in f) return Array.isArray(f.values) && f.values.every((v) => typeof v === 'string');
  const bound = (b: unknown) => b === undefined || (typeof b === 'number' && !Number.isNaN(b));
  return bound(f.min) && bound(f.max);
}
