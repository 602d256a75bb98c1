import { describe, expect, it } from 'vitest';
import type { FoldedProfile } from '../types';
import { mergeSides } from './diff';
import { profileFromText } from './text-notation';
import { applyTransforms } from './transforms';

/** `p`'s stacks with other weights, sharing its frames and stacks (what foldOtherWeights makes). */
const reweighed = (p: FoldedProfile, weight: number[]): FoldedProfile => ({
  ...p,
  meta: { ...p.meta, totalSamples: weight.reduce((a, b) => a + b, 0) },
  stacks: { ...p.stacks, weight: Float64Array.from(weight) },
});

/** The same, its stacks copied: merged by names, as two profiles are. */
const copied = (p: FoldedProfile): FoldedProfile => ({
  ...p,
  stacks: { ...p.stacks, start: p.stacks.start.slice(), frames: p.stacks.frames.slice() },
});

describe('mergeSides of the same stacks with other weights', () => {
  const comp = profileFromText('main;a;b 3\nmain;c 0.25\nmain[lib];d[lib] 2\nmain;a 1e-300\nmain;e -0');

  it('is what merging them by names makes, without writing the stacks again', () => {
    const base = reweighed(comp, [0, 7.5, -0, 2, 0.1]);
    const merged = mergeSides(comp, base);
    expect(merged).toEqual(mergeSides(comp, copied(base)));
    expect(merged.profile.stacks.frames).toBe(comp.stacks.frames);
    expect(Array.from(merged.comp, (w) => Object.is(w, -0))).toEqual([false, false, false, false, false]);
    expect(Array.from(merged.profile.stacks.weight)).toEqual([3, 7.75, 2, 2, 0.1]);
    expect(merged.profile.modules).toEqual(['lib']);
  });

  it('merges by names when a frame is no stack’s any more (a transform keeps the frame table)', () => {
    const hidden = applyTransforms(comp, [{ kind: 'hide-function', name: 'c' }]);
    const base = reweighed(
      hidden,
      Array.from(hidden.stacks.weight, (w) => w * 2),
    );
    const merged = mergeSides(hidden, base);
    expect(merged).toEqual(mergeSides(hidden, copied(base)));
    expect(merged.profile.frames.count).toBe(hidden.frames.count - 1);
  });
});
