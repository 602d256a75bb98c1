// The share of its stacks' frames a call tree keeps as nodes, from a sample of the stacks
// (tree-share.ts): exact on all the stacks of a small profile, and about an upper bound of the
// whole tree's share on large ones (the bench's heap and gperftools profiles, made small).

import { describe, expect, it } from 'vitest';
import { makeSyntheticProfile } from '../../../bench/gen-synthetic.ts';
import { makeTextBenchInput } from '../../../bench/gen-text.ts';
import { analyze, fold, parse } from '../pipeline.ts';
import { sampledTreeShare } from './tree-share.ts';

/** Leaf-first stacks as RawProfile holds them. */
function raw(stacks: number[][]): [Uint32Array, Uint32Array, number] {
  const start = new Uint32Array(stacks.length + 1);
  const locs: number[] = [];
  stacks.forEach((s, i) => {
    locs.push(...[...s].reverse());
    start[i + 1] = locs.length;
  });
  return [start, Uint32Array.from(locs), stacks.length];
}

/** The full tree's nodes (without its root) over the stack frames, and the sampled share. */
function shares(bytes: Uint8Array, name: string): { tree: number; sampled: number } {
  const loaded = parse(bytes, name);
  const { stackStart, stackLocs, count } = loaded.raw.samples;
  const sampled = sampledTreeShare(stackStart, stackLocs, count);
  const frames = stackStart[count];
  const { profile } = fold(loaded, { granularity: 'addresses' });
  const a = analyze(profile, { transforms: [], inverted: false }, { parseMs: 0, foldMs: 0 });
  return { tree: (a.tree.count - 1) / frames, sampled };
}

describe('the share of their frames a sample of stacks keeps as tree nodes', () => {
  it('counts a node per distinct root-first prefix', () => {
    // root first: main;a;b  main;a;c  main;a;b (again)  other;a
    const [start, locs, n] = raw([
      [1, 2, 3],
      [1, 2, 4],
      [1, 2, 3],
      [5, 2],
    ]);
    // nodes: main, main;a, main;a;b, main;a;c, other, other;a = 6 of 11 frames
    expect(sampledTreeShare(start, locs, n)).toBeCloseTo(6 / 11, 12);
    // every second stack (k = 2): main;a;b and main;a;b: 3 of 6
    expect(sampledTreeShare(start, locs, n, 2)).toBeCloseTo(3 / 6, 12);
    expect(sampledTreeShare(...raw([[7], [7], [7], [7]]))).toBe(0.25);
    expect(sampledTreeShare(new Uint32Array(1), new Uint32Array(0), 0)).toBe(1);
  });

  it('is about the tree of stacks that part near the root, and above that of shared ones', () => {
    const heap = shares(makeTextBenchInput('heap', 4 << 20), 'h.heap');
    expect(heap.tree).toBeLessThan(0.2);
    expect(heap.sampled).toBeGreaterThanOrEqual(heap.tree);
    expect(heap.sampled).toBeLessThan(0.5);
    const prof = shares(makeSyntheticProfile(4 << 20, 42), 'p.prof');
    expect(prof.tree).toBeGreaterThan(0.8);
    expect(prof.sampled).toBeGreaterThan(0.8);
    expect(Math.abs(prof.sampled - prof.tree)).toBeLessThan(0.1);
  });
});
