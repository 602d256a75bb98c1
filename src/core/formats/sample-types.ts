// Named sample types: which value column of a profile is the weight the fold sums.

import { ProfileError, type RawProfile, SAMPLES_COUNT, type SampleType } from '../types.ts';

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

/**
 * The index of a sample type named by its type (`cpu`, `inuse_space`), `type/unit`, or its index;
 * the default for undefined. Throws a ProfileError naming the choices for an unknown one.
 */
export function sampleTypeIndex(
  raw: Pick<RawProfile, 'sampleTypes' | 'defaultSampleType'>,
  name?: string,
): number {
  if (name === undefined || name === '') return defaultSampleTypeIndex(raw);
  const types = sampleTypesOf(raw);
  const i = types.findIndex((t) => t.type === name || `${t.type}/${t.unit}` === name);
  if (i >= 0) return i;
  if (/^[0-9]+$/.test(name) && Number(name) < types.length) return Number(name);
  throw new ProfileError(
    `no sample type '${name}': this profile has ${types.map((t) => `${t.type}/${t.unit}`).join(', ')}`,
    'unknown',
  );
}

/** The profile with `samples.weight` = the values of sample type `index` (shares all arrays). */
export function withSampleType(raw: RawProfile, index: number): RawProfile {
  if (index === defaultSampleTypeIndex(raw)) return raw;
  const column = raw.samples.values?.[index];
  if (!column) throw new ProfileError(`no sample type #${index} in this profile`, raw.format);
  return { ...raw, samples: { ...raw.samples, weight: column }, defaultSampleType: index };
}
