// DWARF symbolization against binutils and LLVM: for every address the fixtures' profiles sampled
// (callers at PC − 1) and every other byte of their .text, our inline chain has the frames, file
// paths and lines of `addr2line -a -f -i` and the names of `llvm-symbolizer --functions=linkage
// --inlining` (Go pprof's symbolizer: the outermost frame named by the file's own symbol table,
// inlined functions by DWARF; addr2line names a function inlined into another symbol, such as a
// lambda, after that symbol). Fixtures and oracles: test/fixtures/dwarf/ (made by its
// src/make_dwarf_fixtures.sh and src/llvm_oracle.py; neither tool is needed here).

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { readLlvmOracle } from '../../../../test/helpers/llvm';
import { executableMappings } from '../../../../test/helpers/maps';
import { splitBig } from '../../address.ts';
import type { Mapping, SymbolFrame, Symbolizer } from '../../types.ts';
import { type Demangle, loadDemangler } from '../demangle.ts';
import { readElf } from '../elf.ts';
import { crc32, type InputFile, symbolizerFromFiles } from '../symbolize.ts';

const DIR = new URL('../../../../test/fixtures/dwarf/', import.meta.url).pathname;
const load = (rel: string) => new Uint8Array(readFileSync(DIR + rel));
const bin = (name: string, as = name): InputFile => ({ name: as, bytes: load(`bin/${name}`) });

function mappingsOf(profile: string): Mapping[] {
  return executableMappings(load(`${profile}.prof`));
}

/** Link-time addresses: the address is the virtual address (for the .text sweeps). */
const linkTime = (name: string): Mapping[] => [
  { start: 0n, end: 1n << 40n, offset: 0n, path: `/fixtures/${name}`, linkTimeAddresses: true },
];

interface Expected {
  runtime: bigint;
  vaddr: bigint;
  /** Outermost first. `line` undefined when addr2line prints `??:0`, `??:?` or `file:?`. */
  frames: { name: string; file?: string; line?: number }[];
}

/** An oracle: NAME.addrs.txt with NAME.a2l.txt.gz (or a2l-mangled). */
function oracle(name: string, mangled: boolean): Expected[] {
  const addrs = new TextDecoder()
    .decode(load(`${name}.addrs.txt`))
    .trim()
    .split('\n');
  const text = gunzipSync(load(`${name}.${mangled ? 'a2l-mangled' : 'a2l'}.txt.gz`)).toString('utf8');
  const blocks = text.split(/^(?=0x[0-9a-f]+$)/m).filter((b) => b !== '');
  expect(blocks).toHaveLength(addrs.length);
  return blocks.map((b, i) => {
    const lines = b.replace(/\n$/, '').split('\n');
    const [rt, va] = addrs[i].split(' ');
    expect(BigInt(lines[0])).toBe(BigInt(va));
    const frames: Expected['frames'] = [];
    for (let k = 1; k + 1 < lines.length; k += 2) {
      const loc = lines[k + 1].replace(/ \(discriminator \d+\)$/, '');
      const c = loc.lastIndexOf(':');
      const line = loc.slice(c + 1);
      if (line === '?' || line === '0') frames.push({ name: lines[k] });
      else frames.push({ name: lines[k], file: loc.slice(0, c), line: Number(line) });
    }
    frames.reverse();
    return { runtime: rt === '-' ? BigInt(va) : BigInt(rt), vaddr: BigInt(va), frames };
  });
}

/**
 * NAME.llvm.txt.gz: each address's names, outermost first, as llvm-symbolizer printed them, and
 * the innermost frame's file (the line table's).
 */
function llvmNames(name: string): { vaddr: bigint; names: string[]; innermostFile: string }[] {
  return readLlvmOracle(`${DIR}${name}.llvm.txt.gz`).map((e) => ({
    vaddr: e.vaddr,
    names: e.frames.map((f) => f.name),
    innermostFile: e.frames[e.frames.length - 1]?.file ?? '',
  }));
}

/** `ours` (wasm demangler) equals `cxxfilt` but for a template return type and pack `&&`s. */
function sameModuloDemanglerQuirks(ours: string, cxxfilt: string): boolean {
  const a = ours.replace(/&&/g, '');
  const b = cxxfilt.replace(/&&/g, '');
  return a === b || b.endsWith(` ${a}`);
}

let demangle: Demangle;
beforeAll(async () => {
  demangle = await loadDemangler();
});

const frames = (s: Symbolizer, a: bigint): SymbolFrame[] | null => {
  const [hi, lo] = splitBig(a);
  return s.lookupFrames!(hi, lo);
};

interface Tally {
  checked: number;
  /**
   * Addresses no sized ELF symbol covers (alignment padding, PLT stubs): addr2line names the
   * symbol below, we give no name. `paddingAt`: their virtual addresses.
   */
  padding: number;
  paddingAt: bigint[];
  /** Demangled names equal to addr2line -C's (c++filt), modulo the quirks above. */
  sameAsCxxfilt: number;
  names: number;
  /** Addresses llvm-symbolizer names `??` and we after the debug file's symbol (addr2line's). */
  unnamedByLlvm: number;
  /**
   * Addresses whose line-table row comes before any DW_LNS_set_file of a DWARF 5 sequence, where
   * addr2line 2.40 names file 0 and llvm-symbolizer (and we) file 1, the register's initial value
   * (binutils PR 30783, fixed in 2.42): the innermost file is then llvm-symbolizer's.
   */
  fileOne: number;
}

/**
 * Compares every oracle address. Mangled (`mangled: true`): frames, files and lines exactly as
 * `addr2line -f -i`, names exactly as llvm-symbolizer's. Demangled: each name is our demangler's
 * rendering of llvm-symbolizer's mangled name (the wasm demangler differs from c++filt in places:
 * counted in `sameAsCxxfilt`, against addr2line -C where both name a frame alike).
 * `padding` addresses are those the file's symbol table does not cover.
 */
function check(
  oracleName: string,
  files: InputFile[],
  maps: Mapping[],
  elfForPadding: string,
  /** The file holds rows before a DWARF 5 set_file that addr2line 2.40 misnames (`fileOne`). */
  bfdFileZero = false,
): Tally {
  const elf = readElf(load(`bin/${elfForPadding}`), elfForPadding);
  const tally: Tally = {
    checked: 0,
    padding: 0,
    paddingAt: [],
    sameAsCxxfilt: 0,
    names: 0,
    unnamedByLlvm: 0,
    fileOne: 0,
  };
  const raw = oracle(oracleName, true);
  const cxxfilt = oracle(oracleName, false);
  const llvm = llvmNames(oracleName);
  expect(llvm.map((e) => e.vaddr)).toEqual(raw.map((e) => e.vaddr));
  for (const mangled of [true, false]) {
    const { symbolizer, report } = symbolizerFromFiles(maps, files, { demangle, mangled });
    expect(report.warnings).toEqual([]);
    expect(symbolizer.lookupFrames).toBeDefined();
    tally.checked = 0;
    tally.padding = 0;
    tally.paddingAt = [];
    tally.unnamedByLlvm = 0;
    tally.fileOne = 0;
    for (let i = 0; i < raw.length; i++) {
      const e = raw[i];
      const got = frames(symbolizer, e.runtime);
      const v = splitBig(e.vaddr);
      if (elf.symbols.lookup(v[0], v[1]) < 0 && (got === null || got.length === 1)) {
        tally.padding++;
        tally.paddingAt.push(e.vaddr);
        continue;
      }
      const where = `${oracleName} 0x${e.vaddr.toString(16)}${mangled ? ' (mangled)' : ''}`;
      expect(got, where).not.toBe(null);
      expect(got!.length, `${where}: ${JSON.stringify(got)}`).toBe(e.frames.length);
      const names = llvm[i].names;
      expect(names.length, `${where}: llvm-symbolizer's frames`).toBe(e.frames.length);
      for (let k = 0; k < e.frames.length; k++) {
        const x = e.frames[k];
        const g = got![k];
        if (names[k] === '??' && e.frames.length === 1) {
          // No DWARF function and none of the file's own symbols (a stripped library's static
          // asm code): llvm-symbolizer has no name; we take the debug file's symbol, as addr2line.
          expect(g.name, `${where} frame ${k}`).toBe(mangled ? x.name : demangle(x.name));
          tally.unnamedByLlvm++;
        } else if (mangled) {
          expect(g.name, `${where} frame ${k}`).toBe(names[k]);
        } else {
          expect(g.name, `${where} frame ${k}`).toBe(demangle(names[k]));
          if (names[k] === x.name) {
            tally.names++;
            if (sameModuloDemanglerQuirks(g.name, cxxfilt[i].frames[k].name)) tally.sameAsCxxfilt++;
          }
        }
        expect(g.line, `${where} frame ${k}`).toBe(x.line);
        if (x.line === undefined) continue;
        const innermost = k === e.frames.length - 1;
        if (bfdFileZero && innermost && x.file !== llvm[i].innermostFile && names[k] !== '??') {
          expect(g.file, `${where} frame ${k} (file 1, as llvm-symbolizer)`).toBe(llvm[i].innermostFile);
          tally.fileOne++;
        } else {
          expect(g.file, `${where} frame ${k}`).toBe(x.file);
        }
      }
      // lookup gives the same names.
      const [hi, lo] = splitBig(e.runtime);
      expect(symbolizer.lookup(hi, lo)).toEqual(got!.map((f) => f.name));
      tally.checked++;
    }
  }
  // The wasm demangler renders a few libstdc++ names differently from c++filt.
  expect(tally.sameAsCxxfilt).toBeGreaterThanOrEqual(tally.names * 0.9);
  return tally;
}

describe('DWARF inline chains equal addr2line -f -i -C on the fixtures', () => {
  const cases: [string, string, string][] = [
    // [oracle, binary, what]
    ['inline5', 'inline5', 'C++ templates, DWARF 5'],
    ['inline4', 'inline4', 'DWARF 4 (.debug_ranges, v4 line tables)'],
    ['inlinegz', 'inlinegz', 'SHF_COMPRESSED zlib sections (gcc -gz)'],
    ['m32', 'm32', 'ELF32 i386 (-m32)'],
    ['clang5', 'clang5', 'clang++ 14: strx/addrx/rnglistx forms, no .debug_aranges'],
  ];
  for (const [name, file, what] of cases) {
    it(`${name}: every sampled address (${what})`, () => {
      const t = check(name, [bin(file)], mappingsOf(name), file);
      expect(t.padding).toBe(0);
      expect(t.checked).toBeGreaterThan(0);
    });
  }

  // The corpus's two C++ programs (../gperf): `lines_ref.py` runs one addr2line process over all
  // their addresses, whose answers depend on the order (bfd renames a template instance after its
  // ELF symbol once it has answered for it); asked one address at a time, as here, addr2line and
  // we agree on every sampled address.
  for (const name of ['cxx_demangle', 'cxx_demangle32']) {
    it(`corpus ${name}: every sampled address, addr2line asked one address at a time`, () => {
      const file = `../../gperf/bin/${name}`;
      const maps = executableMappings(load(`../gperf/${name}.prof`));
      const t = check(`corpus-${name}`, [bin(file, name)], maps, file);
      // The only addresses left out are two sampled PLT stubs in each (.plt is 0x1020–0x115f:
      // no sized symbol, no DWARF; pprof names them `_init`).
      expect(t.paddingAt.length).toBe(2);
      for (const a of t.paddingAt) expect(a >= 0x1020n && a < 0x1160n, `0x${a.toString(16)}`).toBe(true);
      expect(t.checked).toBeGreaterThan(50);
    });
  }

  // -gdwarf64 and .zdebug_* builds have inline5's very .text (the fixture script checks it), and
  // binutils 2.40 cannot read them: inline5's oracle is theirs. The files are dropped as `inline5`.
  for (const [file, what] of [
    ['inline64', '64-bit DWARF (-gdwarf64)'],
    ['inlinezg', '.zdebug_* sections (zlib-gnu)'],
  ]) {
    it(`${file}: inline5's sampled addresses (${what})`, () => {
      const t = check('inline5', [bin(file, 'inline5')], mappingsOf('inline5'), 'inline5');
      expect(t.padding).toBe(0);
      expect(t.checked).toBeGreaterThan(0);
    });
    it(`${file}: every other byte of .text`, () => {
      const t = check('inline5.sweep', [bin(file, 'inline5')], linkTime('inline5'), 'inline5');
      expect(t.checked).toBeGreaterThan(500);
    });
  }

  it('m32gz: m32 with compressed sections (ELF32 compression headers)', () => {
    expect(check('m32', [bin('m32gz', 'm32')], mappingsOf('m32'), 'm32').checked).toBeGreaterThan(0);
    expect(check('m32.sweep', [bin('m32gz', 'm32')], linkTime('m32'), 'm32').checked).toBeGreaterThan(250);
  });

  for (const name of ['inline5', 'inline4', 'clang5', 'm32']) {
    it(`${name}: every other byte of .text`, () => {
      const t = check(`${name}.sweep`, [bin(name)], linkTime(name), name);
      expect(t.checked).toBeGreaterThan(250);
      expect(t.padding).toBeLessThan(t.checked / 10);
    });
  }
});

describe("Debian's libc.so.6 with its libc6-dbg debug file (DWARF 5 from another build)", () => {
  it('one address every 4099 bytes of .text', () => {
    const sys = '../symbols/sysroot/usr/lib/';
    const files: InputFile[] = [
      { name: 'libc.so.6', bytes: load(`${sys}x86_64-linux-gnu/libc.so.6`) },
      {
        name: 'ac61ec5a8eb1396f9fbd350e3169a558528a40.debug',
        bytes: load(`${sys}debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug`),
      },
    ];
    const debug = `../${sys}debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug`;
    const t = check('libc.sweep', files, linkTime('libc.so.6'), debug, true);
    expect(t.checked).toBeGreaterThan(300);
    // 0x3b3bf: scalbn's first row, before any set_file, is s_ldexp_template.c:27 (file 1), which
    // the generated build-tree/…/s_ldexp.c (file 0, addr2line 2.40's answer) #includes.
    expect(t.fileOne).toBeGreaterThan(0);
    // Static asm code (`__addtf3`, …): the debug file's symbols name what llvm-symbolizer does not.
    expect(t.unnamedByLlvm).toBeGreaterThan(0);
    expect(t.unnamedByLlvm).toBeLessThan(t.checked / 20);
  });
});

describe('DWARF 5 rows before any DW_LNS_set_file name file 1 (the register’s initial value)', () => {
  // fileone.c's first code is header_spin, defined in fileone.h: its rows come before any
  // set_file, so their file is file 1, fileone.h (gcc -flto: every function's first rows, file 0
  // being `<artificial>`). addr2line 2.40 names file 0 there (fileone*.sweep.a2l.txt.gz: fileone.c,
  // `<artificial>`; binutils PR 30783, fixed in 2.42); the oracle is llvm-symbolizer.
  for (const name of ['fileone', 'fileone-lto']) {
    it(`${name}: every byte of .text equals llvm-symbolizer (names, files, lines)`, () => {
      const runtimes = new TextDecoder()
        .decode(load(`${name}.sweep.addrs.txt`))
        .trim()
        .split('\n')
        .map((l) => BigInt(l.split(' ')[1]));
      const llvm = readLlvmOracle(`${DIR}${name}.sweep.llvm.txt.gz`);
      expect(llvm.map((e) => e.vaddr)).toEqual(runtimes);
      const { symbolizer } = symbolizerFromFiles(linkTime(name), [bin(name)], { demangle, mangled: true });
      const files = new Map<string, number>();
      let checked = 0;
      for (const { vaddr, frames: want } of llvm) {
        const got = frames(symbolizer, vaddr);
        const where = `${name} 0x${vaddr.toString(16)}`;
        if (want.length === 1 && want[0].name === '??') {
          // Alignment padding between functions: no symbol, no row.
          expect(got, where).toBe(null);
          continue;
        }
        if (want.length === 1 && want[0].line === 0) {
          // crtstuff.c's functions: no line rows. LLVM prints the unit's name with line 0, we
          // give no file:line.
          expect(
            got?.map((f) => [f.name, f.file, f.line]),
            where,
          ).toEqual([[want[0].name, undefined, undefined]]);
          continue;
        }
        expect(
          got?.map((f) => [f.name, f.file ?? '', f.line ?? 0]),
          where,
        ).toEqual(want.map((f) => [f.name, f.file, f.line]));
        const file = want[want.length - 1].file;
        files.set(file, (files.get(file) ?? 0) + 1);
        checked++;
      }
      expect(checked).toBeGreaterThan(100);
      // header_spin's code is the header's lines; no row is named after `<artificial>`.
      expect(files.get('/fixtures/dwarf/src/fileone.h')).toBeGreaterThan(30);
      expect([...files.keys()].filter((f) => f.includes('<artificial>'))).toEqual([]);
    });
  }
});

describe('separate debug files', () => {
  const id = readElf(load('bin/split'), 'split').buildId!;
  const byId = `bin/.build-id/${id.slice(0, 2)}/${id.slice(2)}.debug`;

  it('the stripped binary has no DWARF; its debug file is found by build-id and lends its DWARF', () => {
    expect(readElf(load('bin/split'), 'split').dwarf).toBeUndefined();
    expect(readElf(load('bin/split'), 'split').debugLink?.file).toBe('split.debug');
    const t = check('split', [bin('split'), bin('split.debug')], mappingsOf('split'), 'split.debug');
    expect(t.padding).toBe(0);
    expect(t.checked).toBeGreaterThan(0);
  });

  it('the .build-id/xx/yyyy.debug copy works the same', () => {
    const debug: InputFile = { name: `${id.slice(2)}.debug`, bytes: load(byId) };
    const t = check('split', [bin('split'), debug], mappingsOf('split'), 'split.debug');
    expect(t.padding).toBe(0);
    const s = check('split.sweep', [bin('split'), debug], linkTime('split'), 'split.debug');
    expect(s.checked).toBeGreaterThan(150);
  });

  it('without a build-id: the debug file the .gnu_debuglink names (name and CRC)', () => {
    const e = readElf(load('bin/splitnb'), 'splitnb');
    expect(e.buildId).toBeUndefined();
    expect(e.debugLink).toEqual({ file: 'splitnb.debug', crc: crc32(load('bin/splitnb.debug')) });
    const t = check(
      'splitnb',
      [bin('splitnb'), bin('splitnb.debug')],
      mappingsOf('splitnb'),
      'splitnb.debug',
    );
    expect(t.padding).toBe(0);
    expect(t.checked).toBeGreaterThan(0);
    // Another file of that name (a wrong CRC) is not taken.
    const wrong: InputFile = { name: 'splitnb.debug', bytes: load('bin/split.debug') };
    const { symbolizer, report } = symbolizerFromFiles(mappingsOf('splitnb'), [bin('splitnb'), wrong]);
    expect(symbolizer.lookupFrames).toBeUndefined();
    expect(report.unmatchedFiles).toEqual(['splitnb.debug']);
  });

  it('without its debug file the binary still names functions from .dynsym / .symtab, with no lookupFrames', () => {
    const { symbolizer } = symbolizerFromFiles(mappingsOf('split'), [bin('split')], { demangle });
    expect(symbolizer.lookupFrames).toBeUndefined();
    const named = oracle('split', false).filter((e) => {
      const [hi, lo] = splitBig(e.runtime);
      return symbolizer.lookup(hi, lo) !== null;
    });
    expect(named.length).toBeGreaterThan(0);
  });
});

describe('lookup with and without DWARF', () => {
  it('dwarf: false gives the symbol-table names; DWARF gives the inline chain (outermost = the real function)', () => {
    const maps = mappingsOf('inline5');
    const withDwarf = symbolizerFromFiles(maps, [bin('inline5')], { demangle }).symbolizer;
    const without = symbolizerFromFiles(maps, [bin('inline5')], { demangle, dwarf: false }).symbolizer;
    expect(without.lookupFrames).toBeUndefined();
    let deeper = 0;
    for (const e of oracle('inline5', false)) {
      const [hi, lo] = splitBig(e.runtime);
      const a = withDwarf.lookup(hi, lo)!;
      const b = without.lookup(hi, lo)!;
      expect(b).toHaveLength(1);
      // The outermost frame is named by the symbol table, with DWARF as without (main.cold too).
      expect(a[0], e.vaddr.toString(16)).toBe(b[0]);
      if (a.length > 1) deeper++;
    }
    expect(deeper).toBeGreaterThan(5);
  });
});
