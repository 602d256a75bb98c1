// Granularity, as pprof's -functions / -lines / -addresses: what a frame of code that symbols name
// is. At `functions` a function (the functions inlined into it frames of their own), at `lines` a
// function at a source line (`function file:line`), at `addresses` the innermost function at an
// address (`function+0xOFFSET`). SymbolNaming names an address's frames so, from the symbols that
// know it: those the profile carries (pprof --raw's symbol section; an HTML report's, written by
// model/resolve.ts), then a Symbolizer. Frames get their kind and fields where they are named
// (FrameNaming), so nothing has to take a name apart later.

import { hexOf } from '../address.ts';
import { FrameKind, type RawProfile, type SymbolFrame, type Symbolizer } from '../types.ts';
import type { FrameNaming } from './naming.ts';

/** The symbols a profile carries itself (RawProfile.embeddedSymbols, embeddedLines, embeddedOffsets). */
type Embedded = Pick<RawProfile, 'embeddedSymbols' | 'embeddedLines' | 'embeddedOffsets'>;

/** The kind of frame k of an inline chain (outermost first): the function, then those inlined into it. */
const chainKind = (k: number): FrameKind => (k === 0 ? FrameKind.Function : FrameKind.Inlined);

export class SymbolNaming {
  /** Per answer (a symbolizer shares one per symbol, inline chain or line row): its frames and their module. */
  private readonly chains = new Map<readonly unknown[], { mod: number; ids: number[] }>();
  /** Per module (+1), the Line frame of each DWARF frame (shared by the chains it is in). */
  private readonly lineIds: Map<SymbolFrame, number>[] = [];
  private readonly embedded: Embedded | null;

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
   * The frames of the address (as looked up: callers at PC − 1) in mapping `m`, outermost first;
   * null when no symbol names it. At functions and lines the array is shared by the addresses of
   * one symbol, inline chain or line row (the fold names each once): it must not be modified.
   */
  frames(hi: number, lo: number, m: number): readonly number[] | null {
    const key = this.embedded === null ? '' : hexOf(hi, lo);
    const mod = this.naming.moduleOf(m);
    const g = this.naming.granularity;
    if (g === 'lines') {
      const own = this.embedded?.embeddedLines?.get(key);
      const found =
        own ??
        (this.embedded?.embeddedSymbols?.has(key) ? undefined : this.symbolizer?.lookupFrames?.(hi, lo));
      if (found && found.length > 0) return this.chain(found, mod, (f, k) => this.lineFrame(f, k, mod));
    }
    let names = this.embedded?.embeddedSymbols?.get(key);
    let offset: number | null | undefined;
    if (names !== undefined && names.length > 0) offset = this.embedded?.embeddedOffsets?.get(key);
    else {
      names = this.symbolizer?.lookup(hi, lo) ?? undefined;
      if (names === undefined || names.length === 0) return null;
      if (g === 'addresses') offset = this.symbolizer?.offsetInSymbol?.(hi, lo);
    }
    if (g === 'addresses' && offset !== null && offset !== undefined) {
      // Each address a frame of its own: nothing to share.
      const last = names.length - 1;
      const ids = names.map((n, k) => (k < last ? this.naming.functionFrame(n, mod, chainKind(k)) : 0));
      ids[last] = this.naming.addressInFunction(names[last], offset, hi, lo, m);
      return ids;
    }
    return this.chain(names, mod, (n, k) => this.naming.functionFrame(n, mod, chainKind(k)));
  }

  /** The frames of a shared answer, named once per module. */
  private chain<T>(found: readonly T[], mod: number, frame: (x: T, k: number) => number): readonly number[] {
    const known = this.chains.get(found);
    if (known !== undefined && known.mod === mod) return known.ids;
    const ids = found.map(frame);
    this.chains.set(found, { mod, ids });
    return ids;
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
