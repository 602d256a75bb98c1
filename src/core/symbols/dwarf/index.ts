// DWARF address lookup: virtual address → inline chain (outermost first) with file:line, as
// binutils `addr2line -f -i` gives it. See docs/dwarf.md.
//
// Lazy: creating a DwarfInfo decompresses the sections, walks the unit headers and builds an
// address → unit index (from .debug_aranges where it covers a unit, else from the unit DIE's
// low_pc/high_pc/ranges). A unit's DIE tree and line program are decoded on the first lookup
// that lands in it, then kept. Nothing here throws out of `create` or `lookup`: a damaged unit
// or section is skipped and reported once through `warnings`.

import {
  Abbrevs,
  countAtOrBelow,
  findFunction,
  isCodeUnit,
  readUnitDie,
  readUnitFunctions,
  readUnitHeaders,
  resolveName,
  resolveOriginName,
  type Sections,
  type Unit,
  type UnitFunctions,
} from './info.ts';
import { type LineTable, lookupLine, readLineTable } from './line.ts';
import { BIG, DwarfError, Reader } from './reader.ts';
import { type DwarfSections, sectionBytes } from './sections.ts';

export { DwarfError } from './reader.ts';
export type { DwarfSections, RawDwarfSection } from './sections.ts';

/** One frame of an inline chain. `name` null when DWARF names no function there. */
export interface DwarfFrame {
  name: string | null;
  /** Full path as addr2line prints it; null when unknown. */
  file: string | null;
  /** 0 when unknown. */
  line: number;
  /** The name is final: a linkage name, or DW_AT_name in a language without mangling (C). */
  linkage: boolean;
  /** Where the function's first address range starts (bfd's arange.low); -1 when unknown. */
  low: number;
}

export interface DwarfAnswer {
  /**
   * Outermost (the real function) first, innermost inlined last. Never empty. Shared by the
   * addresses of one line-table row in one function (do not modify): callers may cache by it.
   */
  frames: DwarfFrame[];
  /** False when no DWARF function covers the address (only the line table did). */
  found: boolean;
  /**
   * The innermost name is final (a linkage name, or DW_AT_name in C). When false, addr2line
   * names the innermost frame after the ELF symbol covering the address, if there is one
   * (llvm-symbolizer, and so symbolize.ts, keeps DWARF's name: docs/dwarf.md, Names).
   */
  linkage: boolean;
}

interface UnitState {
  funcs?: UnitFunctions | null;
  lines?: LineTable | null;
  /**
   * Answers share their frames: per function, the frames of its inline callers (outermost first,
   * each with the call site inside it), which every address in the function has; per line-table
   * row, the whole chain (the answer's `frames`), ending in the row's innermost frame, for the
   * function `fi` it was made for. Later stages cache their work by these objects (symbolize.ts,
   * granularity.ts, the fold), so each frame and each chain is named once, not per address.
   */
  outer?: (DwarfFrame[] | undefined)[];
  inner?: Map<number, { fi: number; chain: DwarfFrame[] }>;
}

/** Sections DwarfInfo reads, by their name in the file. */
const NAMES: [keyof Omit<Sections, 'le' | 'strCache' | 'refNames'>, string][] = [
  ['info', '.debug_info'],
  ['abbrev', '.debug_abbrev'],
  ['str', '.debug_str'],
  ['lineStr', '.debug_line_str'],
  ['line', '.debug_line'],
  ['ranges', '.debug_ranges'],
  ['rnglists', '.debug_rnglists'],
  ['addr', '.debug_addr'],
  ['strOffsets', '.debug_str_offsets'],
  ['aranges', '.debug_aranges'],
];

export class DwarfInfo {
  /** Problems met so far (creation, then lookups that parsed a damaged unit). */
  readonly warnings: string[];
  private readonly s: Sections;
  private readonly abbrevs: Abbrevs;
  private readonly units: Unit[];
  private readonly state: UnitState[];
  private readonly unitOffsets: Float64Array;
  /** Address → unit index: intervals sorted by start, with a running maximum of ends. */
  private readonly ivLow: Float64Array;
  private readonly ivHigh: Float64Array;
  private readonly ivUnit: Int32Array;
  private readonly ivMax: Float64Array;
  /**
   * The address space cut at every interval's ends: segment k starts at segLow[k] and holds the
   * unit segUnit[k] alone, none (-1), or several (-2: found by scanning the intervals). One binary
   * search per lookup: with .debug_aranges listing each function of a unit, the running maximum
   * covers nearly every interval below an address, and the scan read them all (~3 µs a lookup).
   */
  private readonly segLow: Float64Array;
  private readonly segUnit: Int32Array;
  private readonly warned = new Set<string>();
  /** Called with each warning as it is found (after creation: from lookups). */
  onWarning: ((w: string) => void) | undefined;

  /**
   * The DWARF of an ELF file, or null when it has none usable (no .debug_info, or it or
   * .debug_abbrev cannot be read); `warnings` says why for the latter. Never throws.
   */
  static create(ds: DwarfSections, warnings: string[] = []): DwarfInfo | null {
    try {
      const s: Partial<Sections> & { le: boolean } = { le: ds.littleEndian };
      for (const [key, name] of NAMES) {
        const raw = ds.sections.get(name);
        if (raw === undefined) continue;
        try {
          s[key] = sectionBytes(raw, ds.is64, ds.littleEndian);
        } catch (e) {
          warnings.push(`${name} skipped: ${errText(e)}`);
        }
      }
      if (s.info === undefined || s.abbrev === undefined) {
        if (ds.sections.has('.debug_info')) warnings.push('.debug_info unusable: no DWARF line information');
        return null;
      }
      const d = new DwarfInfo(s as Sections, warnings);
      return d.ivLow.length > 0 ? d : null;
    } catch (e) {
      warnings.push(`DWARF skipped: ${errText(e)}`);
      return null;
    }
  }

  private constructor(s: Sections, warnings: string[]) {
    this.warnings = warnings;
    this.s = s;
    this.abbrevs = new Abbrevs(s);
    const { units, error } = readUnitHeaders(s);
    if (error) warnings.push(`${error.message}: the units after it are skipped`);
    this.units = units;
    this.state = units.map(() => ({}));
    this.unitOffsets = Float64Array.from(units.map((u) => u.offset));

    const lows: number[] = [];
    const highs: number[] = [];
    const ids: number[] = [];
    const covered = new Uint8Array(units.length);
    if (s.aranges !== undefined) {
      try {
        this.readAranges(s.aranges, lows, highs, ids, covered);
      } catch (e) {
        warnings.push(`.debug_aranges skipped: ${errText(e)}`);
        lows.length = highs.length = ids.length = 0;
        covered.fill(0);
      }
    }
    let badUnits = 0;
    let firstBad = '';
    for (let i = 0; i < units.length; i++) {
      const u = units[i];
      if (covered[i] || !isCodeUnit(u)) continue;
      try {
        readUnitDie(s, this.abbrevs, u);
      } catch (e) {
        if (badUnits++ === 0) firstBad = errText(e);
        continue;
      }
      for (let k = 0; k < u.ranges.length; k += 2) {
        lows.push(u.ranges[k]);
        highs.push(u.ranges[k + 1]);
        ids.push(i);
      }
    }
    if (badUnits > 0) warnings.push(`.debug_info: ${badUnits} unit(s) skipped: ${firstBad}`);
    const skeletons = units.filter((u) => u.version === 5 && (u.unitType === 4 || u.unitType === 5)).length;
    if (skeletons > 0) {
      warnings.push(
        `.debug_info: ${skeletons} split-DWARF unit(s): their functions are in .dwo/.dwp files (not supported), only line tables are used`,
      );
    }
    const n = lows.length;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => lows[a] - lows[b] || ids[a] - ids[b]);
    this.ivLow = new Float64Array(n);
    this.ivHigh = new Float64Array(n);
    this.ivUnit = new Int32Array(n);
    this.ivMax = new Float64Array(n);
    let m = 0;
    for (let k = 0; k < n; k++) {
      const i = order[k];
      this.ivLow[k] = lows[i];
      this.ivHigh[k] = highs[i];
      this.ivUnit[k] = ids[i];
      if (highs[i] > m) m = highs[i];
      this.ivMax[k] = m;
    }
    [this.segLow, this.segUnit] = unitSegments(this.ivLow, this.ivHigh, this.ivUnit, units.length);
  }

  /** Number of units in .debug_info (for tests and the bench). */
  get unitCount(): number {
    return this.units.length;
  }

  private readAranges(
    b: Uint8Array,
    lows: number[],
    highs: number[],
    ids: number[],
    covered: Uint8Array,
  ): void {
    const r: Reader = new Reader(b, this.s.le, '.debug_aranges');
    const byOffset = new Map<number, number>();
    for (let i = 0; i < this.units.length; i++) byOffset.set(this.units[i].offset, i);
    while (r.pos < r.end) {
      const start = r.pos;
      const [len, offSize] = r.initialLength();
      const end = r.pos + len;
      if (end > r.end) r.fail(`set length ${len} runs past the section`, start);
      const version = r.u16();
      if (version !== 2) r.fail(`unsupported version ${version}`, start);
      const infoOff = r.offset(offSize);
      const as = r.u8();
      const seg = r.u8();
      if (as !== 4 && as !== 8 && as !== 2) r.fail(`bad address size ${as}`, start);
      // Tuples are aligned to twice the address size, from the start of the set.
      const tuple = 2 * as + seg;
      const rel = r.pos - start;
      r.pos = start + Math.ceil(rel / tuple) * tuple;
      r.end = end;
      const unit = byOffset.get(infoOff);
      while (r.pos + tuple <= end) {
        r.pos += seg;
        const lo = r.uN(as);
        const size = r.uN(as);
        if (lo === 0 && size === 0) break;
        if (unit !== undefined && size > 0 && lo < BIG && lo + size <= BIG) {
          lows.push(lo);
          highs.push(lo + size);
          ids.push(unit);
        }
      }
      if (unit !== undefined) covered[unit] = 1;
      r.end = b.length;
      r.pos = end;
    }
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.warnings.push(message);
    this.onWarning?.(message);
  }

  private unitOf = (dieOffset: number): Unit | undefined => {
    const u = this.units[countAtOrBelow(this.unitOffsets, dieOffset) - 1];
    return u !== undefined && dieOffset < u.end ? u : undefined;
  };

  private funcsOf(i: number): UnitFunctions | null {
    const st = this.state[i];
    if (st.funcs !== undefined) return st.funcs;
    const u = this.units[i];
    try {
      readUnitDie(this.s, this.abbrevs, u);
      st.funcs = readUnitFunctions(this.s, this.abbrevs, u);
    } catch (e) {
      st.funcs = null;
      this.warnOnce(`info:${i}`, `.debug_info: unit at offset ${u.offset} skipped: ${errText(e)}`);
    }
    return st.funcs;
  }

  private linesOf(i: number): LineTable | null {
    const st = this.state[i];
    if (st.lines !== undefined) return st.lines;
    st.lines = null;
    const u = this.units[i];
    if (u.stmtList < 0) return null;
    if (this.s.line === undefined) {
      this.warnOnce('line', '.debug_line missing: no file:line for the innermost frames');
      return null;
    }
    try {
      st.lines = readLineTable(this.s.line, this.s.le, u.stmtList, u.compDir, {
        str: this.s.str,
        lineStr: this.s.lineStr,
      });
    } catch (e) {
      this.warnOnce(`line:${i}`, `.debug_line: line program at offset ${u.stmtList} skipped: ${errText(e)}`);
    }
    return st.lines;
  }

  /** Units whose ranges hold the address, in .debug_info order. */
  private unitsAt(addr: number): number[] {
    const s = countAtOrBelow(this.segLow, addr);
    const one = s === 0 ? -1 : this.segUnit[s - 1];
    if (one === -1) return [];
    if (one >= 0) return [one];
    // Overlapping units (rare): every interval that may still hold the address.
    const a = countAtOrBelow(this.ivLow, addr);
    const out: number[] = [];
    for (let i = a - 1; i >= 0 && this.ivMax[i] > addr; i--) {
      if (this.ivHigh[i] > addr && !out.includes(this.ivUnit[i])) out.push(this.ivUnit[i]);
    }
    if (out.length > 1) out.sort((x, y) => x - y);
    return out;
  }

  /**
   * The inline chain at a virtual address (< 2^53), or null when no unit knows the address.
   * Never throws: damaged units are skipped (and reported through `warnings`).
   */
  lookup(addr: number): DwarfAnswer | null {
    for (const i of this.unitsAt(addr)) {
      try {
        const a = this.lookupInUnit(i, addr);
        if (a !== null) return a;
      } catch (e) {
        this.warnOnce(
          `lookup:${i}`,
          `.debug_info: unit at offset ${this.units[i].offset} skipped: ${errText(e)}`,
        );
      }
    }
    return null;
  }

  private lookupInUnit(i: number, addr: number): DwarfAnswer | null {
    const funcs = this.funcsOf(i);
    const lines = this.linesOf(i);
    const fi = funcs === null ? -1 : findFunction(funcs, addr);
    const row = lines === null ? -1 : lookupLine(lines, addr);
    if (fi < 0 && row < 0) return null;
    const st = this.state[i];
    const known = row >= 0 ? st.inner?.get(row) : undefined;
    let chain: DwarfFrame[];
    if (known !== undefined && known.fi === fi) chain = known.chain;
    else {
      const inner: DwarfFrame = {
        name: null,
        file: row >= 0 ? lines!.fileName(lines!.rowFile[row]) : null,
        line: row >= 0 ? lines!.rowLine[row] : 0,
        linkage: false,
        low: -1,
      };
      if (fi >= 0 && funcs !== null) {
        const n0 = this.nameOf(funcs, this.units[i], fi);
        inner.name = n0.name;
        inner.linkage = n0.linkage;
        inner.low = funcs.firstLow[fi];
      }
      chain = fi < 0 || funcs === null ? [inner] : [...this.outerFrames(i, funcs, lines, fi), inner];
      if (row >= 0) (st.inner ??= new Map()).set(row, { fi, chain });
    }
    const found = fi >= 0 && funcs !== null;
    return { frames: chain, found, linkage: found && chain[chain.length - 1].linkage };
  }

  /** The inline callers of function `fi`, outermost first: each the call site of the one inside it. */
  private outerFrames(i: number, funcs: UnitFunctions, lines: LineTable | null, fi: number): DwarfFrame[] {
    const outer = (this.state[i].outer ??= new Array(funcs.caller.length));
    const known = outer[fi];
    if (known !== undefined) return known;
    const u = this.units[i];
    const frames: DwarfFrame[] = [];
    let f = fi;
    for (let guard = 0; funcs.caller[f] >= 0 && guard < 10000; guard++) {
      const c = funcs.caller[f];
      const cf = funcs.callFile[f];
      const n = this.nameOf(funcs, u, c);
      frames.push({
        name: n.name,
        file: cf >= 0 && lines !== null ? lines.fileName(cf) : null,
        line: funcs.callLine[f],
        linkage: n.linkage,
        low: funcs.firstLow[c],
      });
      f = c;
    }
    frames.reverse();
    outer[fi] = frames;
    return frames;
  }

  private nameOf(funcs: UnitFunctions, u: Unit, fi: number): { name: string | null; linkage: boolean } {
    let n = funcs.names[fi];
    if (n === undefined) {
      try {
        const o = funcs.origin[fi];
        n =
          o >= 0
            ? resolveOriginName(this.s, this.abbrevs, this.unitOf, u, o)
            : resolveName(this.s, this.abbrevs, this.unitOf, u, funcs.die[fi]);
      } catch (e) {
        this.warnOnce(
          `name:${u.offset}`,
          `.debug_info: a function name in the unit at offset ${u.offset} is unreadable: ${errText(e)}`,
        );
        n = { name: null, linkage: false };
      }
      funcs.names[fi] = n;
    }
    return n;
  }
}

/**
 * Intervals [low, high) of units (sorted by low) as segments: each segment's start, and its one
 * unit, -1 for none or -2 for several. A sweep over the intervals' ends keeping a count of open
 * intervals per unit.
 */
function unitSegments(
  low: Float64Array,
  high: Float64Array,
  unit: Int32Array,
  units: number,
): [Float64Array, Int32Array] {
  const n = low.length;
  const points = new Float64Array(2 * n);
  points.set(low);
  points.set(high, n);
  points.sort();
  const byHigh = new Uint32Array(n);
  for (let i = 0; i < n; i++) byHigh[i] = i;
  byHigh.sort((a, b) => high[a] - high[b]);
  const open = new Int32Array(units);
  let distinct = 0;
  let sum = 0; // of the units open: the unit itself when only one is
  const segLow: number[] = [];
  const segUnit: number[] = [];
  let s = 0;
  let e = 0;
  for (let j = 0; j < points.length; j++) {
    const at = points[j];
    if (j > 0 && at === points[j - 1]) continue;
    for (; s < n && low[s] <= at; s++) {
      if (open[unit[s]]++ === 0) {
        distinct++;
        sum += unit[s];
      }
    }
    for (; e < n && high[byHigh[e]] <= at; e++) {
      const u = unit[byHigh[e]];
      if (--open[u] === 0) {
        distinct--;
        sum -= u;
      }
    }
    const here = distinct === 0 ? -1 : distinct === 1 ? sum : -2;
    if (segUnit.length > 0 && segUnit[segUnit.length - 1] === here) continue;
    segLow.push(at);
    segUnit.push(here);
  }
  return [Float64Array.from(segLow), Int32Array.from(segUnit)];
}

function errText(e: unknown): string {
  if (e instanceof DwarfError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
