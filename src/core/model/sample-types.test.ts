import { describe, expect, it } from 'vitest';
import { parseFolded } from '../formats/folded.ts';
import { parseHeap } from '../formats/heap.ts';
import { ProfileError, type RawProfile } from '../types.ts';
import { sampleTypeIndex, withSampleType } from './sample-types.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('withSampleType', () => {
  const heap = parseHeap(enc('heap profile: 1: 10 [3: 40] @ heapprofile\n1: 10 [3: 40] @ 0x10 0x20\n'));

  it('returns the profile with another column as its weight, sharing the rest', () => {
    const a = withSampleType(heap, 1); // alloc_space (pprof's order: alloc_*, then inuse_*)
    expect(a.samples.weight).toBe(heap.samples.values![1]);
    expect([...a.samples.weight]).toEqual([40]);
    expect(a.defaultSampleType).toBe(1);
    expect(a.samples.stackLocs).toBe(heap.samples.stackLocs);
    expect(heap.samples.weight[0]).toBe(10); // the original is untouched
  });

  it('rejects columns that do not exist; a single-column profile has index 0', () => {
    expect(() => withSampleType(heap, 4)).toThrow(ProfileError);
    expect(() => withSampleType(heap, -1)).toThrow(ProfileError);
    const folded: RawProfile = parseFolded(enc('a;b 2\n'));
    expect(withSampleType(folded, 0)).toBe(folded);
    expect(() => withSampleType(folded, 1)).toThrow(ProfileError);
  });

  it('finds columns by name or index', () => {
    expect(sampleTypeIndex(heap, 'alloc_objects')).toBe(0);
    expect(sampleTypeIndex(heap, '1')).toBe(1);
    expect(() => sampleTypeIndex(heap, '7')).toThrow(/no sample type "7".*0: alloc_objects/);
    expect(() => sampleTypeIndex(heap, 'cycles')).toThrow(ProfileError);
    expect(sampleTypeIndex(heap)).toBe(3); // the default: in-use bytes
    expect(sampleTypeIndex(parseFolded(enc('a 1\n')), 'samples')).toBe(0);
  });
});
