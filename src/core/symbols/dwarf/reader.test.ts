// Unit tests of the DWARF byte reader, forms, abbreviations and line programs, and a whole
// hand-built big-endian 32-bit DWARF 4 (no compiler for such a target here).

import { describe, expect, it } from 'vitest';
import {
  DW_FORM_addr,
  DW_FORM_block1,
  DW_FORM_data2,
  DW_FORM_exprloc,
  DW_FORM_implicit_const,
  DW_FORM_indirect,
  DW_FORM_ref_addr,
  DW_FORM_sdata,
  DW_FORM_sec_offset,
  DW_FORM_string,
  DW_FORM_strp,
  DW_FORM_strx3,
  DW_FORM_udata,
  formSize,
  readAbbrevTable,
  readForm,
  skipForm,
} from './forms.ts';
import { DwarfInfo, type DwarfSections, type RawDwarfSection } from './index.ts';
import { lookupLine, readLineTable } from './line.ts';
import { BIG, DwarfError, Reader } from './reader.ts';

/** A little byte writer in either byte order. */
class W {
  readonly b: number[] = [];
  constructor(readonly le: boolean) {}
  get pos(): number {
    return this.b.length;
  }
  u8(...v: number[]): this {
    this.b.push(...v);
    return this;
  }
  uN(v: number, n: number): this {
    const bytes: number[] = [];
    let x = BigInt(v);
    for (let i = 0; i < n; i++) {
      bytes.push(Number(x & 0xffn));
      x >>= 8n;
    }
    if (!this.le) bytes.reverse();
    this.b.push(...bytes);
    return this;
  }
  u16(v: number): this {
    return this.uN(v, 2);
  }
  u32(v: number): this {
    return this.uN(v, 4);
  }
  uleb(v: number): this {
    let x = v;
    do {
      let byte = x % 128;
      x = Math.floor(x / 128);
      if (x > 0) byte |= 0x80;
      this.b.push(byte);
    } while (x > 0);
    return this;
  }
  sleb(v: number): this {
    let x = v;
    for (;;) {
      const byte = ((x % 128) + 128) % 128;
      x = Math.floor(x / 128);
      const done = (x === 0 && (byte & 0x40) === 0) || (x === -1 && (byte & 0x40) !== 0);
      this.b.push(done ? byte : byte | 0x80);
      if (done) return this;
    }
  }
  str(s: string): this {
    for (const c of new TextEncoder().encode(s)) this.b.push(c);
    this.b.push(0);
    return this;
  }
  setU32(at: number, v: number): void {
    const w = new W(this.le).u32(v);
    for (let i = 0; i < 4; i++) this.b[at + i] = w.b[i];
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.b);
  }
}

const reader = (bytes: number[] | Uint8Array, le = true) =>
  new Reader(bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes), le, '.test');

describe('LEB128', () => {
  it('decodes the DWARF specification examples', () => {
    const u: [number[], number][] = [
      [[2], 2],
      [[127], 127],
      [[0x80, 1], 128],
      [[0x81, 1], 129],
      [[0x82, 1], 130],
      [[0xb9, 0x64], 12857],
    ];
    for (const [b, v] of u) expect(reader(b).uleb()).toBe(v);
    const s: [number[], number][] = [
      [[2], 2],
      [[0x7e], -2],
      [[0xff, 0], 127],
      [[0x81, 0x7f], -127],
      [[0x80, 1], 128],
      [[0x80, 0x7f], -128],
      [[0x81, 1], 129],
      [[0xff, 0x7e], -129],
    ];
    for (const [b, v] of s) expect(reader(b).sleb()).toBe(v);
  });

  it('round-trips large values and reads 2^53 or more as BIG, consuming every byte', () => {
    for (const v of [0, 1, 0xffffffff, 2 ** 40 + 5, 2 ** 53 - 1])
      expect(reader(new W(true).uleb(v).b).uleb()).toBe(v);
    for (const v of [-1, -(2 ** 31), -(2 ** 40) - 3, 2 ** 35])
      expect(reader(new W(true).sleb(v).b).sleb()).toBe(v);
    const r = reader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x05]);
    expect(r.uleb()).toBe(BIG);
    expect(r.u8()).toBe(5);
    const skip = reader([0x80, 0x80, 0x01, 0x07]);
    skip.skipLeb();
    expect(skip.u8()).toBe(7);
  });

  it('a value cut off by the end of the data is an error, not a hang', () => {
    expect(() => reader([0x80, 0x80]).uleb()).toThrow(DwarfError);
    expect(() => reader([0x80]).sleb()).toThrow(DwarfError);
    expect(() => reader([0x80]).skipLeb()).toThrow(DwarfError);
    expect(() => reader([]).uleb()).toThrow(/unexpected end/);
  });
});

describe('fixed-size values, strings, initial lengths', () => {
  it('reads both byte orders; 64-bit values at or above 2^53 are BIG', () => {
    const b = [0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0x0d, 0x00];
    expect(reader(b, true).u16()).toBe(0x3412);
    expect(reader(b, false).u16()).toBe(0x1234);
    expect(reader(b, true).u24()).toBe(0x563412);
    expect(reader(b, false).u24()).toBe(0x123456);
    expect(reader(b, true).u32()).toBe(0x78563412);
    expect(reader(b, false).u32()).toBe(0x12345678);
    expect(reader(b, true).u64()).toBe(0x000dbc9a78563412);
    expect(reader(b, false).u64()).toBe(BIG);
    expect(reader([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]).u64()).toBe(BIG);
    expect(reader([1, 2, 3]).allOnes(2)).toBe(false);
    expect(reader([0xff, 0xff]).allOnes(2)).toBe(true);
  });

  it('reads strings and refuses unterminated ones', () => {
    const r = reader(new W(true).str('abc').str('é').b);
    expect(r.cstr()).toBe('abc');
    expect(r.cstr()).toBe('é');
    expect(() => reader([0x61, 0x62]).cstr()).toThrow(/unterminated/);
  });

  it('initial lengths: 32-bit, 64-bit (0xffffffff escape), reserved values refused', () => {
    expect(reader(new W(false).u32(0x1234).b, false).initialLength()).toEqual([0x1234, 4]);
    expect(reader(new W(true).u32(0xffffffff).uN(0x123456789, 8).b).initialLength()).toEqual([
      0x123456789, 8,
    ]);
    expect(() => reader(new W(true).u32(0xfffffff0).b).initialLength()).toThrow(/reserved/);
    expect(() => reader([1, 2]).u32()).toThrow(DwarfError);
  });
});

describe('forms and abbreviations', () => {
  const u4 = { version: 4, addrSize: 4, offSize: 4 };
  const u8 = { version: 5, addrSize: 8, offSize: 8 };

  it('knows fixed sizes by address and offset size', () => {
    expect(formSize(DW_FORM_addr, u4)).toBe(4);
    expect(formSize(DW_FORM_addr, u8)).toBe(8);
    expect(formSize(DW_FORM_strp, u4)).toBe(4);
    expect(formSize(DW_FORM_sec_offset, u8)).toBe(8);
    expect(formSize(DW_FORM_ref_addr, { version: 2, addrSize: 8, offSize: 4 })).toBe(8);
    expect(formSize(DW_FORM_ref_addr, u4)).toBe(4);
    expect(formSize(DW_FORM_implicit_const, u4)).toBe(0);
    expect(formSize(DW_FORM_udata, u4)).toBe(-1);
  });

  it('skips and reads variable-size forms', () => {
    const w = new W(true)
      .u8(3, 1, 2, 3) // block1
      .uleb(2)
      .u8(9, 9) // exprloc
      .str('name') // string
      .uleb(DW_FORM_data2)
      .u16(0xbeef) // indirect data2
      .sleb(-300) // sdata
      .u8(1, 2, 3) // strx3
      .u8(0x42);
    const r = reader(w.b);
    skipForm(r, DW_FORM_block1, u4);
    skipForm(r, DW_FORM_exprloc, u4);
    skipForm(r, DW_FORM_string, u4);
    expect(readForm(r, DW_FORM_indirect, u4)).toBe(0xbeef);
    expect(readForm(r, DW_FORM_sdata, u4)).toBe(-300);
    expect(readForm(r, DW_FORM_strx3, u4)).toBe(0x030201);
    expect(readForm(r, DW_FORM_implicit_const, u4, -7)).toBe(-7);
    expect(r.u8()).toBe(0x42);
    expect(() => skipForm(reader([1]), 0x99, u4)).toThrow(/unknown attribute form/);
    expect(() => readForm(reader([DW_FORM_indirect]), DW_FORM_indirect, u4)).toThrow(/indirect/);
  });

  it('decodes an abbreviation table with implicit constants and fixed DIE sizes', () => {
    const w = new W(true).uleb(1).uleb(0x11).u8(1).uleb(0x03).uleb(DW_FORM_string).u8(0, 0);
    w.uleb(2).uleb(0x2e).u8(0).uleb(0x11).uleb(DW_FORM_addr).uleb(0x3b).uleb(DW_FORM_implicit_const).sleb(-5);
    w.u8(0, 0);
    w.uleb(7).uleb(0x34).u8(0).u8(0, 0); // a sparse code
    w.uleb(3).uleb(0x13).u8(1).uleb(0x03).uleb(DW_FORM_string).uleb(0x01).uleb(0x13).u8(0, 0); // struct + sibling
    w.uleb(4).uleb(0x13).u8(1).uleb(0x01).uleb(DW_FORM_udata).u8(0, 0); // struct, sibling as udata
    w.u8(0);
    const t = readAbbrevTable(reader(w.b), u8);
    expect(t.dense[1]?.tag).toBe(0x11);
    expect(t.dense[1]?.children).toBe(true);
    expect(t.dense[1]?.fixed).toBe(-1);
    expect(t.dense[2]?.fixed).toBe(8);
    expect(t.dense[2]?.consts).toEqual([0, -5]);
    expect(t.sparse.get(7)?.tag).toBe(0x34);
    // A struct's subtree can be skipped through a unit-relative DW_AT_sibling only.
    expect(t.dense[3]?.skipTree).toBe(1);
    expect(t.dense[4]?.skipTree).toBe(-1);
    expect(t.dense[2]?.skipTree).toBe(-1);
  });
});

/** A DWARF 4 line program (either byte order): two sequences, include dirs, comp dir. */
function lineProgram(le: boolean, addr = 0x1000): Uint8Array {
  const w = new W(le);
  w.u32(0); // unit length, patched
  w.u16(4);
  const hl = w.pos;
  w.u32(0); // header length, patched
  w.u8(1, 1, 1); // min inst, max ops, default_is_stmt
  w.u8(0xfb, 14, 13); // line_base -5, line_range 14, opcode_base 13
  w.u8(0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1); // standard opcode lengths
  w.str('src').str('/abs/inc').u8(0);
  w.str('a.c').uleb(1).uleb(0).uleb(0);
  w.str('b.h').uleb(2).uleb(0).uleb(0);
  w.str('/x/c.c').uleb(0).uleb(0).uleb(0);
  w.u8(0);
  w.setU32(hl, w.pos - hl - 4);
  // Sequence 1: addr → line 10 (a.c), +4 → line 12, +4 → b.h line 3, same address again → line 4.
  w.u8(0).uleb(5).u8(2).u32(addr);
  w.u8(3).sleb(9).u8(1); // advance_line 9 → 10; copy
  w.u8(13 + (4 * 14 + (12 - 10 + 5))); // special: address += 4, line += 2
  w.u8(4).uleb(2); // set_file b.h
  w.u8(2).uleb(4).u8(3).sleb(-9).u8(1); // advance_pc 4, line 3, copy
  w.u8(3).sleb(1).u8(1); // line 4 at the same address: replaces it
  w.u8(2).uleb(8).u8(0).uleb(1).u8(1); // advance 8; end_sequence (end = addr + 16)
  // Sequence 2, nested inside sequence 1: dropped as bfd does.
  w.u8(0)
    .uleb(5)
    .u8(2)
    .u32(addr + 4);
  w.u8(1).u8(2).uleb(2).u8(0).uleb(1).u8(1);
  // Sequence 3 at addr + 0x100, file 3 (absolute path).
  w.u8(0)
    .uleb(5)
    .u8(2)
    .u32(addr + 0x100);
  w.u8(4).uleb(3).u8(3).sleb(99).u8(1).u8(2).uleb(2).u8(0).uleb(1).u8(1);
  w.setU32(0, w.pos - 4);
  return w.bytes();
}

describe('line programs', () => {
  for (const le of [true, false]) {
    it(`decodes rows, sequences and file names (${le ? 'little' : 'big'} endian)`, () => {
      const t = readLineTable(lineProgram(le), le, 0, '/comp', {});
      const at = (a: number) => {
        const i = lookupLine(t, a);
        return i < 0 ? null : `${t.fileName(t.rowFile[i])}:${t.rowLine[i]}`;
      };
      expect(at(0xfff)).toBe(null);
      expect(at(0x1000)).toBe('/comp/src/a.c:10');
      expect(at(0x1003)).toBe('/comp/src/a.c:10');
      expect(at(0x1004)).toBe('/comp/src/a.c:12');
      expect(at(0x1008)).toBe('/abs/inc/b.h:4');
      expect(at(0x100f)).toBe('/abs/inc/b.h:4');
      expect(at(0x1010)).toBe(null);
      expect(at(0x1100)).toBe('/x/c.c:100');
      expect(at(0x1102)).toBe(null);
      expect(t.fileName(0)).toBe('<unknown>');
      expect(t.fileName(9)).toBe('<unknown>');
    });
  }

  it('refuses malformed headers', () => {
    const p = lineProgram(true);
    const bad = p.slice();
    bad[4] = 9; // version 9
    expect(() => readLineTable(bad, true, 0, null, {})).toThrow(/version 9/);
    const noRange = p.slice();
    noRange[4 + 2 + 4 + 4] = 0; // line_range 0
    expect(() => readLineTable(noRange, true, 0, null, {})).toThrow(/line_range/);
    const long = p.slice();
    long[0] = 0xf0; // unit length past the section
    long[1] = 0xff;
    expect(() => readLineTable(long, true, 0, null, {})).toThrow(/past the section/);
  });
});

/**
 * A whole big-endian ELF32-style DWARF 4: one unit (C) with a function `outer` at 0x8000–0x8040
 * that inlines `inl` (call site line 7) at 0x8010–0x8020; the line program maps 0x8000 → line 5,
 * 0x8010 → line 20.
 */
function bigEndianDwarf(): DwarfSections {
  const le = false;
  const abbrev = new W(le);
  // 1: compile_unit, children: name, language, comp_dir, stmt_list, low_pc, high_pc(data4)
  abbrev.uleb(1).uleb(0x11).u8(1);
  for (const [a, f] of [
    [0x03, 0x08],
    [0x13, 0x0b],
    [0x1b, 0x08],
    [0x10, 0x17],
    [0x11, 0x01],
    [0x12, 0x06],
  ])
    abbrev.uleb(a).uleb(f);
  abbrev.u8(0, 0);
  // 2: subprogram (abstract, inline): name
  abbrev.uleb(2).uleb(0x2e).u8(0).uleb(0x03).uleb(0x08).uleb(0x20).uleb(0x0b).u8(0, 0);
  // 3: subprogram, children: name, low_pc, high_pc(data4)
  abbrev.uleb(3).uleb(0x2e).u8(1).uleb(0x03).uleb(0x08).uleb(0x11).uleb(0x01).uleb(0x12).uleb(0x06).u8(0, 0);
  // 4: inlined_subroutine: abstract_origin(ref4), low_pc, high_pc(data4), call_file(data1), call_line(data1)
  abbrev.uleb(4).uleb(0x1d).u8(0);
  for (const [a, f] of [
    [0x31, 0x13],
    [0x11, 0x01],
    [0x12, 0x06],
    [0x58, 0x0b],
    [0x59, 0x0b],
  ])
    abbrev.uleb(a).uleb(f);
  abbrev.u8(0, 0).u8(0);

  const info = new W(le);
  info.u32(0).u16(4).u32(0).u8(4); // unit length (patched), version, abbrev offset, address size
  info.uleb(1).str('t.c').u8(0x0c).str('/w').u32(0).u32(0x8000).u32(0x40);
  const inlDie = info.pos;
  info.uleb(2).str('inl').u8(3);
  info.uleb(3).str('outer').u32(0x8000).u32(0x40);
  info.uleb(4).u32(inlDie).u32(0x8010).u32(0x10).u8(1).u8(7);
  info.u8(0); // end of outer's children
  info.u8(0); // end of the unit's children
  info.setU32(0, info.pos - 4);

  const line = new W(le);
  line.u32(0).u16(4);
  const hl = line.pos;
  line.u32(0).u8(1, 1, 1, 0xfb, 14, 13).u8(0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1);
  line.u8(0).str('t.c').uleb(0).uleb(0).uleb(0).u8(0);
  line.setU32(hl, line.pos - hl - 4);
  line.u8(0).uleb(5).u8(2).u32(0x8000).u8(3).sleb(4).u8(1);
  line.u8(2).uleb(0x10).u8(3).sleb(15).u8(1);
  line.u8(2).uleb(0x30).u8(0).uleb(1).u8(1);
  line.setU32(0, line.pos - 4);

  const sec = (name: string, w: W): [string, RawDwarfSection] => [
    name,
    { name, fileName: name, bytes: w.bytes(), compressed: false, gnuCompressed: false },
  ];
  return {
    is64: false,
    littleEndian: false,
    sections: new Map([sec('.debug_info', info), sec('.debug_abbrev', abbrev), sec('.debug_line', line)]),
  };
}

describe('a hand-built big-endian 32-bit DWARF 4', () => {
  it('gives the inline chain with call site and line-table positions', () => {
    const warnings: string[] = [];
    const d = DwarfInfo.create(bigEndianDwarf(), warnings)!;
    expect(warnings).toEqual([]);
    expect(d.lookup(0x8004)).toEqual({
      frames: [{ name: 'outer', file: '/w/t.c', line: 5, linkage: true, low: 0x8000 }],
      found: true,
      linkage: true,
    });
    expect(d.lookup(0x8014)).toEqual({
      frames: [
        { name: 'outer', file: '/w/t.c', line: 7, linkage: true, low: 0x8000 },
        { name: 'inl', file: '/w/t.c', line: 20, linkage: true, low: 0x8010 },
      ],
      found: true,
      linkage: true,
    });
    expect(d.lookup(0x8040)).toBe(null);
    expect(d.lookup(0x7fff)).toBe(null);
  });

  it('a damaged DIE tree is skipped with a warning naming .debug_info; the line table still answers', () => {
    const ds = bigEndianDwarf();
    const info = ds.sections.get('.debug_info')!;
    const bytes = info.bytes.slice();
    // The abbreviation code of `outer`'s DIE (header 11, unit DIE 21, `inl` 6 bytes) → unknown.
    expect(bytes[38]).toBe(3);
    bytes[38] = 0x55;
    ds.sections.set('.debug_info', { ...info, bytes });
    const warnings: string[] = [];
    const d = DwarfInfo.create(ds, warnings)!;
    const seen: string[] = [];
    d.onWarning = (w) => seen.push(w);
    expect(d.lookup(0x8014)).toEqual({
      frames: [{ name: null, file: '/w/t.c', line: 20, linkage: false, low: -1 }],
      found: false,
      linkage: false,
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^\.debug_info: unit at offset 0 skipped: .*unknown abbreviation code 85/);
    d.lookup(0x8004);
    expect(d.warnings).toHaveLength(1); // reported once
  });
});
