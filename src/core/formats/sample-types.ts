// Choosing which value column of a RawProfile the fold sums (pprof's -sample_index).

import type { RawProfile, SampleType } from '../types.ts';
import { ProfileError, SAMPLES_COUNT } from '../types.ts';

/** Microseconds per unit, for the time units pprof writes; undefined for other units. */
const TIME_UNIT_US: Record<string, number> = {
  nanoseconds: 0.001,
  nanosecond: 0.001,
  ns: 0.001,
  microseconds: 1,
  microsecond: 1,
  us: 1,
  milliseconds: 1000,
  millisecond: 1000,
  ms: 1000,
  seconds: 1e6,
  second: 1e6,
  s: 1e6,
};

/** The sample types of a profile (SAMPLES_COUNT when it does not name any). */
export function sampleTypesOf(raw: RawProfile): SampleType[] {
  return raw.sampleTypes && raw.sampleTypes.length > 0 ? raw.sampleTypes : [SAMPLES_COUNT];
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
  const unit = TIME_UNIT_US[t.unit.toLowerCase()];
  if (unit !== undefined) return unit;
  if (t.unit === 'count' || t.unit === '') {
    const p = raw.meta.period;
    if (!p || !(p.value > 0)) return 0;
    const pu = TIME_UNIT_US[p.type.unit.toLowerCase()];
    return pu === undefined ? 0 : p.value * pu;
  }
  return 0;
}

/**
 * The index of a sample type given by name (`cpu`, or `cpu/nanoseconds`) or by index (`0`).
 * Throws ProfileError naming the types the profile has when there is no such type.
 */
export function findSampleType(raw: RawProfile, spec: string): number {
  const types = sampleTypesOf(raw);
  if (/^\d+$/.test(spec)) {
    const i = Number(spec);
    if (i < types.length) return i;
  } else {
    const i = types.findIndex((t) => t.type === spec || `${t.type}/${t.unit}` === spec);
    if (i >= 0) return i;
  }
  const list = types.map((t, i) => `${i}: ${t.type}/${t.unit}`).join(', ');
  throw new ProfileError(`no sample type "${spec}" in this profile (it has ${list})`, raw.format);
}

/**
 * A shallow copy of `raw` whose `samples.weight` is value column `index` (and whose default sample
 * type and periodUs follow), so the fold sums that column. `raw` itself is not changed.
 */
export function withSampleType(raw: RawProfile, index: number): RawProfile {
  const types = sampleTypesOf(raw);
  if (!Number.isInteger(index) || index < 0 || index >= types.length) {
    throw new ProfileError(`sample type index ${index} is out of range (0..${types.length - 1})`, raw.format);
  }
  const column = raw.samples.values?.[index] ?? (index === 0 ? raw.samples.weight : undefined);
  if (!column) throw new ProfileError(`the profile has no values for sample type ${index}`, raw.format);
  const out: RawProfile = {
    ...raw,
    samples: { ...raw.samples, weight: column },
    defaultSampleType: index,
    meta: { ...raw.meta },
  };
  out.meta.periodUs = raw.sampleTypes ? periodUsFor(out, index) : raw.meta.periodUs;
  return out;
}
