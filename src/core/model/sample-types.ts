// Named sample types: which value column of a profile is the weight the fold sums (pprof's
// -sample_index), and what one unit of it is worth in time.

import { timeUnitUs } from '../text/units.ts';
import { ProfileError, type RawProfile, SAMPLES_COUNT, type SampleType } from '../types.ts';

/** Whether a sample type's unit is a time (nanoseconds, ms…: values add up to a duration). */
export function isTimeUnit(unit: string): boolean {
  return timeUnitUs(unit) !== undefined;
}

/** The profile's sample types; one (`samples`/`count`) for formats that only count samples. */
export function sampleTypesOf(raw: Pick<RawProfile, 'sampleTypes'>): SampleType[] {
  return raw.sampleTypes && raw.sampleTypes.length > 0 ? raw.sampleTypes : [SAMPLES_COUNT];
}

/** The index of the column `samples.weight` holds: the default (pprof: the last when unsaid). */
export function defaultSampleTypeIndex(raw: Pick<RawProfile, 'sampleTypes' | 'defaultSampleType'>): number {
  const n = sampleTypesOf(raw).length;
  const d = raw.defaultSampleType;
  return d !== undefined && d >= 0 && d < n ? d : n - 1;
}

/** A sample type asked for that the profile does not have (the CLI: a usage error). */
export class UnknownSampleType extends ProfileError {}

/**
 * The index of a sample type named by its type (`cpu`, `inuse_space`), `type/unit`, or its index;
 * the default for undefined or ''. Throws an UnknownSampleType naming the types the profile has
 * for an unknown one.
 */
export function sampleTypeIndex(
  raw: Pick<RawProfile, 'sampleTypes' | 'defaultSampleType' | 'format'>,
  spec?: string,
): number {
  if (spec === undefined || spec === '') return defaultSampleTypeIndex(raw);
  const types = sampleTypesOf(raw);
  if (/^\d+$/.test(spec)) {
    const i = Number(spec);
    if (i < types.length) return i;
  } else {
    const i = types.findIndex((t) => t.type === spec || `${t.type}/${t.unit}` === spec);
    if (i >= 0) return i;
  }
  const list = types.map((t, i) => `${i}: ${t.type}/${t.unit}`).join(', ');
  throw new UnknownSampleType(`no sample type "${spec}" in this profile (it has ${list})`, raw.format);
}

/**
 * `meta.periodUs` for value column `index`: microseconds per unit of that column, so that
 * total × periodUs is time. A column in a time unit (cpu/nanoseconds) gives the unit itself
 * (0.001 for nanoseconds); a count column gives the period when meta.period is a time
 * (cpu/nanoseconds 10000000 → 10000); anything else 0 (no time units).
 */
export function periodUsFor(raw: RawProfile, index: number): number {
  const t = sampleTypesOf(raw)[index];
  if (!t) return 0;
  const unit = timeUnitUs(t.unit);
  if (unit !== undefined) return unit;
  if (t.unit === 'count' || t.unit === '') {
    const p = raw.meta.period;
    if (!p || !(p.value > 0)) return 0;
    const pu = timeUnitUs(p.type.unit);
    return pu === undefined ? 0 : p.value * pu;
  }
  return 0;
}

/**
 * A shallow copy of `raw` whose `samples.weight` is value column `index` (and whose default sample
 * type and, where the format names its types, periodUs follow), so the fold sums that column.
 * `raw` itself is not changed; the default column returns `raw`.
 */
export function withSampleType(raw: RawProfile, index: number): RawProfile {
  const types = sampleTypesOf(raw);
  if (!Number.isInteger(index) || index < 0 || index >= types.length) {
    throw new ProfileError(`sample type index ${index} is out of range (0..${types.length - 1})`, raw.format);
  }
  if (index === defaultSampleTypeIndex(raw)) return raw;
  const column = raw.samples.values?.[index];
  if (!column) throw new ProfileError(`no values for sample type #${index} in this profile`, raw.format);
  const out: RawProfile = {
    ...raw,
    samples: { ...raw.samples, weight: column },
    defaultSampleType: index,
    meta: { ...raw.meta },
  };
  out.meta.periodUs = raw.sampleTypes ? periodUsFor(out, index) : raw.meta.periodUs;
  return out;
}

/**
 * How many samples a profile holds, of those `keep` keeps (all when null) that have a stack: the
 * sum of its `samples`/`count` column where it has one (gperftools, DCPI, folded stacks and pprof
 * and perf CPU profiles count samples there), or, of a two-count folded file, of the column chosen
 * (`index`: both count samples); else one per sample record (a heap profile's allocation sites,
 * pprof samples without a count). Whatever the sample type sums (nanoseconds, bytes), this counts.
 */
export function sampleCount(raw: RawProfile, index: number, keep: Uint8Array | null): number {
  const types = sampleTypesOf(raw);
  const t = types[index];
  const column =
    (t && t.type === 'samples' && t.unit === 'count') || raw.diffPair
      ? index
      : types.findIndex((x) => x.type === 'samples' && x.unit === 'count');
  const values =
    column < 0
      ? null
      : column === defaultSampleTypeIndex(raw)
        ? raw.samples.weight
        : (raw.samples.values?.[column] ?? null);
  const { stackStart, count } = raw.samples;
  let n = 0;
  for (let s = 0; s < count; s++) {
    if (stackStart[s + 1] <= stackStart[s] || (keep !== null && keep[s] === 0)) continue;
    n += values === null ? 1 : values[s];
  }
  return n;
}
