// Typed frames: the frame table's kinds and fields (types.ts FrameTable) of a real -O2 -g program
// folded at each granularity, against binutils — addr2line's inline chains and file:line for every
// sampled address (test/fixtures/dwarf, read by helpers/addr2line.ts), with the names
// llvm-symbolizer gives them (mangled; docs/dwarf.md: pprof's names, which addr2line's differ
// from for a function's outermost frame) — and kept, frame for frame, by every derivation that
// makes a frame table of its own.

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { bigOf } from '../src/core/address';
import { mergeSides } from '../src/core/model/diff';
import { applyTransforms } from '../src/core/model/transforms';
import { invertProfile, sandwich } from '../src/core/model/views';
import { fold, type Loaded, parse, type Symbols, symbolize } from '../src/core/pipeline';
import { addressOf, frameName, functionOf, sourceAt } from '../src/core/text/frame-text';
import { type FoldedProfile, FrameKind, Unnamed } from '../src/core/types';
import { addr2lineChains, type OracleFrame, runtimeToVaddr } from './helpers/addr2line';
import { readLlvmOracle } from './helpers/llvm';

const DIR = 'test/fixtures/dwarf';
const read = (f: string) => new Uint8Array(readFileSync(`${DIR}/${f}`));

let loaded: Loaded;
let symbols: Symbols;
let chains: Map<string, OracleFrame[]>;
let vaddrOf: Map<string, string>;
beforeAll(async () => {
  loaded = parse(read('inline5.prof'), 'inline5.prof');
  symbols = symbolize(loaded.raw, [{ name: 'inline5', bytes: read('bin/inline5') }], {
    mangled: true,
  })!;
  chains = addr2lineChains('inline5', { mangled: true });
  for (const { vaddr, frames } of readLlvmOracle(`${DIR}/inline5.llvm.txt.gz`)) {
    // The same chains, files and lines: only names may differ.
    const chain = chains.get(vaddr.toString(16))!;
    expect(chain.map((f) => [f.file, f.line])).toEqual(frames.map((f) => [f.file, f.line]));
    for (const [k, f] of chain.entries()) f.name = frames[k].name;
  }
  vaddrOf = runtimeToVaddr('inline5');
});

const folded = (granularity: 'functions' | 'lines' | 'addresses') =>
  fold(loaded, { symbols, granularity, names: 'full' }).profile;

/** The frames of the program's own module, by id. */
const ownFrames = (p: FoldedProfile) =>
  [...Array(p.frames.count).keys()].filter((f) => p.modules[p.frames.module[f]]?.endsWith('/inline5'));

describe('typed frames against addr2line', () => {
  it('lines: each Line frame is a function at a file and line addr2line gives, named from them', () => {
    const p = folded('lines');
    const places = new Set([...chains.values()].flat().map((f) => `${f.file}:${f.line}`));
    const fns = new Set([...chains.values()].flat().map((f) => f.name));
    const lines = ownFrames(p).filter((f) => p.frames.kind[f] === FrameKind.Line);
    expect(lines.length).toBeGreaterThan(20);
    for (const f of lines) {
      const fn = functionOf(p.frames, f);
      const at = sourceAt(p.frames, f);
      expect([fn, at !== null && places.has(at)], `${frameName(p.frames, f)}: ${at}`).toEqual([fn, true]);
      expect(fns.has(fn!), fn!).toBe(true);
      expect(frameName(p.frames, f)).toBe(`${fn} ${at}`);
      expect(p.frames.line?.[f]).toBeGreaterThan(0);
    }
  });

  it('addresses: each Address frame in a function is at an address whose innermost function it names', () => {
    const p = folded('addresses');
    const mapping = loaded.raw.meta.mappings.find((m) => m.path.endsWith('/inline5'))!;
    const addrs = ownFrames(p).filter((f) => p.frames.kind[f] === FrameKind.Address);
    expect(addrs.length).toBeGreaterThan(20);
    for (const f of addrs) {
      const fn = functionOf(p.frames, f)!;
      expect(frameName(p.frames, f).startsWith(`${fn}+0x`)).toBe(true);
      const offset = bigOf(p.frames.addrHi?.[f] ?? 0, p.frames.addrLo?.[f] ?? 0);
      expect(addressOf(p.frames, p.modules, f)).toBe(`inline5+0x${offset.toString(16)}`);
      const runtime = mapping.start + offset - mapping.offset;
      const chain = chains.get(vaddrOf.get(runtime.toString(16)) ?? '');
      expect([frameName(p.frames, f), chain?.at(-1)?.name]).toEqual([frameName(p.frames, f), fn]);
    }
  });

  it('functions: inlined functions are Inlined frames unless a function of their own somewhere', () => {
    const p = folded('functions');
    const outermost = new Set([...chains.values()].map((c) => c[0].name));
    const inner = new Set([...chains.values()].flatMap((c) => c.slice(1).map((f) => f.name)));
    const own = ownFrames(p);
    const inlined = own.filter((f) => p.frames.kind[f] === FrameKind.Inlined);
    expect(inlined.length).toBeGreaterThan(3);
    for (const f of own) {
      const name = frameName(p.frames, f);
      const kind = outermost.has(name) ? FrameKind.Function : inner.has(name) ? FrameKind.Inlined : 'unknown';
      expect([name, p.frames.kind[f]]).toEqual([name, kind]);
      expect(functionOf(p.frames, f)).toBe(name);
      expect([sourceAt(p.frames, f), p.frames.unnamed?.[f] ?? Unnamed.Named]).toEqual([null, Unnamed.Named]);
    }
  });
});

/** Each frame of `p` as its name, module path and fields (strings resolved), by name and module. */
function byName(p: FoldedProfile): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  const t = p.frames;
  for (let f = 0; f < t.count; f++) {
    const key = `${p.modules[t.module[f]] ?? ''}\0${frameName(t, f)}`;
    out.set(key, [
      t.kind[f],
      t.unnamed?.[f] ?? Unnamed.Named,
      functionOf(t, f),
      sourceAt(t, f),
      t.addrHi?.[f] ?? 0,
      t.addrLo?.[f] ?? 0,
      t.fullName?.[f],
    ]);
  }
  return out;
}

/** Every frame of `derived` is the frame of the same name and module in one of `sources`, fields and all. */
function keepsFrames(derived: FoldedProfile, ...sources: FoldedProfile[]): void {
  const known = new Map(sources.flatMap((s) => [...byName(s)]));
  const got = byName(derived);
  expect(got.size).toBe(derived.frames.count);
  for (const [key, fields] of got) expect([key, fields]).toEqual([key, known.get(key)]);
}

describe('derivations keep each frame’s kind and fields', () => {
  for (const granularity of ['lines', 'addresses'] as const) {
    it(`transforms, inversion, sandwich halves and a comparison's merged table (${granularity})`, () => {
      const p = fold(loaded, { symbols, granularity, names: 'short' }).profile;
      const some = ownFrames(p).find((f) => p.frames.kind[f] !== FrameKind.Function)!;
      const fn = frameName(p.frames, some);
      const hidden = applyTransforms(p, [{ kind: 'hide-function', name: fn }]);
      keepsFrames(hidden, p);
      keepsFrames(invertProfile(hidden), p);
      const halves = sandwich(p, fn, { compact: true });
      keepsFrames(halves.callers, p);
      keepsFrames(halves.callees, p);
      const merged = applyTransforms(p, [{ kind: 'merge-module', module: 'libc.so.6' }]);
      const added = merged.frames.count - 1;
      expect([frameName(merged.frames, added), merged.frames.kind[added]]).toEqual([
        'libc.so.6',
        FrameKind.Module,
      ]);
      const other = fold(loaded, { symbols, granularity: 'functions', names: 'short' }).profile;
      const diff = mergeSides(p, other).profile;
      keepsFrames(diff, p, other);
      expect(diff.frames.count).toBeGreaterThan(p.frames.count);
    });
  }
});
