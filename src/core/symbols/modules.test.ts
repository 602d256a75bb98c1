import { describe, expect, it } from 'vitest';
import { prng } from '../../../test/helpers/prng';
import { splitBig } from '../address.ts';
import { basename } from '../text/names.ts';
import { MappingIndex, mappingInfo, samplesByMapping } from './modules.ts';

const name = (idx: MappingIndex, a: bigint) => idx.frameName(...splitBig(a));

describe('MappingIndex', () => {
  const idx = new MappingIndex([
    { start: 0x7f0000026000n, end: 0x7f0000100000n, offset: 0x26000n, path: '/usr/lib/libc.so.6' },
    { start: 0x555500001000n, end: 0x555500002000n, offset: 0x1000n, path: '/opt/x/bin/tiny' },
    { start: 0x7fff00000000n, end: 0x7fff00002000n, offset: 0n, path: '[vdso]' },
    { start: 0x600000n, end: 0x700000n, offset: 0n, path: '' },
    { start: 0xffffffffff600000n, end: 0xffffffffff601000n, offset: 0n, path: '[vsyscall]' },
  ]);

  it('names addresses MODULE+0xOFFSET', () => {
    expect(name(idx, 0x555500001155n)).toBe('tiny+0x1155');
    expect(name(idx, 0x555500001000n)).toBe('tiny+0x1000');
    expect(name(idx, 0x7f0000027249n)).toBe('libc.so.6+0x27249');
    expect(name(idx, 0x7fff00000be1n)).toBe('[vdso]+0xbe1');
    expect(name(idx, 0xffffffffff600400n)).toBe('[vsyscall]+0x400');
  });

  it('names addresses outside every mapping 0x…', () => {
    expect(name(idx, 0x555500002000n)).toBe('0x555500002000');
    expect(name(idx, 0x10n)).toBe('0x10');
    expect(name(idx, 0x600010n)).toBe('0x600010'); // anonymous mapping: not a module
    expect(name(idx, 0xfffffffffffffffen)).toBe('0xfffffffffffffffe');
  });

  it('handles offsets with borrow and carry across 32 bits', () => {
    const i2 = new MappingIndex([
      { start: 0x1fffff000n, end: 0x300000000n, offset: 0xfffff000n, path: '/a/b.so' },
    ]);
    expect(name(i2, 0x200000010n)).toBe('b.so+0x100000010');
  });

  it('has helpers', () => {
    expect(basename('/a/b/c.so')).toBe('c.so');
    expect(basename('[vdso]')).toBe('[vdso]');
    expect(mappingInfo({ start: 0x400000n, end: 0x401000n, offset: 0n, path: '/x' })).toEqual({
      start: '0x400000',
      end: '0x401000',
      offset: '0x0',
      path: '/x',
    });
  });
});

describe('samplesByMapping', () => {
  /** Weight per file of the samples with their leaf in it, and with any location in it (once). */
  function bruteForce(
    fileOfLoc: number[],
    stacks: number[][],
    weights: number[],
    paths: string[],
  ): { path: string; self: number; total: number; of: number }[] {
    const self = new Map<string, number>();
    const total = new Map<string, number>();
    let of = 0;
    stacks.forEach((st, s) => {
      if (st.length === 0) return;
      of += weights[s];
      const leaf = fileOfLoc[st[0]];
      if (leaf >= 0) self.set(paths[leaf], (self.get(paths[leaf]) ?? 0) + weights[s]);
      for (const f of new Set(st.map((l) => fileOfLoc[l]).filter((f) => f >= 0)))
        total.set(paths[f], (total.get(paths[f]) ?? 0) + weights[s]);
    });
    return [...total.keys()]
      .map((path) => ({ path, self: self.get(path) ?? 0, total: total.get(path)!, of }))
      .sort((x, y) => y.total - x.total || (x.path < y.path ? -1 : 1));
  }

  for (const files of [3, 31, 32, 40]) {
    it(`sums each sample once per file it touches (${files} files)`, () => {
      const rnd = prng(files);
      const paths = Array.from({ length: files }, (_, i) => `/lib/lib${i}.so`);
      // Two mappings of each file (text and another executable one), 4 KB each, 1 MB apart.
      const mappings = paths.flatMap((path, i) => [
        { start: BigInt(i * 0x100000), end: BigInt(i * 0x100000 + 0x1000), offset: 0n, path },
        { start: BigInt(i * 0x100000 + 0x8000), end: BigInt(i * 0x100000 + 0x9000), offset: 0x8000n, path },
      ]);
      const nLocs = 500;
      const addr: number[] = [];
      const fileOfLoc: number[] = [];
      for (let l = 0; l < nLocs; l++) {
        const f = Math.floor(rnd() * (files + 1)) - 1; // −1: outside every mapping
        const a =
          f < 0 ? 0x7000_0000 + l : f * 0x100000 + (rnd() < 0.5 ? 0 : 0x8000) + Math.floor(rnd() * 0x1000);
        addr.push(a);
        fileOfLoc.push(f);
      }
      const stacks = Array.from({ length: 300 }, () =>
        Array.from({ length: Math.floor(rnd() * 12) }, () => Math.floor(rnd() * nLocs)),
      );
      const weights = stacks.map(() => 1 + Math.floor(rnd() * 5));
      const stackStart = [0];
      for (const st of stacks) stackStart.push(stackStart[stackStart.length - 1] + st.length);
      const got = samplesByMapping({
        locations: {
          count: nLocs,
          addrHi: new Uint32Array(nLocs),
          addrLo: Uint32Array.from(addr),
          hasAddr: new Uint8Array(nLocs).fill(1),
        },
        samples: {
          count: stacks.length,
          stackStart: Uint32Array.from(stackStart),
          stackLocs: Uint32Array.from(stacks.flat()),
          weight: Float64Array.from(weights),
        },
        meta: { mappings },
      });
      expect(got).toEqual(bruteForce(fileOfLoc, stacks, weights, paths));
    });
  }
});
