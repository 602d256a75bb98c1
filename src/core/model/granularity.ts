// Granularity, as pprof's -functions / -lines / -addresses: what a frame of code that symbols name
// is. At `functions` a function (the functions inlined into it frames of their own), at `lines` a
// function at a source line (`function file:line`), at `addresses` the innermost function at an
// address (`function+0xOFFSET`). SymbolNaming names an address's frames so, from the symbols that
// know it: those the profile carries (pprof --raw's symbol section; an HTML report's, written by
// model/resolve.ts), then a Symbolizer. Frames get their kind and fields where they are named
// (FrameNaming), so nothing has to take a name apart later.

import type { U32Builder } from '../address.ts';
import { hexOf } from '../address.ts';
import { FrameKind, type RawProfile, type SymbolFrame, type Symbolizer } from '../types.ts';
import type { FrameNaming } from './naming.ts';

/** The symbols a profile carries itself (RawProfile.embeddedSymbols, embeddedLines, embeddedOffsets). */
type Embedded = Pick<RawProfile, 'embeddedSymbols' | 'embeddedLines' | 'embeddedOffsets'>;

/**
 * What the symbols say of an address: its inline chain's names (outermost first), or at line
 * granularity its frames with files and lines. A symbolizer shares one answer between the
 * addresses of a symbol, an inline chain or a line-table row: the fold names each answer once.
 */
export type SymbolAnswer = readonly string[] | readonly SymbolFrame[];

/** The kind of frame k of an inline chain (outermost first): the function, then those inlined into it. */
const chainKind = (k: number): FrameKind => (k === 0 ? FrameKind.Function : FrameKind.Inlined);

export class SymbolNaming {
  /** Per module (+1), the Line frame of each DWARF frame (shared by the chains it is in). */
  private readonly lineIds: Map<SymbolFrame, number>[] = [];
  private readonly embedded: Embedded | null;
  /** The last answer's: frames with lines (line granularity), and its offset into the symbol (address granularity). */
  private lines = false;
  private offset: number | null = null;

  constructor(
    private readonly naming: FrameNaming,
    raw: Embedded,
    private readonly symbolizer: Symbolizer | undefined,
  ) {
    const some = raw.embeddedSymbols ?? raw.embeddedLines ?? raw.embeddedOffsets;
    this.embedded = some !== undefined && some.size > 0 ? raw : null;
  }

  /** Whether any symbol can name an address (else every address is unnamed code). */
  get any(): boolean {
    return this.embedded !== null || this.symbolizer !== undefined;
  }

  /**
   * The symbols' answer for the address (as looked up: callers at PC − 1), or null when none names
   * it. Its frames are `push`'s; while `shared`, they are the same for every address the answer
   * is given for (at address granularity each address is a frame of its own: not shared).
   */
  answer(hi: number, lo: number): SymbolAnswer | null {
    const key = this.embedded === null ? '' : hexOf(hi, lo);
    const g = this.naming.granularity;
    this.lines = false;
    this.offset = null;
    if (g === 'lines') {
      const own = this.embedded?.embeddedLines?.get(key);
      const found =
        own ??
        (this.embedded?.embeddedSymbols?.has(key) ? undefined : this.symbolizer?.lookupFrames?.(hi, lo));
      if (found && found.length > 0) {
        this.lines = true;
        return found;
      }
    }
    const own = this.embedded?.embeddedSymbols?.get(key);
    if (own !== undefined && own.length > 0) {
      if (g === 'addresses') this.offset = this.embedded?.embeddedOffsets?.get(key) ?? null;
      return own;
    }
    const names = this.symbolizer?.lookup(hi, lo);
    if (!names || names.length === 0) return null;
    if (g === 'addresses') this.offset = this.symbolizer?.offsetInSymbol?.(hi, lo) ?? null;
    return names;
  }

  /** Whether the last answer's frames are the same at every address it is given for. */
  get shared(): boolean {
    return this.offset === null;
  }

  /** Pushes the frames of the last answer, `found`, for the address (hi, lo) in mapping `m`. */
  push(found: SymbolAnswer, hi: number, lo: number, m: number, out: U32Builder): void {
    const naming = this.naming;
    const mod = naming.moduleOf(m);
    if (this.lines) {
      const frames = found as readonly SymbolFrame[];
      for (let k = 0; k < frames.length; k++) out.push(this.lineFrame(frames[k], k, mod));
      return;
    }
    const names = found as readonly string[];
    const last = this.offset === null ? names.length : names.length - 1;
    for (let k = 0; k < last; k++) out.push(naming.functionFrame(names[k], mod, chainKind(k)));
    if (this.offset !== null) out.push(naming.addressInFunction(names[last], this.offset, hi, lo, m));
  }

  /** A DWARF frame at line granularity: `function file:line`, or the function where the line is unknown. */
  private lineFrame(f: SymbolFrame, k: number, mod: number): number {
    if (!f.file) return this.naming.functionFrame(f.name, mod, chainKind(k));
    const byFrame = (this.lineIds[mod + 1] ??= new Map());
    let id = byFrame.get(f);
    if (id === undefined) {
      id = this.naming.lineFrame(f.name, f.file, f.line ?? 0, mod);
      byFrame.set(f, id);
    }
    return id;
  }
}
