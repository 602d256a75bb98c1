import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { treeFunctionTable } from '../../../test/helpers/tree';
import { analyzeBytes, fold, parse } from '../pipeline';
import type { FoldedProfile } from '../types';
import { buildCallTree } from './calltree';
import { frameNames } from './frames';
import { functionTableOf } from './functions';
import { profileFromText } from './text-notation';
import { invertProfile } from './views';

describe('functionTableOf', () => {
  const p = profileFromText('main;r;r;x 4\nmain;x;r 1\nmain 2\nother;x 3');
  it('equals the table computed from the call tree', () => {
    const a = functionTableOf(p);
    const b = treeFunctionTable(buildCallTree(p), p.frames.count);
    expect(Array.from(a.self)).toEqual(Array.from(b.self));
    expect(Array.from(a.total)).toEqual(Array.from(b.total));
  });
  it('an inverted profile keeps the frame ids, so one table serves both views', () => {
    const inv = invertProfile(p);
    expect(frameNames(inv.frames)).toEqual(frameNames(p.frames));
    expect(Array.from(inv.frames.module)).toEqual(Array.from(p.frames.module));
  });
});

describe('the table the fold sums as it goes', () => {
  /** The table summed from the profile's unique stacks (a copy of them: no remembered table). */
  const fromStacks = (p: FoldedProfile) => functionTableOf({ ...p, stacks: { ...p.stacks } });
  const fixtures = [
    'gperf/threads.prof', // counts, group frames
    'gperf/deep_recursion.prof', // a function many times on a stack: counted once
    'dcpi/valid_many_chunks.dcpi', // flat
    'heap/allocs.0001.heap', // un-sampled bytes
  ];
  for (const f of fixtures) {
    it(`${f}: equals the one summed from the unique stacks, to the bit`, () => {
      // The analysis's table is the fold's, handed over (functionTableOf gives it once).
      const { profile: p, functions: a } = analyzeBytes(new Uint8Array(readFileSync(`test/fixtures/${f}`)), {
        fileName: f,
      });
      const b = fromStacks(p);
      expect(Array.from(a.self)).toEqual(Array.from(b.self));
      expect(Array.from(a.total)).toEqual(Array.from(b.total));
    });
  }

  it('weights that are not integers: summed from the unique stacks (sums in another order could differ)', () => {
    const text = 'main;a;b 0.1\nmain;a;c 0.2\nmain;b 0.3\nmain;a;b 0.7\nmain;b;a 0.2\n';
    const { profile: p, functions: a } = analyzeBytes(new TextEncoder().encode(text), {
      fileName: 'x.folded',
    });
    expect(p.stacks.weight.some((w) => !Number.isInteger(w))).toBe(true);
    const b = fromStacks(p);
    expect(Array.from(a.total)).toEqual(Array.from(b.total));
    expect(Array.from(a.self)).toEqual(Array.from(b.self));
  });

  it('is handed over once, not copied; a later call sums its own (the page detaches what it is sent)', () => {
    const loaded = parse(new Uint8Array(readFileSync('test/fixtures/gperf/threads.prof')), 'threads.prof');
    const p = fold(loaded).profile;
    const a = functionTableOf(p);
    const kept = { self: Array.from(a.self), total: Array.from(a.total) };
    structuredClone(a.total, { transfer: [a.total.buffer] });
    expect(a.total.length).toBe(0);
    const b = functionTableOf(p);
    expect(b === a).toBe(false);
    expect(Array.from(b.self)).toEqual(kept.self);
    expect(Array.from(b.total)).toEqual(kept.total);
    expect(b.total.length).toBe(p.frames.count);
  });
});
