// The fold written over the parsed stacks (FoldSpec.consume, fold-in-place.ts) against the usual
// fold of the same profile: on real files of every format, at every granularity, with and without
// symbols, it must give the same folded profile (stacks, frames, function table) and leave the
// parsed profile's stacks readable as they were parsed, for the next fold.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sortedStackOrder, sortStacks } from '../src/core/model/calltree';
import { frameNames } from '../src/core/model/frames';
import { functionTableOf } from '../src/core/model/functions';
import { toFoldedText } from '../src/core/model/serialize';
import { fold, type Loaded, parse, symbolize } from '../src/core/pipeline';
import { loadDemangler } from '../src/core/symbols/demangle';
import { samplesByModule } from '../src/core/symbols/modules';
import type { FoldedProfile, Granularity, RawProfile } from '../src/core/types';
import { addressProfile } from './helpers/raw';

const read = (f: string) => new Uint8Array(readFileSync(`test/fixtures/${f}`));

const FIXTURES = [
  'gperf/cxx_demangle.prof',
  'gperf/cxx_demangle32.prof',
  'gperf/deep_recursion.prof',
  'gperf/threads.prof',
  'gperf/shlib.prof',
  'gperf/tiny32.prof',
  'gperf/big_synth_small.prof',
  'gperf-own/sorter.prof',
  'upstream/cppbench.cpu',
  'pprof/go/cpu.pb.gz',
  'pprof/go/heap.pb.gz',
  'perf/mixed.perf.txt',
  'heap/allocs.0001.heap',
  'dcpi/valid_many_chunks.dcpi',
  'folded/simple.folded',
];

/** Whether the last consuming fold wrote over the parsed stacks (they are made again when read). */
const lent = (raw: RawProfile) =>
  Object.getOwnPropertyDescriptor(raw.samples, 'stackLocs')?.get !== undefined;

function expectSameFold(got: FoldedProfile, want: FoldedProfile): void {
  expect(toFoldedText(got)).toBe(toFoldedText(want));
  expect(got.stacks.count).toBe(want.stacks.count);
  expect(Array.from(got.stacks.start)).toEqual(Array.from(want.stacks.start));
  expect(Array.from(got.stacks.frames)).toEqual(Array.from(want.stacks.frames));
  expect(Array.from(got.stacks.weight)).toEqual(Array.from(want.stacks.weight));
  expect(frameNames(got.frames)).toEqual(frameNames(want.frames));
  expect(Array.from(got.frames.module)).toEqual(Array.from(want.frames.module));
  expect(got.frames.kind).toEqual(want.frames.kind);
  expect(got.meta).toEqual(want.meta);
  const [t, u] = [functionTableOf(got), functionTableOf(want)];
  expect(Array.from(t.self)).toEqual(Array.from(u.self));
  expect(Array.from(t.total)).toEqual(Array.from(u.total));
  // The sorted order the fold in place leaves for the call tree is the stacks' own.
  const sorted = sortedStackOrder(got);
  const fresh = sortStacks(got.stacks.start, got.stacks.frames, got.stacks.count);
  expect(Array.from(sorted.order)).toEqual(Array.from(fresh.order));
  expect(Array.from(sorted.lcp)).toEqual(Array.from(fresh.lcp));
}

/**
 * Folds `loaded` with `spec` the usual way, then consuming its stacks, twice (the second reads the
 * stacks the first made again); returns whether the stacks were written over.
 */
function check(loaded: Loaded, spec: Parameters<typeof fold>[1] = {}): boolean {
  const parsed = loaded.raw.samples.stackLocs.slice();
  const want = fold(loaded, spec).profile;
  const first = fold(loaded, { ...spec, consume: true }).profile;
  const wasLent = lent(loaded.raw);
  expectSameFold(first, want);
  expect(Array.from(loaded.raw.samples.stackLocs)).toEqual(Array.from(parsed));
  expect(lent(loaded.raw)).toBe(false);
  const second = fold(loaded, { ...spec, consume: true }).profile;
  expectSameFold(second, want);
  expectSameFold(first, want); // the first fold's stacks are its own still
  expect(Array.from(loaded.raw.samples.stackLocs)).toEqual(Array.from(parsed));
  // Samples per mapped file put off: counted from the folded stacks, they are the parsed ones'.
  const later = fold(loaded, { ...spec, consume: true, mappingSamplesLater: true }).profile;
  if (lent(loaded.raw)) {
    expect(later.meta.mappingSamplesPending).toBe(true);
    expect(later.meta.mappingSamples).toBeUndefined();
    expect(samplesByModule(later)).toEqual(want.meta.mappingSamples ?? []);
  } else {
    expect(later.meta.mappingSamplesPending).toBeUndefined();
    expect(later.meta.mappingSamples).toEqual(want.meta.mappingSamples);
  }
  expect(Array.from(loaded.raw.samples.stackLocs)).toEqual(Array.from(parsed));
  return wasLent;
}

describe('a consuming fold equals the usual fold, and the parsed stacks stay readable', () => {
  for (const f of FIXTURES) {
    for (const granularity of ['addresses', 'functions', 'lines'] as Granularity[]) {
      it(`${f} at ${granularity}`, () => {
        const loaded = parse(read(f), f, {
          granularity: granularity === 'addresses' ? 'addresses' : 'functions',
        });
        const wasLent = check(loaded, { granularity });
        // Addresses no symbol names: one frame each, so gperftools profiles fold in place.
        if (granularity === 'addresses' && /^(gperf|upstream)/.test(f)) expect(wasLent).toBe(true);
        // One frame per module names many addresses: the fold gives up and folds the usual way.
        if (granularity === 'functions' && /^gperf\/(cxx|threads|shlib)/.test(f)) expect(wasLent).toBe(false);
      });
    }
  }

  it('with symbols from the binary (ELF and DWARF, or ELF only; demangled), at every granularity', async () => {
    const demangle = await loadDemangler();
    for (const dwarf of [true, false])
      for (const granularity of ['addresses', 'functions', 'lines'] as Granularity[]) {
        const loaded = parse(read('gperf/cxx_demangle.prof'), 'cxx_demangle.prof');
        const symbols = symbolize(
          loaded.raw,
          [{ name: 'cxx_demangle', bytes: read('gperf/bin/cxx_demangle') }],
          {
            demangle,
            mangled: false,
            names: 'short',
            dwarf,
          },
        );
        expect(symbols).not.toBeNull();
        const wasLent = check(loaded, { granularity, symbols, names: 'short' });
        // Per address with ELF symbols only: `function+0xOFFSET`, one frame each. (With DWARF an
        // address names its inlined functions too: several frames.)
        if (!dwarf && granularity === 'addresses') expect(wasLent).toBe(true);
      }
  });

  it('another sample type (a copy of the samples object) is never written over', () => {
    const loaded = parse(read('pprof/go/heap.pb.gz'), 'heap.pb.gz', { granularity: 'addresses' });
    check(loaded, { granularity: 'addresses', sampleType: 'alloc_objects' });
    expect(lent(loaded.raw)).toBe(false);
  });
});

/** Address stacks in /bin/demo (at 0x400000, offset 0) and /lib/libx.so (at 0x700000). */
const rawOf = (stacks: [bigint[], number][]): RawProfile => {
  const raw = addressProfile(stacks);
  raw.meta.mappings = [
    { start: 0x400000n, end: 0x500000n, offset: 0n, path: '/bin/demo' },
    { start: 0x700000n, end: 0x800000n, offset: 0n, path: '/lib/libx.so' },
  ];
  return raw;
};

const loadedOf = (raw: RawProfile): Loaded => ({ raw, fileName: 'x.prof', parseMs: 0 }) as Loaded;

describe('the consuming fold on made-up stacks', () => {
  it('sums repeated stacks, skips empty ones, and keeps a leaf at X apart from a caller at X + 1', () => {
    const raw = rawOf([
      [[0x400101n, 0x400201n, 0x700001n], 2],
      [[], 7],
      [[0x400200n, 0x400201n, 0x700001n], 1], // leaf 0x400200: the frame of caller 0x400201 too
      [[0x400101n, 0x400201n, 0x700001n], 3],
      [[0x400101n, 0x400201n, 0x400201n, 0x700001n], 4], // recursion: total counts it once
      [[], 1],
      [[0x700001n], 5],
      [[0x400200n, 0x400201n, 0x700001n], 6],
    ]);
    expect(check(loadedOf(raw), { granularity: 'addresses' })).toBe(true);
    const p = fold(loadedOf(raw), { granularity: 'addresses', consume: true }).profile;
    expect(p.stacks.count).toBe(4);
    expect(toFoldedText(p)).toContain('libx.so+0x0;demo+0x200;demo+0x200 7');
  });

  it('gives up where two addresses share a frame, late or early, and folds the usual way', () => {
    const stacks: [bigint[], number][] = [];
    for (let i = 0; i < 200; i++)
      stacks.push([[0x400000n + BigInt(i * 16), 0x400801n, 0x700001n + BigInt((i % 3) * 16)], 1 + (i % 4)]);
    for (let i = 0; i < 50; i++) stacks.push([[0x400000n + BigInt(i * 16), 0x400801n, 0x700001n], 2]); // repeats
    // One module frame for all of /bin/demo's addresses: the second address gives up at once.
    expect(check(loadedOf(rawOf(stacks)), { granularity: 'functions' })).toBe(false);
    // Per address, the last stack's leaf shares a frame with an earlier leaf: the location table
    // has two locations of one address (as a profile merged from two could), found at the end.
    const raw = rawOf(stacks);
    const loc = raw.locations;
    const n = loc.count;
    const grown = (a: Uint32Array | Int32Array | Uint8Array, v: number) => {
      const b = new (a.constructor as new (n: number) => typeof a)(n + 1);
      b.set(a);
      b[n] = v;
      return b;
    };
    raw.locations = {
      count: n + 1,
      addrHi: grown(loc.addrHi, 0) as Uint32Array,
      addrLo: grown(loc.addrLo, 0x400000) as Uint32Array,
      hasAddr: grown(loc.hasAddr, 1) as Uint8Array,
      locName: grown(loc.locName, -1) as Int32Array,
    };
    const s = raw.samples;
    const locs = Uint32Array.from([...s.stackLocs, n, ...s.stackLocs.subarray(1, 3)]);
    raw.samples = {
      count: s.count + 1,
      stackStart: Uint32Array.from([...s.stackStart, locs.length]),
      stackLocs: locs,
      weight: Float64Array.from([...s.weight, 9]),
    };
    expect(check(loadedOf(raw), { granularity: 'addresses' })).toBe(false);
  });
});
