import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitBig } from '../address.ts';
import {
  ElfError,
  type ElfFile,
  ET_DYN,
  ET_EXEC,
  mergeDebugFile,
  offsetToVaddr,
  readElf,
  SymbolTable,
  vaddrToOffset,
} from './elf.ts';

const FIX = new URL('../../../test/fixtures/symbols/', import.meta.url);
const fixturePath = (rel: string) => new URL(rel, FIX).pathname;
const load = (rel: string) => new Uint8Array(readFileSync(fixturePath(rel)));
const elfOf = (rel: string) => readElf(load(rel), rel.split('/').pop()!);

const LIBC = 'sysroot/usr/lib/x86_64-linux-gnu/libc.so.6';
const LIBC_DEBUG = 'sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug';

/** The name of the symbol covering vaddr (a bigint), or null. */
function nameAt(e: ElfFile | SymbolTable, vaddr: bigint): string | null {
  const t = e instanceof SymbolTable ? e : e.symbols;
  const [hi, lo] = splitBig(vaddr);
  const i = t.lookup(hi, lo);
  return i < 0 ? null : t.names[i];
}

/** Defined FUNC/IFUNC symbols from `readelf -sW` (null when readelf is not installed). */
function readelfFunctions(rel: string): { addr: bigint; size: number; name: string }[] | null {
  const r = spawnSync('readelf', ['-sW', fixturePath(rel)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error || r.status !== 0) return null;
  const out: { addr: bigint; size: number; name: string }[] = [];
  for (const line of r.stdout.split('\n')) {
    const p = line.trim().split(/\s+/);
    if (p.length < 8 || (p[3] !== 'FUNC' && p[3] !== 'IFUNC') || p[6] === 'UND') continue;
    const addr = BigInt(`0x${p[1]}`);
    if (addr === 0n) continue;
    out.push({ addr, size: p[2].startsWith('0x') ? Number(p[2]) : Number.parseInt(p[2], 10), name: p[7] });
  }
  return out;
}
const hasReadelf = readelfFunctions('bin/tiny') !== null;

/**
 * Every defined function symbol readelf lists is found at its address (as itself or an alias at
 * the same address), and its last byte still resolves to a symbol starting at that address.
 */
function compareWithReadelf(rel: string, e: ElfFile): number {
  const fns = readelfFunctions(rel)!;
  const byAddr = new Map<bigint, Set<string>>();
  for (const f of fns) {
    const set = byAddr.get(f.addr) ?? new Set();
    set.add(f.name.replace(/ \(\d+\)$/, ''));
    byAddr.set(f.addr, set);
  }
  let checked = 0;
  for (const f of fns) {
    const got = nameAt(e, f.addr);
    expect(got, `${rel} ${f.name} @${f.addr.toString(16)}`).not.toBeNull();
    const aliases = byAddr.get(f.addr)!;
    // readelf prints `.dynsym` versions as `name@VER`; `.symtab` names may carry them too.
    const bare = new Set([...aliases].map((n) => n.replace(/@.*$/, '')));
    expect(bare.has(got!.replace(/@.*$/, '')), `${got} is one of ${[...aliases].join(', ')}`).toBe(true);
    if (f.size > 1) {
      // The last byte is covered too (by this symbol, or by one nested inside it).
      expect(nameAt(e, f.addr + BigInt(f.size - 1)), `${f.name} end`).not.toBeNull();
    }
    checked++;
  }
  return checked;
}

describe('readElf on real files', () => {
  it('reads the 64-bit PIE tiny: header, build-id, segments, symbols', () => {
    const e = elfOf('bin/tiny');
    expect(e.is64).toBe(true);
    expect(e.littleEndian).toBe(true);
    expect(e.type).toBe(ET_DYN);
    expect(e.buildId).toBe('feeca5ea921eb08f97159818aca05a34e0ac6c1a');
    expect(e.isDebugFile).toBe(false);
    expect(e.symbolSource).toBe('symtab');
    expect(e.loadSegments.map((s) => [s.offset, Number(s.vaddr), s.filesz])).toEqual([
      [0, 0, 0x638],
      [0x1000, 0x1000, 0x1d5],
      [0x2000, 0x2000, 0x178],
      [0x2db0, 0x3db0, 0x268],
    ]);
    // Symbol starts and ends (readelf -sW: spin 0x1139/48, alpha 0x1169/16, gamma_ 0x1179/16,
    // beta 0x1189/21, main 0x119e/45, _start 0x1050/34).
    expect(nameAt(e, 0x1139n)).toBe('spin');
    expect(nameAt(e, 0x1168n)).toBe('spin');
    expect(nameAt(e, 0x1169n)).toBe('alpha');
    expect(nameAt(e, 0x1178n)).toBe('alpha');
    expect(nameAt(e, 0x1186n)).toBe('gamma_');
    expect(nameAt(e, 0x119dn)).toBe('beta');
    expect(nameAt(e, 0x11a6n)).toBe('main');
    expect(nameAt(e, 0x11cbn)).toBe(null); // past main's 45 bytes, before _fini
    expect(nameAt(e, 0x106fn)).toBe('_start');
    expect(nameAt(e, 0x1000n)).toBe('_init');
    // _init has size 0: it covers its own section (.init, 0x1000..0x101b) and no more, so the
    // PLT right after it stays unnamed, as in Go pprof.
    expect(nameAt(e, 0x1020n)).toBe(null);
    // A size-0 local in .text runs up to the next symbol.
    expect(nameAt(e, 0x1138n)).toBe('frame_dummy');
  });

  it('reads the 32-bit tiny32', () => {
    const e = elfOf('bin/tiny32');
    expect(e.is64).toBe(false);
    expect(e.littleEndian).toBe(true);
    expect(e.type).toBe(ET_DYN);
    expect(e.buildId).toBe('b62586fdcf6b9f6b30343f9bf76ffe7ab7d49798');
    expect(nameAt(e, 0x118dn)).toBe('spin');
    expect(nameAt(e, 0x11e0n)).toBe('gamma_');
  });

  // CI installs binutils: there a missing readelf fails the test instead of skipping it.
  it.skipIf(!hasReadelf && !process.env.CI)(
    'agrees with readelf -sW on executables and shared objects (32/64-bit)',
    () => {
      for (const rel of [
        'bin/tiny',
        'bin/tiny32',
        'bin/cxx_demangle',
        'bin/libfoo.so',
        'sysroot/usr/lib/i386-linux-gnu/ld-linux.so.2',
        LIBC,
      ]) {
        const e = elfOf(rel);
        expect(compareWithReadelf(rel, e), rel).toBeGreaterThan(5);
      }
    },
  );

  it('falls back to .dynsym for the stripped libc and reads its debug link', () => {
    const libc = elfOf(LIBC);
    expect(libc.symbolSource).toBe('dynsym');
    expect(libc.buildId).toBe('93ac61ec5a8eb1396f9fbd350e3169a558528a40');
    expect(libc.debugLink?.file).toBe('ac61ec5a8eb1396f9fbd350e3169a558528a40.debug');
    expect(libc.symbols.count).toBeGreaterThan(2000);
    // Aliases: __libc_start_main@@GLIBC_2.34 and @GLIBC_2.2.5: the default version wins.
    expect(nameAt(libc, 0x27280n)).toBe('__libc_start_main');
    // A static function (only in the debug file) is not covered by any .dynsym symbol.
    expect(nameAt(libc, 0x27249n)).toBe(null);
  });

  it('merges the separate debug file with the stripped library of the same build-id', () => {
    const libc = elfOf(LIBC);
    const dbg = elfOf(LIBC_DEBUG);
    expect(dbg.isDebugFile).toBe(true);
    expect(dbg.buildId).toBe(libc.buildId);
    expect(dbg.symbolSource).toBe('symtab'); // its .dynsym is NOBITS
    const merged = mergeDebugFile(libc, dbg);
    expect(merged.loadSegments).toBe(libc.loadSegments);
    expect(merged.symbolSource).toBe('symtab+dynsym');
    expect(nameAt(merged, 0x27249n)).toBe('__libc_start_call_main');
    // __libc_start_main_impl (LOCAL) and __libc_start_main (GLOBAL) share 0x27280: exported wins
    // (the library's `__libc_start_main@@GLIBC_2.34`, shown without its version).
    expect(nameAt(merged, 0x27304n)?.replace(/@.*$/, '')).toBe('__libc_start_main');
    // malloc / __libc_malloc (GLOBAL), __malloc, __GI___libc_malloc (LOCAL): the exported alias the
    // library's .dynsym defines last, as Go pprof names it (cxx_demangle's go.raw.txt).
    expect(nameAt(merged, 0x98930n)?.replace(/@.*$/, '')).toBe('__libc_malloc');
  });

  it('converts file offsets to virtual addresses and back (PIE, shared object)', () => {
    const tiny = elfOf('bin/tiny');
    expect(offsetToVaddr(tiny.loadSegments, 0x119b)).toEqual([0, 0x119b]);
    expect(offsetToVaddr(tiny.loadSegments, 0x2db8)).toEqual([0, 0x3db8]); // RW segment is shifted
    expect(offsetToVaddr(tiny.loadSegments, 0x4000)).toBe(null);
    expect(vaddrToOffset(tiny.loadSegments, 0x3db8n)).toBe(0x2db8);
    expect(vaddrToOffset(tiny.loadSegments, 0x9999999n)).toBe(-1);
    const libc = elfOf(LIBC);
    expect(offsetToVaddr(libc.loadSegments, 0x27249)).toEqual([0, 0x27249]);
  });
});

// ---------------------------------------------------------------------------------------------
// Synthetic ELF files: big endian (no BE toolchain here), 32/64-bit, and damaged ones.

interface SynthSym {
  name: string;
  value: bigint;
  size: number;
  info: number; // (bind << 4) | type
  shndx: number;
}

/**
 * A minimal ELF: sections [null, .text, .symtab, .strtab, .shstrtab, .note.gnu.build-id], one
 * PT_LOAD (offset 0x1000 → vaddr `base`+0x1000) and a PT_NOTE.
 */
function synthElf(opts: {
  is64: boolean;
  le: boolean;
  base: bigint;
  type?: number;
  syms: SynthSym[];
}): Uint8Array {
  const { is64, le } = opts;
  const buf = new Uint8Array(0x3000);
  const dv = new DataView(buf.buffer);
  const u16 = (o: number, v: number) => dv.setUint16(o, v, le);
  const u32 = (o: number, v: number) => dv.setUint32(o, v, le);
  const u64 = (o: number, v: bigint) => dv.setBigUint64(o, v, le);
  buf.set([0x7f, 0x45, 0x4c, 0x46, is64 ? 2 : 1, le ? 1 : 2, 1]);
  const textOff = 0x1000;
  const textAddr = opts.base + 0x1000n;
  // strtab / shstrtab / note / symtab layout
  const strtab: number[] = [0];
  const nameOff = opts.syms.map((s) => {
    const o = strtab.length;
    for (const c of s.name) strtab.push(c.charCodeAt(0));
    strtab.push(0);
    return o;
  });
  const shnames = ['', '.text', '.symtab', '.strtab', '.shstrtab', '.note.gnu.build-id'];
  const shstr: number[] = [];
  const shNameOff = shnames.map((n) => {
    const o = shstr.length;
    for (const c of n) shstr.push(c.charCodeAt(0));
    shstr.push(0);
    return o;
  });
  const symOff = 0x2000;
  const symEnt = is64 ? 24 : 16;
  const nsym = opts.syms.length + 1;
  const strOff = symOff + nsym * symEnt;
  buf.set(strtab, strOff);
  const shstrOff = strOff + strtab.length;
  buf.set(shstr, shstrOff);
  const noteOff = (shstrOff + shstr.length + 3) & ~3;
  u32(noteOff, 4);
  u32(noteOff + 4, 8);
  u32(noteOff + 8, 3);
  buf.set([0x47, 0x4e, 0x55, 0], noteOff + 12);
  buf.set([0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04], noteOff + 16);
  const noteSize = 24;
  opts.syms.forEach((s, k) => {
    const o = symOff + (k + 1) * symEnt;
    u32(o, nameOff[k]);
    if (is64) {
      buf[o + 4] = s.info;
      u16(o + 6, s.shndx);
      u64(o + 8, s.value);
      u64(o + 16, BigInt(s.size));
    } else {
      u32(o + 4, Number(s.value));
      u32(o + 8, s.size);
      buf[o + 12] = s.info;
      u16(o + 14, s.shndx);
    }
  });
  const phoff = is64 ? 64 : 52;
  const phent = is64 ? 56 : 32;
  const shoff = (noteOff + noteSize + 7) & ~7;
  const shent = is64 ? 64 : 40;
  u16(16, opts.type ?? ET_DYN);
  u16(18, is64 ? 62 : 3);
  u32(20, 1);
  if (is64) {
    u64(32, BigInt(phoff));
    u64(40, BigInt(shoff));
    u16(52, 64);
    u16(54, phent);
    u16(56, 2);
    u16(58, shent);
    u16(60, shnames.length);
    u16(62, 4);
  } else {
    u32(28, phoff);
    u32(32, shoff);
    u16(40, 52);
    u16(42, phent);
    u16(44, 2);
    u16(46, shent);
    u16(48, shnames.length);
    u16(50, 4);
  }
  const ph = (i: number, type: number, off: number, vaddr: bigint, size: number, flags: number) => {
    const o = phoff + i * phent;
    u32(o, type);
    if (is64) {
      u32(o + 4, flags);
      u64(o + 8, BigInt(off));
      u64(o + 16, vaddr);
      u64(o + 24, vaddr);
      u64(o + 32, BigInt(size));
      u64(o + 40, BigInt(size));
      u64(o + 48, 0x1000n);
    } else {
      u32(o + 4, off);
      u32(o + 8, Number(vaddr));
      u32(o + 12, Number(vaddr));
      u32(o + 16, size);
      u32(o + 20, size);
      u32(o + 24, flags);
      u32(o + 28, 0x1000);
    }
  };
  ph(0, 1, textOff, textAddr, 0x1000, 5);
  ph(1, 4, noteOff, 0n, noteSize, 4);
  const sh = (
    i: number,
    type: number,
    addr: bigint,
    off: number,
    size: number,
    link: number,
    ent: number,
  ) => {
    const o = shoff + i * shent;
    u32(o, shNameOff[i]);
    u32(o + 4, type);
    if (is64) {
      u64(o + 16, addr);
      u64(o + 24, BigInt(off));
      u64(o + 32, BigInt(size));
      u32(o + 40, link);
      u64(o + 48, 4n);
      u64(o + 56, BigInt(ent));
    } else {
      u32(o + 12, Number(addr));
      u32(o + 16, off);
      u32(o + 20, size);
      u32(o + 24, link);
      u32(o + 32, 4);
      u32(o + 36, ent);
    }
  };
  sh(1, 1, textAddr, textOff, 0x1000, 0, 0);
  sh(2, 2, 0n, symOff, nsym * symEnt, 3, symEnt);
  sh(3, 3, 0n, strOff, strtab.length, 0, 0);
  sh(4, 3, 0n, shstrOff, shstr.length, 0, 0);
  sh(5, 7, 0n, noteOff, noteSize, 0, 0);
  return buf.subarray(0, shoff + shnames.length * shent);
}

const FUNC_GLOBAL = (1 << 4) | 2;
const FUNC_WEAK = (2 << 4) | 2;
const FUNC_LOCAL = 2;
const IFUNC_GLOBAL = (1 << 4) | 10;
const OBJECT_GLOBAL = (1 << 4) | 1;

function synthSyms(base: bigint): SynthSym[] {
  return [
    { name: 'first', value: base + 0x1000n, size: 0x20, info: FUNC_GLOBAL, shndx: 1 },
    { name: 'first_alias', value: base + 0x1000n, size: 0x20, info: FUNC_WEAK, shndx: 1 },
    { name: 'ifunc_impl', value: base + 0x1040n, size: 0x10, info: IFUNC_GLOBAL, shndx: 1 },
    { name: 'unsized', value: base + 0x1080n, size: 0, info: FUNC_LOCAL, shndx: 1 },
    { name: 'last', value: base + 0x1100n, size: 0x8, info: FUNC_GLOBAL, shndx: 1 },
    { name: 'data', value: base + 0x1200n, size: 0x8, info: OBJECT_GLOBAL, shndx: 1 },
    { name: 'undefined', value: 0n, size: 0, info: FUNC_GLOBAL, shndx: 0 },
  ];
}

describe('readElf on synthetic files', () => {
  const cases = [
    { is64: true, le: true, base: 0n },
    { is64: true, le: false, base: 0n },
    { is64: false, le: true, base: 0x8048000n },
    { is64: false, le: false, base: 0x10000000n },
    // Addresses above 2^53 (kernel-style): exact through (hi, lo) pairs.
    { is64: true, le: false, base: 0xffffffff80000000n },
  ];
  for (const c of cases) {
    it(`${c.is64 ? 64 : 32}-bit ${c.le ? 'little' : 'big'} endian at 0x${c.base.toString(16)}`, () => {
      const e = readElf(synthElf({ ...c, syms: synthSyms(c.base) }), 'synth');
      expect(e.is64).toBe(c.is64);
      expect(e.littleEndian).toBe(c.le);
      expect(e.buildId).toBe('deadbeef01020304');
      expect(e.loadSegments).toHaveLength(1);
      expect(e.loadSegments[0].vaddr).toBe(c.base + 0x1000n);
      expect(e.symbols.count).toBe(4); // first (+alias), ifunc_impl, unsized, last
      const b = c.base;
      // Aliases: the one defined later, whatever its binding (Go pprof's choice).
      expect(nameAt(e, b + 0x1000n)).toBe('first_alias');
      expect(nameAt(e, b + 0x101fn)).toBe('first_alias');
      expect(nameAt(e, b + 0x1020n)).toBe(null);
      expect(nameAt(e, b + 0x1045n)).toBe('ifunc_impl');
      expect(nameAt(e, b + 0x10ffn)).toBe('unsized'); // size 0: up to the next symbol
      expect(nameAt(e, b + 0x1107n)).toBe('last');
      expect(nameAt(e, b + 0x1108n)).toBe(null);
      expect(nameAt(e, b + 0x1200n)).toBe(null); // objects are not functions
      expect(nameAt(e, b + 0xfffn)).toBe(null);
      const off = vaddrToOffset(e.loadSegments, b + 0x1045n);
      expect(off).toBe(0x1045);
      const [hi, lo] = offsetToVaddr(e.loadSegments, off)!;
      expect((BigInt(hi) << 32n) | BigInt(lo)).toBe(b + 0x1045n);
    });
  }

  it('the last size-0 symbol stops at the end of its section', () => {
    const syms = [{ name: 'tail', value: 0x1f00n, size: 0, info: FUNC_GLOBAL, shndx: 1 }];
    const e = readElf(synthElf({ is64: true, le: true, base: 0n, syms }), 'synth');
    expect(nameAt(e, 0x1fffn)).toBe('tail');
    expect(nameAt(e, 0x2000n)).toBe(null);
  });

  it('alias choice: exported, default version, then the one defined last in the table', () => {
    const names = ['__libc_malloc', 'malloc', '__malloc', 'malloc@GLIBC_2.2.5', 'zz'];
    const binds = [FUNC_GLOBAL, FUNC_GLOBAL, FUNC_LOCAL, FUNC_GLOBAL, FUNC_WEAK];
    const mk = (order: number[]) =>
      readElf(
        synthElf({
          is64: true,
          le: true,
          base: 0n,
          type: ET_EXEC,
          syms: order.map((k) => ({ name: names[k], value: 0x1000n, size: 8, info: binds[k], shndx: 1 })),
        }),
        'synth',
      );
    // The last exported symbol of default version, whatever its binding or name.
    expect(nameAt(mk([0, 1, 2, 3, 4]), 0x1000n)).toBe('zz');
    expect(nameAt(mk([4, 3, 2, 1, 0]), 0x1000n)).toBe('__libc_malloc');
    expect(nameAt(mk([3, 0, 4, 2]), 0x1000n)).toBe('zz');
    expect(nameAt(mk([4, 0, 1]), 0x1000n)).toBe('malloc');
    // A LOCAL or a non-default version only when nothing else is there.
    expect(nameAt(mk([0, 2]), 0x1000n)).toBe('__libc_malloc');
    expect(nameAt(mk([3, 2]), 0x1000n)).toBe('malloc@GLIBC_2.2.5');
  });
});

describe('malformed ELF', () => {
  const tiny = load('bin/tiny');
  const expectElfError = (bytes: Uint8Array, re: RegExp) => {
    let err: unknown;
    try {
      readElf(bytes, 'broken.so');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ElfError);
    expect((err as ElfError).message).toMatch(/^broken\.so: /);
    expect((err as ElfError).message).toMatch(re);
    expect((err as ElfError).fileName).toBe('broken.so');
  };

  it('rejects bad magic, empty and truncated headers', () => {
    expectElfError(new Uint8Array(0), /not an ELF file/);
    expectElfError(new TextEncoder().encode('#!/bin/sh\necho hi\n'), /not an ELF file/);
    expectElfError(tiny.slice(0, 40), /truncated ELF header/);
    const badClass = tiny.slice();
    badClass[4] = 7;
    expectElfError(badClass, /ELF class 7/);
  });

  it('rejects a file cut before its section headers', () => {
    expectElfError(tiny.slice(0, 0x3000), /section header table .* past the end of the file/);
  });

  it('rejects section / program header offsets past the end of the file', () => {
    const b = tiny.slice();
    new DataView(b.buffer).setBigUint64(40, 0x7fffffffn, true); // e_shoff
    expectElfError(b, /section header table at offset 2147483647/);
    const p = tiny.slice();
    new DataView(p.buffer).setBigUint64(32, 0xffffffffffffn, true); // e_phoff
    expectElfError(p, /program header table/);
  });

  it('keeps going when only a symbol section lies past the end of the file', () => {
    const b = tiny.slice();
    const dv = new DataView(b.buffer);
    const shoff = Number(dv.getBigUint64(40, true));
    const shnum = dv.getUint16(60, true);
    for (let i = 0; i < shnum; i++) {
      const o = shoff + i * 64;
      if (dv.getUint32(o + 4, true) === 2) dv.setBigUint64(o + 24, 0x10000000n, true); // .symtab offset
    }
    const e = readElf(b, 'broken.so');
    expect(e.warnings.join('\n')).toMatch(/\.symtab .* past the end of the file: skipped/);
    expect(e.symbolSource).toBe('none'); // tiny's .dynsym has no defined functions
    // An offset of 2^53 or more (read as Infinity) is said as such, never as "offset Infinity".
    for (let i = 0; i < shnum; i++) {
      const o = shoff + i * 64;
      if (dv.getUint32(o + 4, true) === 2) dv.setBigUint64(o + 24, 0xffff_ffff_ffff_ff00n, true);
    }
    const far = readElf(b, 'broken.so').warnings.join('\n');
    expect(far).toMatch(/\.symtab \(offset 2\^53 or more, \d+ bytes\) is past the end of the file: skipped/);
    expect(far).not.toMatch(/Infinity/);
    new DataView(b.buffer).setBigUint64(40, 0xffff_ffff_ffff_0000n, true); // e_shoff
    expectElfError(b, /section header table at offset 2\^53 or more/);
  });

  it('skips a load segment whose size is 2^53 or more (fuzz: vaddrToOffset threw a RangeError)', () => {
    const b = tiny.slice();
    const dv = new DataView(b.buffer);
    const phoff = Number(dv.getBigUint64(32, true));
    const ph = phoff + 2 * 56; // the third program header is the first PT_LOAD
    expect(dv.getUint32(ph, true)).toBe(1);
    dv.setBigUint64(ph + 32, 0xffffff00000000n, true); // its p_filesz
    const e = readElf(b, 'broken.so');
    expect(e.warnings.join('\n')).toMatch(/program header 2: .* absurdly large: skipped/);
    expect(e.loadSegments.every((s) => Number.isFinite(s.offset + s.filesz))).toBe(true);
    expect(vaddrToOffset(e.loadSegments, 0x100n)).toBe(-1);
    expect(vaddrToOffset(e.loadSegments, 0x1100n)).toBe(0x1100);
  });

  it('never throws anything but ElfError on random damage', () => {
    let seed = 12345;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed;
    };
    for (let k = 0; k < 300; k++) {
      const b = tiny.slice(0, k % 3 === 0 ? rnd() % tiny.length : tiny.length);
      for (let j = 0; j < 8; j++) b[64 + (rnd() % Math.max(1, b.length - 64))] = rnd() & 0xff;
      if (k % 2 === 0 && b.length > 64) b[40 + (rnd() % 24)] = rnd() & 0xff; // header fields
      try {
        readElf(b, 'fuzz');
      } catch (e) {
        expect(e).toBeInstanceOf(ElfError);
      }
    }
  });
});

describe('aliases as Go pprof names them', () => {
  const root = new URL('../../../test/fixtures/', import.meta.url);
  const read = (rel: string) => new Uint8Array(readFileSync(new URL(rel, root)));
  const bare = (n: string | null) => n?.replace(/@.*$/, '') ?? null;

  it("the 32-bit libc (.dynsym only): every libc location Go pprof named in cxx_demangle32's go.raw.txt", () => {
    const libc = readElf(read('sysroot/usr/lib/i386-linux-gnu/libc.so.6'), 'libc.so.6');
    const raw = readFileSync(new URL('gperf/oracle/cxx_demangle32/go.raw.txt', root), 'utf8');
    const m =
      /^(\d+): 0x([0-9a-f]+)\/0x[0-9a-f]+\/0x([0-9a-f]+) \/usr\/lib\/i386-linux-gnu\/libc\.so\.6/m.exec(raw)!;
    const [start, offset] = [BigInt(`0x${m[2]}`), BigInt(`0x${m[3]}`)];
    const named = [...raw.matchAll(new RegExp(`^\\s*\\d+: 0x([0-9a-f]+) M=${m[1]} (\\S+)`, 'gm'))];
    expect(named.length).toBeGreaterThan(0);
    const names = new Set<string>();
    for (const [, addr, goName] of named) {
      const v = offsetToVaddr(libc.loadSegments, Number(BigInt(`0x${addr}`) - start + offset))!;
      const ours = bare(nameAt(libc, (BigInt(v[0]) << 32n) | BigInt(v[1])));
      expect(ours).toBe(goName);
      names.add(goName);
    }
    // malloc (not __libc_malloc) and __libc_free (not free or cfree): the alias defined last in
    // this libc's .dynsym (the 64-bit one defines them in another order).
    expect([...names].sort()).toEqual(['__libc_free', 'malloc']);
  });

  it('the 64-bit libc: __pread64, munmap (the issue), cfree and __libc_malloc (Go, cxx_demangle)', () => {
    const libc = readElf(read('sysroot/usr/lib/x86_64-linux-gnu/libc.so.6'), 'libc.so.6');
    // free: __libc_free, free, cfree@GLIBC_2.2.5 (all GLOBAL, in this .dynsym order).
    expect(bare(nameAt(libc, 0x98ef5n))).toBe('cfree');
    expect(bare(nameAt(libc, 0x98935n))).toBe('__libc_malloc');
    // pread: __libc_pread (GLOBAL), pread64, pread, __pread64 (WEAK); munmap: __munmap (GLOBAL), munmap (WEAK).
    expect(bare(nameAt(libc, 0xf63c5n))).toBe('__pread64');
    expect(bare(nameAt(libc, 0x101a05n))).toBe('munmap');
  });
});
