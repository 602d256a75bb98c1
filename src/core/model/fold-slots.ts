// The fold's location slots: each location of a RawProfile named as the frames it stands for, once
// per use — slot 2·loc as a leaf, 2·loc + 1 as a caller (looked up at PC − 1 where the profile
// says so). A slot's frames come from the location's own lines (pprof Lines), its symbols
// (embedded, a Symbolizer: granularity.ts), its own name, or its address (unnamed code); they are
// kept as a range of frame ids in one buffer, and a slot of one frame also in a dense array the
// fold's inner loop reads first.

import { minusOne, U32Builder } from '../address.ts';
import { FrameKind, type RawProfile, type Symbolizer } from '../types.ts';
import { type SymbolAnswer, SymbolNaming } from './granularity.ts';
import type { FrameNaming } from './naming.ts';

/** A slot's frames not named yet (`one`). */
export const UNRESOLVED = -1;
/** A slot of several frames (an inline chain): no single-frame fast path (`one`). */
export const SEVERAL_FRAMES = -2;

export class FoldSlots {
  /** Every slot's frame ids, each slot's a range. */
  readonly seqs: U32Builder;
  /**
   * Per slot: its one frame, or UNRESOLVED, or SEVERAL_FRAMES (a dense array, 8 bytes per
   * location, that stays in cache for the common one-frame locations).
   */
  readonly one: Int32Array;
  /** Per slot k, the start of its frame ids in `seqs` (−1: not named yet) and their count: `range[2k]`, `range[2k + 1]`. */
  readonly range: Int32Array;
  /** Names slots in address order first (inAddressOrder) when symbols name frames. */
  readonly inAddressOrder: boolean;
  private readonly symbols: SymbolNaming;
  /** Per shared symbol answer: where its frames are in `seqs`, and their module. */
  private readonly chainRange = new Map<SymbolAnswer, { start: number; mod: number }>();
  private readonly flat: boolean;

  constructor(
    private readonly raw: RawProfile,
    private readonly naming: FrameNaming,
    symbolizer: Symbolizer | undefined,
  ) {
    const n = raw.locations.count;
    this.seqs = new U32Builder(Math.max(16, n * 2));
    this.one = new Int32Array(n * 2).fill(UNRESOLVED);
    this.range = new Int32Array(n * 4).fill(-1);
    this.symbols = new SymbolNaming(naming, raw, symbolizer);
    this.flat = raw.flat === true;
    // With names from symbols (a symbolizer, or those embedded in a report: frames then come in
    // the same order, so a report numbers them as the app did).
    this.inAddressOrder = this.symbols.any && !this.flat && raw.lines === undefined;
  }

  /** Frames named so far. */
  frameCount(): number {
    return this.naming.count;
  }

  /** Names a location slot (its range of frame ids in `seqs`) if it is not yet. */
  ensure(loc: number, slot: number, caller: boolean): void {
    const range = this.range;
    if (range[slot * 2] >= 0) return;
    const begin = this.seqs.length;
    if (this.flat) this.nameFlat(loc);
    if (this.flat || !this.name(loc, caller, slot)) {
      range[slot * 2] = begin;
      range[slot * 2 + 1] = this.seqs.length - begin;
    }
    this.one[slot] = range[slot * 2 + 1] === 1 ? this.seqs.data[range[slot * 2]] : SEVERAL_FRAMES;
  }

  /**
   * Names every location slot the kept samples use (`keep`: 0 for a sample filtered out), in
   * address order: a symbolizer's lookups then walk its tables (ELF symbols, DWARF functions and
   * line rows) in order, each near the one before, instead of one cache miss per step of every
   * binary search (~1 µs a DWARF lookup in sample order). Returns each slot's uses.
   */
  nameInAddressOrder(keep: Uint8Array | null): Uint32Array {
    const { locations: locs, samples } = this.raw;
    const { stackStart, stackLocs } = samples;
    const uses = new Uint32Array(locs.count * 2);
    for (let s = 0; s < samples.count; s++) {
      const a = stackStart[s];
      const b = stackStart[s + 1];
      if (b <= a || (keep !== null && keep[s] === 0)) continue;
      uses[stackLocs[a] * 2]++;
      for (let p = a + 1; p < b; p++) uses[stackLocs[p] * 2 + 1]++;
    }
    const order: number[] = [];
    for (let loc = 0; loc < locs.count; loc++)
      if ((uses[loc * 2] !== 0 || uses[loc * 2 + 1] !== 0) && locs.hasAddr[loc]) order.push(loc);
    order.sort((x, y) => locs.addrHi[x] - locs.addrHi[y] || locs.addrLo[x] - locs.addrLo[y]);
    for (const loc of order) {
      if (uses[loc * 2 + 1] !== 0) this.ensure(loc, loc * 2 + 1, true);
      if (uses[loc * 2] !== 0) this.ensure(loc, loc * 2, false);
    }
    return uses;
  }

  /**
   * Pushes a location's frames to `seqs`; or gives the slot the range of a symbol answer named
   * before and returns true (a symbolizer gives one answer per symbol or inline chain: its frames
   * are named once, and every location it names shares their range).
   */
  private name(loc: number, caller: boolean, slot: number): boolean {
    const { raw, naming, seqs } = this;
    const locs = raw.locations;
    const lines = raw.lines;
    if (lines && lines.start[loc + 1] > lines.start[loc]) {
      // Frames the location names itself (pprof Lines), outermost first: symbols are not consulted.
      const m = locs.hasAddr[loc] ? naming.index.find(locs.addrHi[loc], locs.addrLo[loc]) : -1;
      this.nameOwnLines(loc, naming.moduleOf(m));
    } else if (!locs.hasAddr[loc]) {
      const n = locs.locName[loc];
      seqs.push(n >= 0 ? naming.functionFrame(raw.strings[n], -1) : naming.intern('[unknown]', -1));
    } else {
      let hi = locs.addrHi[loc];
      let lo = locs.addrLo[loc];
      if (caller ? raw.adjustCallers : raw.adjustLeaves === true) [hi, lo] = minusOne(hi, lo);
      const m = naming.index.find(hi, lo);
      const mod = naming.moduleOf(m);
      const found = this.symbols.any ? this.symbols.answer(hi, lo) : null;
      if (found !== null) {
        const shared = this.symbols.shared;
        const known = shared ? this.chainRange.get(found) : undefined;
        if (known !== undefined && known.mod === mod) {
          this.range[slot * 2] = known.start;
          this.range[slot * 2 + 1] = found.length;
          return true;
        }
        if (shared) this.chainRange.set(found, { start: seqs.length, mod });
        this.symbols.push(found, hi, lo, m, seqs);
      } else if (locs.locName[loc] >= 0) {
        seqs.push(naming.functionFrame(raw.strings[locs.locName[loc]], mod));
      } else {
        seqs.push(naming.addressFrame(hi, lo, m));
      }
    }
    return false;
  }

  /** A location's own lines (pprof), outermost first: functions, or at line granularity `function file:line`. */
  private nameOwnLines(loc: number, mod: number): void {
    const { raw, naming, seqs } = this;
    const lines = raw.lines!;
    const atLines = naming.granularity === 'lines';
    for (let k = lines.start[loc]; k < lines.start[loc + 1]; k++) {
      const fn = raw.strings[lines.name[k]];
      const file = lines.file[k];
      const kind = k === lines.start[loc] ? FrameKind.Function : FrameKind.Inlined;
      seqs.push(
        atLines && file >= 0
          ? naming.lineFrame(fn, raw.strings[file], lines.line[k], mod)
          : naming.functionFrame(fn, mod, kind),
      );
    }
  }

  /** A flat (DCPI) location: [module, function (if symbolized), MODULE+0xOFFSET]. */
  private nameFlat(loc: number): void {
    pushFlatFrames(this.raw, this.naming, this.symbols, loc, this.seqs, false);
  }
}

/**
 * A flat (DCPI) location's frames pushed to `out`: [module, function (if symbolized),
 * MODULE+0xOFFSET]. `distinct`: no frame was made for its address yet (a flat profile's addresses
 * are distinct: fold-flat.ts), so its address frame is made without a lookup.
 */
export function pushFlatFrames(
  raw: RawProfile,
  naming: FrameNaming,
  symbols: SymbolNaming,
  loc: number,
  out: U32Builder,
  distinct: boolean,
): void {
  const locs = raw.locations;
  if (!locs.hasAddr[loc]) {
    const n = locs.locName[loc];
    out.push(n >= 0 ? naming.functionFrame(raw.strings[n], -1) : naming.intern('[unknown]', -1));
    return;
  }
  const hi = locs.addrHi[loc];
  const lo = locs.addrLo[loc];
  const m = naming.index.find(hi, lo);
  if (m >= 0) out.push(naming.moduleFrame(m));
  const found = symbols.any ? symbols.answer(hi, lo) : null;
  if (found !== null) symbols.push(found, hi, lo, m, out);
  else if (locs.locName[loc] >= 0)
    out.push(naming.functionFrame(raw.strings[locs.locName[loc]], naming.moduleOf(m)));
  // The address level stays per address whatever the granularity: DCPI's shape.
  out.push(distinct ? naming.newAddressFrame(hi, lo, m) : naming.exactAddressFrame(hi, lo, m));
}
