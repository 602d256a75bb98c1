import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prng } from '../../../test/helpers/prng';
import { treeFunctionTable } from '../../../test/helpers/tree';
import { analyzeBytes, fold, parse } from '../pipeline';
import type { FoldedProfile } from '../types';
import { buildCallTree } from './calltree';
import { frameNames } from './frames';
import { functionsBySelf, functionTableOf, HAND_OVER_ROWS, rememberFunctionTable } from './functions';
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

  it('a small one is a copy each time: the page detaches what it is sent', () => {
    const p = fold(
      parse(new Uint8Array(readFileSync('test/fixtures/gperf/threads.prof')), 'threads.prof'),
    ).profile;
    expect(p.frames.count).toBeLessThan(HAND_OVER_ROWS);
    const a = functionTableOf(p);
    structuredClone(a.total, { transfer: [a.total.buffer] });
    expect(a.total.length).toBe(0);
    expect(functionTableOf(p).total.length).toBe(p.frames.count);
  });

  it('a large one is handed over once, not copied; a later call sums its own from the stacks', () => {
    const n = HAND_OVER_ROWS;
    // n frames, the stack [0, n − 1] of weight 2: self 2 at n − 1, total 2 at both.
    const p = {
      frames: { count: n },
      stacks: {
        count: 1,
        start: Uint32Array.from([0, 2]),
        frames: Uint32Array.from([0, n - 1]),
        weight: Float64Array.from([2]),
      },
    } as unknown as FoldedProfile;
    const made = { count: n, self: new Float64Array(n), total: new Float64Array(n) };
    made.self[n - 1] = 2;
    made.total[0] = made.total[n - 1] = 2;
    rememberFunctionTable(p, made);
    const a = functionTableOf(p);
    expect(a === made).toBe(true);
    structuredClone(a.total, { transfer: [a.total.buffer] });
    const b = functionTableOf(p);
    expect(b.total.length).toBe(n);
    expect([b.self[n - 1], b.total[0], b.total[n - 1]]).toEqual([2, 2, 2]);
    expect(b.self.reduce((x, y) => x + y, 0)).toBe(2);
    expect(b.total.reduce((x, y) => x + y, 0)).toBe(4);
  });
});

describe('functionsBySelf', () => {
  /** By self, then total, heaviest first, then by id: the rows with samples. */
  const sorted = (self: number[], total: number[]) =>
    total
      .map((_, f) => f)
      .filter((f) => total[f] > 0)
      .sort((a, b) => self[b] - self[a] || total[b] - total[a] || a - b);
  it('orders rows as one sort by self, total and id does: flat tables with few others, and not', () => {
    const rnd = prng(3);
    for (const others of [0, 1, 5, 40, 300]) {
      const n = 1500;
      const self = Array.from({ length: n }, () => (rnd() < 0.1 ? 0 : Math.floor(rnd() * 50)));
      const total = self.slice();
      // rows whose total is more than their self (callers: a flat profile's image), some past 2^32
      for (let k = 0; k < others; k++) {
        const f = Math.floor(rnd() * n);
        total[f] = self[f] + (rnd() < 0.5 ? 1 + Math.floor(rnd() * 50) : 2 ** 32 + Math.floor(rnd() * 9));
      }
      const t = { count: n, self: Float64Array.from(self), total: Float64Array.from(total) };
      expect(Array.from(functionsBySelf(t))).toEqual(sorted(self, total));
    }
  });
});
