// Per-line and per-address counts of a function (the source panel, `flamelens list`) on a real
// -O2 -g program with deep inlining, against binutils and LLVM: every sampled address's inline
// chain and file:line as `addr2line -a -f -i` printed them, named as `llvm-symbolizer
// --functions=linkage --inlining` names them (test/fixtures/dwarf), aggregated here with plain
// maps — not the code under test.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeSnapshot } from '../src/core/formats/snapshot';
import { type SourceListing, sourceListing } from '../src/core/model/lines';
import { withResolvedNames } from '../src/core/model/resolve';
import { parse, symbolize } from '../src/core/pipeline';
import { type Demangle, loadDemangler } from '../src/core/symbols/demangle';
import type { RawProfile, Symbolizer } from '../src/core/types';
import { addr2lineChains, runtimeToVaddr as runtimeAddresses } from './helpers/addr2line';
import { readLlvmOracle } from './helpers/llvm';

const DIR = 'test/fixtures/dwarf';
const read = (f: string) => new Uint8Array(readFileSync(`${DIR}/${f}`));

/**
 * addr2line's answers with llvm-symbolizer's names (mangled, shown by our demangler): vaddr (hex,
 * no 0x, no leading zeros) → chain outermost first.
 */
function oracle(name: string): Map<string, { name: string; file: string; line: number }[]> {
  const out = addr2lineChains(name);
  for (const { vaddr, frames } of readLlvmOracle(`${DIR}/${name}.llvm.txt.gz`)) {
    const chain = out.get(vaddr.toString(16))!;
    expect(chain.map((f) => [f.file, f.line])).toEqual(frames.map((f) => [f.file, f.line]));
    chain.forEach((f, k) => {
      f.name = demangle(frames[k].name);
    });
  }
  return out;
}

let raw: RawProfile;
let symbolizer: Symbolizer;
let runtimeToVaddr: Map<string, string>;
let demangle: Demangle;
beforeAll(async () => {
  raw = parse(read('inline5.prof'), 'inline5.prof').raw;
  demangle = await loadDemangler();
  const s = symbolize(raw, [{ name: 'inline5', bytes: read('bin/inline5') }], {
    demangle,
    mangled: false,
  });
  symbolizer = s!.symbolizer;
  runtimeToVaddr = runtimeAddresses('inline5');
});

/** The reference listing of `name`, from the oracle's chains. */
function reference(name: string): { lines: Map<string, [number, number]>; self: number; total: number } {
  const chains = oracle('inline5');
  const lines = new Map<string, [number, number]>();
  let self = 0;
  let total = 0;
  const { stackStart, stackLocs, weight } = raw.samples;
  const { addrHi, addrLo } = raw.locations;
  for (let s = 0; s < raw.samples.count; s++) {
    const seen = new Set<string>();
    let on = false;
    for (let p = stackStart[s]; p < stackStart[s + 1]; p++) {
      const loc = stackLocs[p];
      let a = (BigInt(addrHi[loc]) << 32n) | BigInt(addrLo[loc]);
      if (p > stackStart[s]) a -= 1n;
      const chain = chains.get(runtimeToVaddr.get(a.toString(16)) ?? '');
      if (!chain) continue;
      chain.forEach((f, k) => {
        if (f.name !== name) return;
        on = true;
        const key = `${f.file}:${f.line}`;
        const c = lines.get(key) ?? [0, 0];
        if (!seen.has(key)) {
          seen.add(key);
          c[1] += weight[s];
        }
        if (p === stackStart[s] && k === chain.length - 1) {
          c[0] += weight[s];
          self += weight[s];
        }
        lines.set(key, c);
      });
    }
    if (on) total += weight[s];
  }
  return { lines, self, total };
}

const asMap = (l: SourceListing) => new Map(l.lines.map((x) => [`${x.file}:${x.line}`, [x.self, x.total]]));

describe('sourceListing against addr2line', () => {
  it('has the sampled functions’ per-line self and total, inlined code under the function it was written in', () => {
    // Every function both name alike (c++filt prints return types of templates; our demangler, as
    // Firefox Profiler's, does not: those few are left out).
    const oracleNames = new Set([...oracle('inline5').values()].flat().map((f) => f.name));
    const ourNames = new Set<string>();
    for (let loc = 0; loc < raw.locations.count; loc++)
      for (const f of symbolizer.lookupFrames?.(raw.locations.addrHi[loc], raw.locations.addrLo[loc]) ?? [])
        ourNames.add(f.name);
    const names = [...oracleNames].filter((n) => ourNames.has(n) && reference(n).total > 0);
    expect(names).toEqual(expect.arrayContaining(['main', 'fx::hot_chain(unsigned long)']));
    expect(names.length).toBeGreaterThan(4);
    for (const name of names) {
      const ours = sourceListing(raw, symbolizer, name);
      const ref = reference(name);
      expect(ref.total, name).toBeGreaterThan(0);
      expect([name, ours.hasLines]).toEqual([name, [...ref.lines.keys()].some((k) => !k.startsWith(':'))]);
      expect([name, ours.self, ours.total]).toEqual([name, ref.self, ref.total]);
      expect(asMap(ours)).toEqual(ref.lines);
    }
  });

  it('lists the function’s sampled addresses with their lines', () => {
    const l = sourceListing(raw, symbolizer, 'fx::hot_chain(unsigned long)');
    expect(l.addresses.length).toBeGreaterThan(1);
    expect(l.addresses.reduce((t, a) => t + a.self, 0)).toBe(l.self);
    for (const a of l.addresses) expect(a.file).toMatch(/inline\.cpp$/);
  });
});

describe('sourceListing of a report’s profile (the names and lines written in, no binary)', () => {
  it('lists a function’s lines from the report as from the binary, at lines and functions granularity', () => {
    const name = 'fx::hot_chain(unsigned long)';
    const ref = reference(name);
    const atLines = parse(
      writeSnapshot(withResolvedNames(raw, symbolizer, 'lines')),
      'inline5.flamelens',
    ).raw;
    const fromReport = sourceListing(atLines, null, name);
    expect(fromReport.hasLines).toBe(true);
    expect([fromReport.self, fromReport.total]).toEqual([ref.self, ref.total]);
    expect(asMap(fromReport)).toEqual(ref.lines);
    // A report written at functions granularity carries names only: the function, without lines.
    const atFunctions = parse(
      writeSnapshot(withResolvedNames(raw, symbolizer, 'functions')),
      'inline5.flamelens',
    ).raw;
    const named = sourceListing(atFunctions, null, name);
    expect([named.hasLines, named.self, named.total]).toEqual([false, ref.self, ref.total]);
  });
});

describe('flamelens fold --granularity lines|addresses and list', () => {
  it('names line frames `function file:line`, agreeing with the listing; address frames `function+0xOFF`', async () => {
    const { runCli } = await import('./helpers/cli');
    const args = [`${DIR}/inline5.prof`, '--binary', `${DIR}/bin/inline5`];
    const lines = await runCli(['fold', ...args, '--granularity', 'lines', '--full-names']);
    expect(lines.code).toBe(0);
    const name = 'fx::hot_chain(unsigned long)';
    const listing = sourceListing(raw, symbolizer, name);
    const leafSelf = new Map<string, number>();
    for (const l of lines.out.trim().split('\n')) {
      const sp = l.lastIndexOf(' ');
      const leaf = l.slice(0, sp).split(';').at(-1)!;
      leafSelf.set(leaf, (leafSelf.get(leaf) ?? 0) + Number(l.slice(sp + 1)));
    }
    for (const r of listing.lines.filter((x) => x.self > 0))
      expect([r.line, leafSelf.get(`${name} ${r.file}:${r.line}`)]).toEqual([r.line, r.self]);
    const addrs = await runCli(['fold', ...args, '--granularity', 'addresses', '--full-names']);
    expect(addrs.out).toMatch(/;main\+0x[0-9a-f]+;/);
    const list = await runCli(['list', 'hot_chain', ...args]);
    expect(list.code).toBe(0);
    expect(list.out).toContain(`ROUTINE ======================== ${name} in /fixtures/dwarf/src/inline.cpp`);
    expect(list.out).toMatch(new RegExp(`^\\s+${listing.self}\\s+${listing.total} \\(flat, cum\\)`, 'm'));
  });
});

// perl google-pprof --lines --text of a non-PIE build of the same program (for PIE binaries it
// prints ??:0): it names frames through one addr2line process, whose names depend on the order of
// the addresses (docs/dwarf.md), so the comparison is of self samples per file:line, every line of
// the program and of libc.
describe('line-level self totals against google-pprof --lines', () => {
  it('inlinenp: self per file:line equals perl pprof’s flat column, line by line', async () => {
    const { runCli } = await import('./helpers/cli');
    const D = 'test/fixtures/dwarf';
    const r = await runCli([
      'fold',
      `${D}/inlinenp.prof`,
      '--binary',
      `${D}/bin/inlinenp`,
      '--binary',
      'test/fixtures/sysroot/usr/lib/x86_64-linux-gnu/libc.so.6',
      '--binary',
      'test/fixtures/symbols/sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug',
      '--granularity',
      'lines',
    ]);
    expect(r.code).toBe(0);
    const ours = new Map<string, number>();
    for (const line of r.out.trim().split('\n')) {
      const sp = line.lastIndexOf(' ');
      const leaf = line.slice(0, sp).split(';').at(-1)!;
      const at = / (\S+:\d+)$/.exec(leaf)?.[1] ?? leaf;
      ours.set(at, (ours.get(at) ?? 0) + Number(line.slice(sp + 1)));
    }
    const perl = new Map<string, number>();
    for (const l of readFileSync(`${D}/inlinenp.pprof-lines.txt`, 'utf8').split('\n')) {
      const m = /^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+.*\s(\S+:\d+)$/.exec(l);
      if (m && Number(m[1]) > 0) perl.set(m[2], (perl.get(m[2]) ?? 0) + Number(m[1]));
    }
    expect(perl.size).toBeGreaterThan(10);
    expect(new Map([...ours].filter(([, n]) => n > 0))).toEqual(perl);
  });
});

// lines_ref.py's check (../shared/checks), stated on committed fixtures: for the corpus's two C++
// programs, every sample's stack of `function file:line` frames from `fold --granularity lines`
// equals the one built from binutils' inline chains, each address asked of its own addr2line
// process (test/fixtures/dwarf/corpus-*; lines_ref.py's single process answers depend on the
// order of the addresses: docs/dwarf.md). Exact: mangled names, whole paths, lines; by weight,
// both the leaf frame (self) and the whole stack.
describe('fold --granularity lines stacks equal addr2line asked per address', () => {
  for (const name of ['cxx_demangle', 'cxx_demangle32']) {
    it(`corpus ${name}: every stack and every leaf, by weight`, async () => {
      const { runCli } = await import('./helpers/cli');
      const prof = `test/fixtures/gperf/${name}.prof`;
      // Mangled: llvm-symbolizer's own names (the demangled comparison is dwarf.test.ts's), with
      // addr2line's files and lines.
      const chains = new Map<string, string[]>();
      const text = gunzipSync(readFileSync(`${DIR}/corpus-${name}.a2l-mangled.txt.gz`)).toString('utf8');
      const addrs = readFileSync(`${DIR}/corpus-${name}.addrs.txt`, 'utf8').trim().split('\n');
      const llvm = readLlvmOracle(`${DIR}/corpus-${name}.llvm.txt.gz`);
      const blocks = text.split(/^(?=0x[0-9a-f]+$)/m).filter((b) => b !== '');
      expect(blocks).toHaveLength(addrs.length);
      expect(llvm).toHaveLength(addrs.length);
      blocks.forEach((b, i) => {
        const l = b.replace(/\n$/, '').split('\n');
        const frames: string[] = [];
        const names = llvm[i].frames.map((f) => f.name);
        expect(names.length * 2).toBe(l.length - 1);
        for (let k = 1; k + 1 < l.length; k += 2) {
          const m = /^(.*):(\d+)(?: \(discriminator \d+\))?$/.exec(l[k + 1]);
          const fn = names[names.length - 1 - (k - 1) / 2];
          // As lines_ref.py: frames with a name, a file and a line.
          if (fn !== '??' && m && m[1] !== '??' && m[2] !== '0') frames.unshift(`${fn} ${m[1]}:${m[2]}`);
        }
        chains.set(BigInt(addrs[i].split(' ')[0]).toString(16), frames);
      });
      const want = { self: new Map<string, number>(), stacks: new Map<string, number>() };
      const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
      const p = parse(new Uint8Array(readFileSync(prof)), `${name}.prof`).raw;
      const { stackStart, stackLocs, weight } = p.samples;
      let inProgram = 0;
      for (let s = 0; s < p.samples.count; s++) {
        const seq: string[] = [];
        for (let q = stackStart[s + 1] - 1; q >= stackStart[s]; q--) {
          const loc = stackLocs[q];
          let a = (BigInt(p.locations.addrHi[loc]) << 32n) | BigInt(p.locations.addrLo[loc]);
          if (q > stackStart[s]) a -= 1n; // callers at PC − 1
          const chain = chains.get(a.toString(16)) ?? [];
          seq.push(...chain);
          if (q === stackStart[s] && chain.length > 0) add(want.self, chain.at(-1)!, weight[s]);
        }
        if (seq.length > 0) {
          add(want.stacks, seq.join(';'), weight[s]);
          inProgram += weight[s];
        }
      }
      const r = await runCli([
        'fold',
        prof,
        '--binary',
        `test/fixtures/gperf/bin/${name}`,
        '--granularity',
        'lines',
        '--mangled',
        '--full-names',
      ]);
      expect(r.code).toBe(0);
      const got = { self: new Map<string, number>(), stacks: new Map<string, number>() };
      for (const line of r.out.trim().split('\n')) {
        const sp = line.lastIndexOf(' ');
        const n = Number(line.slice(sp + 1));
        const frames = line
          .slice(0, sp)
          .split(';')
          .filter((f) => /^.* \S+:\d+$/.test(f));
        if (frames.length === 0) continue;
        add(got.stacks, frames.join(';'), n);
        const leaf = line.slice(0, sp).split(';').at(-1)!;
        if (frames.at(-1) === leaf) add(got.self, leaf, n);
      }
      expect(inProgram).toBeGreaterThan(100);
      expect(want.stacks.size).toBeGreaterThan(10);
      expect(got.self).toEqual(want.self);
      expect(got.stacks).toEqual(want.stacks);
    });
  }
});
