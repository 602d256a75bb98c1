// Choosing which value column of a profile the fold sums (pprof's -sample_index).

import type { RawProfile } from '../types.ts';
import { SAMPLES_COUNT } from '../types.ts';

/**
 * `raw` with `samples.weight` set to value column `index` (and `defaultSampleType` to `index`);
 * everything else is shared, not copied. A profile without `values` has one column, index 0.
 * Throws RangeError for an index the profile does not have.
 */
export function withSampleType(raw: RawProfile, index: number): RawProfile {
  const values = raw.samples.values;
  if (values === undefined) {
    if (index !== 0) throw new RangeError(`sample type ${index} does not exist (the profile has one)`);
    return raw;
  }
  if (!Number.isInteger(index) || index < 0 || index >= values.length) {
    throw new RangeError(`sample type ${index} does not exist (the profile has ${values.length})`);
  }
  return { ...raw, samples: { ...raw.samples, weight: values[index] }, defaultSampleType: index };
}

/**
 * The index of the value column named `spec`: a sample type's name (`alloc_space`), or its index.
 * Null when there is none.
 */
export function sampleTypeIndex(raw: RawProfile, spec: string): number | null {
  const types = raw.sampleTypes ?? [SAMPLES_COUNT];
  const byName = types.findIndex((t) => t.type === spec);
  if (byName >= 0) return byName;
  if (/^\d+$/.test(spec)) {
    const i = Number(spec);
    if (i < types.length) return i;
  }
  return null;
}
