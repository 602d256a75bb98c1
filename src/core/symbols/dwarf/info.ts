// `.debug_info`: unit headers, the unit DIE's attributes (cheap: one DIE per unit, for the
// address index), and on demand one unit's whole DIE tree reduced to its functions: every
// DW_TAG_subprogram / inlined_subroutine / entry_point with its address ranges, its caller (the
// nearest enclosing function, for inlined subroutines) and its call site. Names are resolved
// only for functions a lookup returns.

import {
  type Abbrev,
  type AbbrevTable,
  abbrevOf,
  DW_AT_abstract_origin,
  DW_AT_addr_base,
  DW_AT_call_file,
  DW_AT_call_line,
  DW_AT_comp_dir,
  DW_AT_GNU_addr_base,
  DW_AT_high_pc,
  DW_AT_language,
  DW_AT_linkage_name,
  DW_AT_low_pc,
  DW_AT_MIPS_linkage_name,
  DW_AT_name,
  DW_AT_ranges,
  DW_AT_rnglists_base,
  DW_AT_specification,
  DW_AT_stmt_list,
  DW_AT_str_offsets_base,
  DW_FORM_addr,
  DW_FORM_GNU_ref_alt,
  DW_FORM_GNU_strp_alt,
  DW_FORM_line_strp,
  DW_FORM_ref_addr,
  DW_FORM_rnglistx,
  DW_FORM_string,
  DW_FORM_strp,
  DW_FORM_strp_sup,
  DW_TAG_entry_point,
  DW_TAG_inlined_subroutine,
  DW_TAG_subprogram,
  isAddressForm,
  isStringForm,
  isUnitRef,
  readAbbrevTable,
  readForm,
  skipForm,
} from './forms.ts';
import { BIG, cstrAt, DwarfError, Reader } from './reader.ts';

/** The decompressed sections a lookup reads. */
export interface Sections {
  le: boolean;
  info: Uint8Array;
  abbrev: Uint8Array;
  str?: Uint8Array;
  lineStr?: Uint8Array;
  line?: Uint8Array;
  ranges?: Uint8Array;
  rnglists?: Uint8Array;
  addr?: Uint8Array;
  strOffsets?: Uint8Array;
  aranges?: Uint8Array;
  /**
   * .debug_str strings read so far, by offset: the inlined copies of a function all name it by
   * the same offset, and each is then one string object, whose hash later stages compute once.
   */
  strCache?: Map<number, string | null>;
  /** Names (and whether a linkage name set them) of DIEs referred to, by offset (nameAt). */
  refNames?: Map<number, { name: string | null; linkage: boolean }>;
}

/** One unit of `.debug_info`: its header, then its unit DIE's attributes once read. */
export interface Unit {
  offset: number;
  end: number;
  version: number;
  unitType: number;
  offSize: number;
  addrSize: number;
  abbrevOffset: number;
  dieStart: number;
  /** Set by readUnitDie. */
  tag: number;
  lang: number;
  compDir: string | null;
  stmtList: number;
  base: number;
  strOffsetsBase: number;
  addrBase: number;
  rnglistsBase: number;
  /** The unit DIE's address ranges as [low, high) pairs. */
  ranges: number[];
  dieRead: boolean;
  /** Its abbreviation table, once read. */
  abbrevs?: AbbrevTable;
}

const DW_UT_compile = 1;
const DW_UT_partial = 3;

/** Languages whose DW_AT_name bfd treats as a linkage name (no mangling): C, Fortran 77, asm… */
const PLAIN_NAME_LANGS = new Set([
  0x1, 0x2, 0x5, 0x6, 0x7, 0x9, 0xc, 0xf, 0x12, 0x1d, 0x8001, 0x8101, 0x8102, 0x8765,
]);

/** True when bfd takes this language's DW_AT_name as final (mangle_style 0). */
export function plainNames(lang: number): boolean {
  return PLAIN_NAME_LANGS.has(lang);
}

/** Walks the unit headers of `.debug_info`. Stops (with an error) at the first unreadable one. */
export function readUnitHeaders(s: Sections): { units: Unit[]; error?: DwarfError } {
  const units: Unit[] = [];
  const r: Reader = new Reader(s.info, s.le, '.debug_info');
  try {
    while (r.pos < r.end) {
      const offset = r.pos;
      const [len, offSize] = r.initialLength();
      const end = r.pos + len;
      if (end > r.end) r.fail(`unit length ${len} runs past the section`, offset);
      const version = r.u16();
      let unitType = DW_UT_compile;
      let addrSize: number;
      let abbrevOffset: number;
      if (version >= 2 && version <= 4) {
        abbrevOffset = r.offset(offSize);
        addrSize = r.u8();
      } else if (version === 5) {
        unitType = r.u8();
        addrSize = r.u8();
        abbrevOffset = r.offset(offSize);
        if (unitType === 2 || unitType === 6) {
          r.pos += 8 + offSize; // type signature, type offset
        } else if (unitType === 4 || unitType === 5) {
          r.pos += 8; // dwo id
        }
      } else {
        r.fail(`unsupported DWARF version ${version}`, offset);
      }
      if (addrSize !== 4 && addrSize !== 8 && addrSize !== 2) r.fail(`bad address size ${addrSize}`, offset);
      units.push({
        offset,
        end,
        version,
        unitType,
        offSize,
        addrSize,
        abbrevOffset,
        dieStart: r.pos,
        tag: 0,
        lang: 0,
        compDir: null,
        stmtList: -1,
        base: 0,
        strOffsetsBase: offSize === 8 ? 16 : 8,
        addrBase: offSize === 8 ? 16 : 8,
        rnglistsBase: offSize === 8 ? 20 : 12,
        ranges: [],
        dieRead: false,
      });
      r.pos = end;
    }
  } catch (e) {
    return { units, error: e instanceof DwarfError ? e : new DwarfError('.debug_info', String(e), r.pos) };
  }
  return { units };
}

/** Units that hold code: compile and partial units (not type or skeleton units). */
export function isCodeUnit(u: Unit): boolean {
  return u.version < 5 || u.unitType === DW_UT_compile || u.unitType === DW_UT_partial;
}

/** Reads and caches abbreviation tables by offset (units of one kind share them). */
export class Abbrevs {
  private cache = new Map<string, AbbrevTable>();
  constructor(private readonly s: Sections) {}
  of(u: Unit): AbbrevTable {
    if (u.abbrevs !== undefined) return u.abbrevs;
    const key = `${u.abbrevOffset}:${u.version}:${u.addrSize}:${u.offSize}`;
    let t = this.cache.get(key);
    if (t === undefined) {
      const r: Reader = new Reader(this.s.abbrev, this.s.le, '.debug_abbrev', u.abbrevOffset);
      if (u.abbrevOffset >= this.s.abbrev.length) r.fail('abbreviation offset past the section');
      t = readAbbrevTable(r, u);
      this.cache.set(key, t);
    }
    u.abbrevs = t;
    return t;
  }
}

/** A string attribute's value (null for strings in files we do not have: dwz, supplementary). */
export function readString(s: Sections, u: Unit, r: Reader, form: number): string | null {
  if (form === DW_FORM_string) return r.cstr();
  const v = readForm(r, form, u);
  if (form === DW_FORM_strp) return strAt(s, v);
  if (form === DW_FORM_line_strp)
    return s.lineStr ? (cstrAt(s.lineStr, v, s.lineStr.length)?.text ?? null) : null;
  if (form === DW_FORM_GNU_strp_alt || form === DW_FORM_strp_sup) return null;
  // strx forms: an index into the unit's .debug_str_offsets table.
  const so = s.strOffsets;
  if (so === undefined || s.str === undefined) return null;
  const at = u.strOffsetsBase + v * u.offSize;
  if (at + u.offSize > so.length) return null;
  const off = new Reader(so, s.le, '.debug_str_offsets', at).offset(u.offSize);
  return strAt(s, off);
}

/** The .debug_str string at an offset (null: none there), read once. */
function strAt(s: Sections, off: number): string | null {
  if (s.str === undefined) return null;
  const cache = (s.strCache ??= new Map());
  let t = cache.get(off);
  if (t === undefined) {
    t = cstrAt(s.str, off, s.str.length)?.text ?? null;
    cache.set(off, t);
  }
  return t;
}

/** An address attribute's value (resolving .debug_addr indices); BIG when unusable. */
function readAddress(s: Sections, u: Unit, r: Reader, form: number): number {
  const v = readForm(r, form, u);
  return form === DW_FORM_addr ? v : addrIndex(s, u, v);
}

/** Reads the unit DIE's attributes into `u` (language, comp dir, line program, bases, ranges). */
export function readUnitDie(s: Sections, abbrevs: Abbrevs, u: Unit): void {
  if (u.dieRead) return;
  u.dieRead = true;
  const r: Reader = new Reader(s.info, s.le, '.debug_info', u.dieStart, u.end);
  const code = r.uleb();
  if (code === 0) return;
  const ab = abbrevOf(abbrevs.of(u), code);
  if (ab === undefined) r.fail(`unknown abbreviation code ${code}`);
  u.tag = ab.tag;
  let low = -1;
  let lowForm = 0;
  let high = -1;
  let highForm = 0;
  let rangesVal = -1;
  let rangesForm = 0;
  const deferred: [number, number, Reader][] = [];
  for (let i = 0; i < ab.attrs.length; i++) {
    const at = ab.attrs[i];
    const form = ab.forms[i];
    switch (at) {
      case DW_AT_language:
        u.lang = readForm(r, form, u, ab.consts[i]);
        break;
      case DW_AT_comp_dir:
        if (isStringForm(form))
          deferred.push([at, form, new Reader(s.info, s.le, '.debug_info', r.pos, u.end)]);
        skipForm(r, form, u);
        break;
      case DW_AT_stmt_list:
        u.stmtList = readForm(r, form, u, ab.consts[i]);
        break;
      case DW_AT_str_offsets_base:
        u.strOffsetsBase = readForm(r, form, u, ab.consts[i]);
        break;
      case DW_AT_addr_base:
      case DW_AT_GNU_addr_base:
        u.addrBase = readForm(r, form, u, ab.consts[i]);
        break;
      case DW_AT_rnglists_base:
        u.rnglistsBase = readForm(r, form, u, ab.consts[i]);
        break;
      case DW_AT_low_pc:
        lowForm = form;
        low = r.pos;
        skipForm(r, form, u);
        break;
      case DW_AT_high_pc:
        highForm = form;
        high = r.pos;
        skipForm(r, form, u);
        break;
      case DW_AT_ranges:
        rangesForm = form;
        rangesVal = readForm(r, form, u, ab.consts[i]);
        break;
      default:
        skipForm(r, form, u);
    }
  }
  // Strings and addresses after all attributes: they may need the bases read above.
  for (const [, form, rr] of deferred) u.compDir = readString(s, u, rr, form);
  let lowPc = -1;
  if (low >= 0) {
    r.pos = low;
    lowPc = readAddress(s, u, r, lowForm);
    u.base = lowPc;
  }
  if (rangesForm !== 0) {
    readRanges(s, u, rangesVal, rangesForm, u.ranges);
  } else if (low >= 0 && high >= 0) {
    r.pos = high;
    const h = isAddressForm(highForm) ? readAddress(s, u, r, highForm) : lowPc + readForm(r, highForm, u);
    if (lowPc < h && h <= BIG && lowPc < BIG) u.ranges.push(lowPc, h);
  }
}

/**
 * Appends the ranges of a DW_AT_ranges value to `out` as [low, high) pairs (empty and unusable
 * ones skipped): `.debug_ranges` before DWARF 5, `.debug_rnglists` from 5 on.
 */
export function readRanges(s: Sections, u: Unit, value: number, form: number, out: number[]): void {
  const as = u.addrSize;
  if (u.version < 5) {
    const sec = s.ranges;
    if (sec === undefined) throw new DwarfError('.debug_ranges', 'section missing', value);
    const r: Reader = new Reader(sec, s.le, '.debug_ranges', value);
    if (value >= sec.length) r.fail('range list offset past the section');
    let base = u.base;
    for (;;) {
      const maxLow = r.allOnes(as);
      const lo = r.uN(as);
      const hi = r.uN(as);
      if (lo === 0 && hi === 0 && !maxLow) break;
      if (maxLow) {
        base = hi;
        continue;
      }
      addRange(out, base + lo, base + hi);
    }
    return;
  }
  const sec = s.rnglists;
  if (sec === undefined) throw new DwarfError('.debug_rnglists', 'section missing', value);
  let off = value;
  if (form === DW_FORM_rnglistx) {
    const at = u.rnglistsBase + value * u.offSize;
    const ri = new Reader(sec, s.le, '.debug_rnglists', at);
    off = u.rnglistsBase + ri.offset(u.offSize);
  }
  const r: Reader = new Reader(sec, s.le, '.debug_rnglists', off);
  if (off >= sec.length) r.fail('range list offset past the section');
  let base = u.base;
  for (;;) {
    const kind = r.u8();
    switch (kind) {
      case 0: // end_of_list
        return;
      case 1: // base_addressx
        base = addrIndex(s, u, r.uleb());
        break;
      case 2: {
        // startx_endx
        const a = addrIndex(s, u, r.uleb());
        const b = addrIndex(s, u, r.uleb());
        addRange(out, a, b);
        break;
      }
      case 3: {
        // startx_length
        const a = addrIndex(s, u, r.uleb());
        addRange(out, a, a + r.uleb());
        break;
      }
      case 4: {
        // offset_pair
        const a = r.uleb();
        const b = r.uleb();
        addRange(out, base + a, base + b);
        break;
      }
      case 5: // base_address
        base = r.uN(as);
        break;
      case 6: {
        // start_end
        const a = r.uN(as);
        addRange(out, a, r.uN(as));
        break;
      }
      case 7: {
        // start_length
        const a = r.uN(as);
        addRange(out, a, a + r.uleb());
        break;
      }
      default:
        r.fail(`unknown range list entry kind ${kind}`, r.pos - 1);
    }
  }
}

/** Entry i of the unit's .debug_addr table; BIG when unusable. */
function addrIndex(s: Sections, u: Unit, i: number): number {
  const a = s.addr;
  const at = u.addrBase + i * u.addrSize;
  if (a === undefined || at + u.addrSize > a.length) return BIG;
  return new Reader(a, s.le, '.debug_addr', at).uN(u.addrSize);
}

function addRange(out: number[], lo: number, hi: number): void {
  if (lo < hi && lo < BIG && hi <= BIG) out.push(lo, hi);
}

/** One unit's functions (DIE order) and their ranges sorted by start. */
export interface UnitFunctions {
  /** Per function: its DIE's offset in .debug_info, caller index (-1), call file/line. */
  die: Float64Array;
  caller: Int32Array;
  callFile: Int32Array;
  callLine: Uint32Array;
  /** The start of the function's first range (bfd's arange.low), -1 when it has none. */
  firstLow: Float64Array;
  /**
   * The unit's code cut at every range's start and end: segment k runs from segStart[k] to
   * segStart[k + 1] (the last one to the end of the address space), and segFn[k] is the innermost
   * function there (findFunction's answer for each address of the segment), -1 where none.
   */
  segStart: Float64Array;
  segFn: Int32Array;
  /**
   * Per function: the DIE it takes its name from (an inlined copy's abstract origin, in the same
   * unit) when it has no name of its own and no other reference; -1 otherwise (resolveName reads
   * the DIE).
   */
  origin: Float64Array;
  /** Names resolved so far (undefined: not yet). */
  names: ({ name: string | null; linkage: boolean } | undefined)[];
}

/** A growable column of numbers. */
class Column {
  a = new Float64Array(64);
  n = 0;
  push(v: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.n * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = v;
  }
}

/** Walks the unit's DIE tree and collects its functions. */
export function readUnitFunctions(s: Sections, abbrevs: Abbrevs, u: Unit): UnitFunctions {
  const table = abbrevs.of(u);
  const r: Reader = new Reader(s.info, s.le, '.debug_info', u.dieStart, u.end);
  const bytes = s.info;
  // Columns grown in place (no per-element boxing, little garbage on units with 100k+ DIEs).
  const die = new Column();
  const caller = new Column();
  const callFile = new Column();
  const callLine = new Column();
  const firstLow = new Column();
  const origin = new Column();
  const rl = new Column();
  const rh = new Column();
  const rf = new Column();
  const tmp: number[] = [];
  const stack: number[] = [];
  let depth = 0;
  while (r.pos < r.end) {
    const at = r.pos;
    // Abbreviation code: one byte in nearly all DIEs.
    let code = bytes[r.pos];
    if (code < 0x80) r.pos++;
    else code = r.uleb();
    if (code === 0) {
      depth--;
      if (depth <= 0) break;
      continue;
    }
    const ab: Abbrev | undefined = code < table.dense.length ? table.dense[code] : table.sparse.get(code);
    if (ab === undefined) r.fail(`unknown abbreviation code ${code}`, at);
    const tag = ab.tag;
    if (tag === DW_TAG_subprogram || tag === DW_TAG_inlined_subroutine || tag === DW_TAG_entry_point) {
      const idx = die.n;
      let lowPc = -1;
      let highVal = -1;
      let highIsAddr = false;
      let cf = -1;
      let cl = 0;
      let rangesVal = -1;
      let rangesForm = 0;
      // The name's source: -1 none yet, -2 several or a name of its own (resolveName decides).
      let ref = -1;
      const n = ab.attrs.length;
      for (let i = 0; i < n; i++) {
        const name = ab.attrs[i];
        const form = ab.forms[i];
        switch (name) {
          case DW_AT_abstract_origin:
          case DW_AT_specification:
            if (ref === -1 && isUnitRef(form)) ref = u.offset + readForm(r, form, u, ab.consts[i]);
            else {
              ref = -2;
              skipForm(r, form, u);
            }
            break;
          case DW_AT_name:
          case DW_AT_linkage_name:
          case DW_AT_MIPS_linkage_name:
            ref = -2;
            skipForm(r, form, u);
            break;
          case DW_AT_low_pc:
            lowPc = readAddress(s, u, r, form);
            break;
          case DW_AT_high_pc:
            highIsAddr = isAddressForm(form);
            highVal = highIsAddr ? readAddress(s, u, r, form) : readForm(r, form, u, ab.consts[i]);
            break;
          case DW_AT_ranges:
            rangesForm = form;
            rangesVal = readForm(r, form, u, ab.consts[i]);
            break;
          case DW_AT_call_file:
            cf = readForm(r, form, u, ab.consts[i]);
            break;
          case DW_AT_call_line:
            cl = readForm(r, form, u, ab.consts[i]);
            break;
          default:
            skipForm(r, form, u);
        }
      }
      let c = -1;
      if (tag === DW_TAG_inlined_subroutine) {
        for (let d = depth - 1; d >= 0; d--) {
          if (stack[d] >= 0) {
            c = stack[d];
            break;
          }
        }
      }
      die.push(at);
      caller.push(c);
      callFile.push(cf);
      callLine.push(cl >= 0 && cl <= 0xffffffff ? cl : 0);
      const nRanges = rl.n;
      if (rangesForm !== 0) {
        tmp.length = 0;
        readRanges(s, u, rangesVal, rangesForm, tmp);
        for (let k = 0; k < tmp.length; k += 2) {
          rl.push(tmp[k]);
          rh.push(tmp[k + 1]);
          rf.push(idx);
        }
      } else if (lowPc >= 0 && highVal >= 0) {
        const hi = highIsAddr ? highVal : lowPc + highVal;
        if (lowPc < hi && lowPc < BIG && hi <= BIG) {
          rl.push(lowPc);
          rh.push(hi);
          rf.push(idx);
        }
      }
      firstLow.push(rl.n > nRanges ? rl.a[nRanges] : -1);
      origin.push(ref >= u.dieStart && ref < u.end ? ref : -1);
      stack[depth] = idx;
    } else {
      if (ab.skipTree >= 0) {
        // A type with children: jump to its sibling (past its subtree) when the link is sane.
        const forms = ab.forms;
        const k = ab.skipTree;
        for (let i = 0; i < k; i++) skipForm(r, forms[i], u);
        const sib = u.offset + readForm(r, forms[k], u);
        if (sib > r.pos && sib <= r.end) {
          r.pos = sib;
          stack[depth] = -1;
          continue;
        }
        for (let i = k + 1; i < forms.length; i++) skipForm(r, forms[i], u);
      } else if (ab.fixed >= 0) {
        r.pos += ab.fixed;
        if (r.pos > r.end) r.fail('DIE runs past the unit', at);
      } else {
        const forms = ab.forms;
        for (let i = 0; i < forms.length; i++) skipForm(r, forms[i], u);
      }
      stack[depth] = -1;
    }
    if (ab.children) depth++;
  }

  const seg = innermostSegments(rl.a, rh.a, rf.a, rl.n);
  return {
    die: die.a.slice(0, die.n),
    caller: Int32Array.from(caller.a.subarray(0, caller.n)),
    callFile: Int32Array.from(callFile.a.subarray(0, callFile.n)),
    callLine: Uint32Array.from(callLine.a.subarray(0, callLine.n)),
    firstLow: firstLow.a.slice(0, firstLow.n),
    origin: origin.a.slice(0, origin.n),
    segStart: seg.start,
    segFn: seg.fn,
    names: new Array(die.n),
  };
}

/**
 * The innermost function whose range holds the address: the smallest such range, the later
 * function (in DIE order) on ties, as bfd's lookup_address_in_function_table. -1 if none. One
 * binary search in the unit's segments (innermostSegments).
 */
export function findFunction(f: UnitFunctions, addr: number): number {
  const a = countAtOrBelow(f.segStart, addr);
  return a === 0 ? -1 : f.segFn[a - 1];
}

/** How many values of an ascending array are ≤ x (the index of the last one, plus one). */
export function countAtOrBelow(sorted: ArrayLike<number>, x: number): number {
  let a = 0;
  let b = sorted.length;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (sorted[mid] <= x) a = mid + 1;
    else b = mid;
  }
  return a;
}

/**
 * Ranges [low, high) of functions `fn` cut into segments, each with its innermost function: the
 * smallest range over the segment, the larger function index on ties (-1: no range). A sweep over
 * the ranges' ends with a heap of the open ranges, smallest on top: ranges that ended are popped
 * when they reach the top. O(n log n) once per unit, whatever the ranges (nested as DWARF's are,
 * or overlapping in a damaged file), where scanning back from each address cost a step per range
 * starting between the function and the address (thousands in a large inlined function).
 */
export function innermostSegments(
  low: Float64Array,
  high: Float64Array,
  fnOf: Float64Array,
  n: number,
): { start: Float64Array; fn: Int32Array } {
  const byLow = new Uint32Array(n);
  for (let i = 0; i < n; i++) byLow[i] = i;
  byLow.sort((a, b) => low[a] - low[b]);
  // Every start and end, sorted, once each.
  const points = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    points[2 * i] = low[i];
    points[2 * i + 1] = high[i];
  }
  points.sort();
  let k = 0;
  for (let i = 0; i < points.length; i++) if (k === 0 || points[i] !== points[k - 1]) points[k++] = points[i];
  const start = new Float64Array(k);
  const fn = new Int32Array(k);
  // Binary heap of range indices: smaller length first, then larger function index.
  const heap = new Uint32Array(n);
  let size = 0;
  const before = (a: number, b: number) => {
    const la = high[a] - low[a];
    const lb = high[b] - low[b];
    return la < lb || (la === lb && fnOf[a] > fnOf[b]);
  };
  const push = (r: number) => {
    let i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(r, heap[p])) break;
      heap[i] = heap[p];
      i = p;
    }
    heap[i] = r;
  };
  const pop = () => {
    const last = heap[--size];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && before(heap[c + 1], heap[c])) c++;
      if (!before(heap[c], last)) break;
      heap[i] = heap[c];
      i = c;
    }
    heap[i] = last;
  };
  let next = 0;
  let m = 0;
  for (let j = 0; j < k; j++) {
    const at = points[j];
    while (next < n && low[byLow[next]] <= at) {
      const r = byLow[next++];
      if (high[r] > low[r]) push(r);
    }
    while (size > 0 && high[heap[0]] <= at) pop();
    const f = size > 0 ? fnOf[heap[0]] : -1;
    // Neighbours with the same function are one segment.
    if (m > 0 && fn[m - 1] === f) continue;
    start[m] = at;
    fn[m] = f;
    m++;
  }
  return { start: start.slice(0, m), fn: fn.slice(0, m) };
}

/** Where a DIE offset lives: the unit holding it, found by the caller. */
export type UnitOf = (dieOffset: number) => Unit | undefined;

/**
 * A function DIE's name as bfd gives it: its DW_AT_linkage_name (or DW_AT_MIPS_linkage_name),
 * else its DW_AT_name, following DW_AT_abstract_origin and DW_AT_specification in attribute
 * order (bfd's scan_unit_for_symbols and find_abstract_instance: abstract_origin only on the
 * function's own DIE), except that a linkage name is never replaced by the name of a DIE it
 * refers to. `linkage` is true for a linkage name, and for DW_AT_name in languages without
 * mangling (C).
 */
export function resolveName(
  s: Sections,
  abbrevs: Abbrevs,
  unitOf: UnitOf,
  u: Unit,
  dieOffset: number,
): { name: string | null; linkage: boolean } {
  const st = { linkage: false };
  const name = nameAt(s, abbrevs, unitOf, u, dieOffset, 0, st, true);
  return { name, linkage: st.linkage };
}

/**
 * resolveName of a function DIE whose one attribute for its name is a reference to `origin` in
 * its unit (UnitFunctions.origin): the name of that DIE, as resolveName would find it, without
 * reading the function's own DIE again.
 */
export function resolveOriginName(
  s: Sections,
  abbrevs: Abbrevs,
  unitOf: UnitOf,
  u: Unit,
  origin: number,
): { name: string | null; linkage: boolean } {
  return referredName(s, abbrevs, unitOf, u, origin, 1);
}

/**
 * The name (and whether a linkage name set it) of a DIE another refers to (a specification or
 * abstract origin): nameAt's, read once per DIE.
 */
function referredName(
  s: Sections,
  abbrevs: Abbrevs,
  unitOf: UnitOf,
  u: Unit,
  dieOffset: number,
  depth: number,
): { name: string | null; linkage: boolean } {
  const cache = (s.refNames ??= new Map());
  let known = cache.get(dieOffset);
  if (known === undefined) {
    const own = { linkage: false };
    known = { name: nameAt(s, abbrevs, unitOf, u, dieOffset, depth, own, false), linkage: own.linkage };
    cache.set(dieOffset, known);
  }
  return known;
}

function nameAt(
  s: Sections,
  abbrevs: Abbrevs,
  unitOf: UnitOf,
  u: Unit,
  dieOffset: number,
  depth: number,
  st: { linkage: boolean },
  top: boolean,
): string | null {
  if (depth > 16)
    throw new DwarfError('.debug_info', 'abstract origin / specification chain too long', dieOffset);
  const r: Reader = new Reader(s.info, s.le, '.debug_info', dieOffset, u.end);
  const code = r.uleb();
  const ab = abbrevOf(abbrevs.of(u), code);
  if (ab === undefined) r.fail(`unknown abbreviation code ${code}`, dieOffset);
  let name: string | null = null;
  let ownLinkage = false;
  for (let i = 0; i < ab.attrs.length; i++) {
    const at = ab.attrs[i];
    const form = ab.forms[i];
    if (at === DW_AT_name) {
      if (name === null && isStringForm(form)) {
        name = readString(s, u, r, form);
        if (name !== null && plainNames(u.lang)) st.linkage = true;
      } else skipForm(r, form, u);
    } else if (at === DW_AT_linkage_name || at === DW_AT_MIPS_linkage_name) {
      if (isStringForm(form)) {
        const n = readString(s, u, r, form);
        if (n !== null) {
          name = n;
          ownLinkage = true;
          st.linkage = true;
        }
      } else skipForm(r, form, u);
    } else if (at === DW_AT_specification || (top && at === DW_AT_abstract_origin)) {
      const v = readForm(r, form, u, ab.consts[i]);
      let target = -1;
      if (isUnitRef(form)) target = u.offset + v;
      else if (form === DW_FORM_ref_addr) target = v;
      else if (form === DW_FORM_GNU_ref_alt) target = -1;
      if (target >= 0) {
        const tu = target >= u.offset && target < u.end ? u : unitOf(target);
        if (tu === undefined) throw new DwarfError('.debug_info', 'reference outside every unit', target);
        if (tu !== u) readUnitDie(s, abbrevs, tu);
        // bfd takes the referenced DIE's name even over a linkage name read before it (clang puts
        // DW_AT_linkage_name before DW_AT_specification; gcc never does, and binutils 2.40
        // misreads clang's inline ranges anyway): we keep a linkage name, as llvm-addr2line.
        const ref = referredName(s, abbrevs, unitOf, tu, target, depth + 1);
        if (ref.linkage) st.linkage = true;
        const n = ref.name;
        if (n !== null && !ownLinkage) name = n;
      }
    } else {
      skipForm(r, form, u);
    }
  }
  return name;
}
