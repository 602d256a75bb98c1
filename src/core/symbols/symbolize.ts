// Symbolization: match dropped ELF files (and nm listings) to the profile's mappings (the policy,
// match.ts), then resolve addresses to function names through the chosen files (the lookup, here).
//
// runtime address − mapping start + mapping file offset = file offset;
// file offset → ELF virtual address through the PT_LOAD segment holding it;
// virtual address → the function symbol covering it.
// The Symbolizer gets addresses already adjusted (callers PC − 1) and does not adjust again.

import { shortNameOfMangled } from '../text/mangled.ts';
import type { Mapping, SymbolFrame, Symbolizer } from '../types.ts';
import { type DwarfFrame, DwarfInfo } from './dwarf/index.ts';
import type { DwarfSections } from './dwarf/sections.ts';
import {
  ElfError,
  type ElfFile,
  ET_REL,
  looksLikeElf,
  offsetToVaddr,
  readElf,
  type SymbolTable,
  stripVersion,
} from './elf.ts';
import { type KallsymsFile, looksLikeKallsyms, parseKallsyms } from './kallsyms.ts';
import {
  type FileChoice,
  matchSymbolFiles,
  mergeDebugFiles,
  type SymbolizeMatch,
  type SymbolizeMismatch,
  type SymbolSource,
  withRecordedBuildIds,
} from './match.ts';
import { MappingIndex } from './modules.ts';
import { looksLikeNm, type NmFile, nmToElfLike } from './nm.ts';

const TWO32 = 4294967296;

export type {
  FileChoice,
  SymbolFileMatch,
  SymbolizeMatch,
  SymbolizeMismatch,
  SymbolSource,
} from './match.ts';
// The policy's helpers keep being reachable here, where the callers found them.
export { matchSymbolFiles, mergeDebugFiles, sharedTail, withRecordedBuildIds } from './match.ts';

export interface SymbolizeOptions {
  /** Demangles a name (from loadDemangler()). Without it names stay as stored. */
  demangle?: (name: string) => string;
  /** Return names as stored in the binary (mangled), even when a demangler is given. */
  mangled?: boolean;
  /**
   * The mapping path an nm listing describes. Default: a mapping whose basename equals the
   * listing's name without an `.nm`/`.txt`/`.sym`/`.syms` extension, else the main executable
   * (the first mapping that is not a shared library or a `[pseudo]` mapping).
   */
  nmTarget?: string;
  /**
   * Use the DWARF of files that have it (default true): inline chains and file:line, frames as
   * `addr2line -f -i` finds them, named as `llvm-symbolizer --inlining --functions=linkage`. False
   * names every address after its ELF symbol only: the outermost names of the DWARF answers.
   */
  dwarf?: boolean;
  /**
   * `short`: C++ names as the fold shows them by default (shortFunctionName's), read from the
   * mangled name where text/mangled.ts can (no demangler call), else demangled; the full name of
   * such a name is `Symbolizer.fullName`'s, demangled on request. Default `full`: demangled whole.
   */
  names?: 'short' | 'full';
}

export interface SymbolizeReport {
  /** One entry per mapped file (path) that got symbols. */
  matched: SymbolizeMatch[];
  /** Dropped files that no mapping uses (including debug files without their library). */
  unmatchedFiles: string[];
  /** Paths of mappings no dropped file describes (their frames stay `module+0xoff`). */
  unsymbolizedMappings: string[];
  /** Mappings left unsymbolized because the files named like them had another build-id. */
  mismatched: SymbolizeMismatch[];
  /** Things worth telling the user (build-id mismatch, skipped sections, …). */
  warnings: string[];
}

export interface SymbolizerResult {
  symbolizer: Symbolizer;
  report: SymbolizeReport;
}

/** How addresses in one mapping become addresses in its symbol table. */
const Addressing = {
  /** Through the ELF's PT_LOAD segments. */
  Segments: 0,
  /** The file offset is the address (debug file alone; nm listing of a PIE or library). */
  Offset: 1,
  /** The runtime address is the address (nm listing of a non-PIE executable). */
  Absolute: 2,
} as const;
type Addressing = (typeof Addressing)[keyof typeof Addressing];

interface Binding {
  source: SymbolSource;
  addressing: Addressing;
  /**
   * The file's own symbols (a library's, without its debug file's: ElfFile.ownSymbols), which name
   * an address first; `source.symbols` (with the debug file's) names what they do not cover.
   */
  own: SymbolTable;
  /** Per-symbol name arrays of `own` and of `source.symbols`, built on first use. */
  ownCache: (string[] | undefined)[];
  cache: (string[] | undefined)[];
  /** The frames of each symbol's names array, for lookupFrames. */
  symbolFrames: Map<string[], SymbolFrame[]>;
  /** The file's DWARF (null: none usable). Shared by the mappings of one file. */
  dwarf: DwarfInfo | null;
  /** Inline chains by virtual address (null: DWARF knows nothing there), bounded. */
  frames: Map<number, SymbolFrame[] | null>;
  /** Our frame for each DWARF frame met (DwarfInfo shares them between addresses). */
  dwarfFrames: Map<DwarfFrame, SymbolFrame>;
  /**
   * Our chain for each DWARF chain met (DwarfInfo shares them between the addresses of a line-table
   * row), and the names of each of ours: so `lookup` and `lookupFrames` give one array per chain,
   * which the fold caches by.
   */
  chains: Map<DwarfFrame[], SymbolFrame[]>;
  chainNames: Map<SymbolFrame[], string[]>;
}

const FRAME_CACHE = 1 << 16;
const TWO53_HI = 0x200000;

/** True when some symbol of the table lies inside [start, end) (as absolute addresses). */
function tableHitsRange(t: SymbolTable, m: Mapping): boolean {
  for (let i = 0; i < t.count; i++) {
    const a = (BigInt(t.startHi[i]) << 32n) | BigInt(t.startLo[i]);
    if (a >= m.start && a < m.end) return true;
  }
  return false;
}

/**
 * A Symbolizer over the given ELF files / nm listings for these mappings, in two parts: the
 * matching policy (match.ts: which file serves which mapping) and the lookup (SymbolLookup:
 * address → names and inline frames through the chosen files). Debug files should already be
 * merged into their libraries (symbolizerFromFiles does that); a debug file given alone is used
 * with file offset = virtual address, which holds for the code of typical GNU-linked libraries.
 */
export function createSymbolizer(
  mappings: readonly Mapping[],
  sources: readonly SymbolSource[],
  opts: SymbolizeOptions = {},
): SymbolizerResult {
  const index = new MappingIndex(mappings);
  const match = matchSymbolFiles(index.mappings, sources, opts.nmTarget);
  const report: SymbolizeReport = {
    matched: match.matched,
    unmatchedFiles: match.unmatchedFiles,
    unsymbolizedMappings: match.unsymbolizedMappings,
    mismatched: match.mismatched,
    warnings: match.warnings,
  };
  const bindings = bindChosenFiles(index.mappings, match.choices, opts.dwarf !== false, report.warnings);
  return { symbolizer: new SymbolLookup(index, bindings, opts).symbolizer(), report };
}

/**
 * A Binding per mapping from the policy's choices: how its addresses reach the file's symbol
 * table, and the file's DWARF (one DwarfInfo per file, even when several paths name it). Said of
 * the files on the way (their reader's warnings, no symbols, unusable DWARF) goes to `warnings`.
 */
function bindChosenFiles(
  mappings: readonly Mapping[],
  choices: readonly (FileChoice | null)[],
  useDwarf: boolean,
  warnings: string[],
): (Binding | null)[] {
  const byChoice = new Map<FileChoice, Binding>();
  const dwarfOf = new Map<ElfFile, DwarfInfo | null>();
  return mappings.map((m, i) => {
    const choice = choices[i];
    if (choice === null) return null;
    const known = byChoice.get(choice);
    if (known !== undefined) return { ...known, addressing: addressingFor(known.source, m) };
    const { source } = choice;
    const own = (source.kind === 'elf' && source.ownSymbols) || source.symbols;
    const b: Binding = {
      source,
      addressing: addressingFor(source, m),
      own,
      ownCache: own === source.symbols ? [] : new Array(own.count),
      cache: new Array(source.symbols.count),
      symbolFrames: new Map(),
      dwarf: null,
      frames: new Map(),
      dwarfFrames: new Map(),
      chains: new Map(),
      chainNames: new Map(),
    };
    if (source.kind === 'elf' && source.dwarf !== undefined && useDwarf) {
      if (source.type === ET_REL) {
        warnings.push(
          `${source.fileName}: relocatable object: its DWARF is not used (relocations are not applied)`,
        );
      } else {
        let d = dwarfOf.get(source);
        if (d === undefined) {
          d = openDwarf(source, source.dwarf, warnings);
          dwarfOf.set(source, d);
        }
        b.dwarf = d;
      }
    }
    byChoice.set(choice, b);
    for (const w of source.warnings) warnings.push(`${source.fileName}: ${w}`);
    if (source.kind === 'elf' && source.symbolSource === 'none') {
      // said as the frames are named: one per module at function and line granularity
      const module = m.path.slice(m.path.lastIndexOf('/') + 1);
      warnings.push(
        `${source.fileName}: no function symbols (stripped?): its frames stay [${module}] (${module}+0xOFFSET at address granularity)`,
      );
    }
    return b;
  });
}

/** The file's DWARF, or null when unusable; what is damaged is reported to `warnings`, now or when a lookup finds it. */
function openDwarf(source: ElfFile, sections: DwarfSections, warnings: string[]): DwarfInfo | null {
  const dw: string[] = [];
  const d = DwarfInfo.create(sections, dw);
  const name = source.fileName;
  for (const w of dw) warnings.push(`${name}: ${w}`);
  // Units are parsed on demand: what a lookup finds damaged is reported when found.
  if (d !== null) d.onWarning = (w) => warnings.push(`${name}: ${w}`);
  return d;
}

/**
 * The lookup: a runtime address → its mapping's Binding → the virtual address in the chosen file
 * → the ELF symbol's name, or DWARF's inline chain where the file has DWARF. Names are demangled
 * (or shortened from the mangled name) once per stored name; frames and chains are shared between
 * the addresses they cover, because later stages cache by them.
 */
class SymbolLookup {
  private readonly demangle: ((name: string) => string) | undefined;
  /** Short names read from mangled ones, and the mangled name each came from first (fullName). */
  private readonly shortNames: boolean;
  private readonly shown = new Map<string, string>();
  private readonly mangledOf = new Map<string, string>();

  constructor(
    private readonly index: MappingIndex,
    private readonly bindings: readonly (Binding | null)[],
    opts: SymbolizeOptions,
  ) {
    this.demangle = opts.mangled ? undefined : opts.demangle;
    this.shortNames = this.demangle !== undefined && opts.names === 'short';
  }

  /** The Symbolizer interface over this lookup (lookupFrames only where some file has DWARF). */
  symbolizer(): Symbolizer {
    const s: Symbolizer = {
      fullName: (name) => {
        const m = this.mangledOf.get(name);
        return m === undefined || !this.demangle ? undefined : this.demangle(m);
      },
      // A file was given for the address's mapping, whether or not a symbol covers it (a
      // stripped binary names nothing: its code is outside the symbols, not without a file).
      hasSymbolFile: (hi, lo) => {
        const i = this.index.find(hi, lo);
        return i >= 0 && this.bindings[i] !== null;
      },
      lookup: (hi, lo) => this.lookup(hi, lo),
      offsetInSymbol: (hi, lo) => this.offsetInSymbol(hi, lo),
    };
    if (this.bindings.some((b) => b !== null && b.dwarf !== null)) {
      s.lookupFrames = (hi, lo) => this.lookupFrames(hi, lo);
    }
    return s;
  }

  /** The names at a runtime address, outermost first, or null. */
  lookup(hi: number, lo: number): string[] | null {
    const r = this.resolve(hi, lo);
    if (r === null) return null;
    const [b, vh, vl] = r;
    if (b.dwarf !== null) {
      const frames = this.dwarfFrames(b, vh, vl);
      if (frames !== null) {
        let names = b.chainNames.get(frames);
        if (names === undefined) {
          names = frames.map((f) => f.name);
          b.chainNames.set(frames, names);
        }
        return names;
      }
    }
    return this.symbolName(b, vh, vl);
  }

  /** The frames at a runtime address (DWARF's inline chain, else the symbol's name), or null. */
  lookupFrames(hi: number, lo: number): SymbolFrame[] | null {
    const r = this.resolve(hi, lo);
    if (r === null) return null;
    const [b, vh, vl] = r;
    if (b.dwarf !== null) {
      const frames = this.dwarfFrames(b, vh, vl);
      if (frames !== null) return frames;
    }
    const names = this.symbolName(b, vh, vl);
    if (names === null) return null;
    let frames = b.symbolFrames.get(names);
    if (frames === undefined) {
      frames = names.map((name) => ({ name }));
      b.symbolFrames.set(names, frames);
    }
    return frames;
  }

  /** The address's offset into the symbol covering it, or null. */
  offsetInSymbol(hi: number, lo: number): number | null {
    const r = this.resolve(hi, lo);
    if (r === null) return null;
    const [b, vh, vl] = r;
    let t = b.own;
    let sym = t.lookup(vh, vl);
    if (sym < 0 && t !== b.source.symbols) {
      t = b.source.symbols;
      sym = t.lookup(vh, vl);
    }
    if (sym < 0) return null;
    return (vh - t.startHi[sym]) * TWO32 + (vl - t.startLo[sym]);
  }

  /** The binding and virtual address of a runtime address, or null. */
  private resolve(hi: number, lo: number): [Binding, number, number] | null {
    const i = this.index.find(hi, lo);
    if (i < 0) return null;
    const b = this.bindings[i];
    if (b === null) return null;
    if (b.addressing === Addressing.Absolute) return [b, hi, lo];
    const fo = fileOffset(this.index.mappings[i], hi, lo);
    if (fo < 0) return null;
    if (b.addressing === Addressing.Offset) return [b, Math.floor(fo / TWO32), fo % TWO32];
    const v = offsetToVaddr((b.source as ElfFile).loadSegments, fo);
    return v === null ? null : [b, v[0], v[1]];
  }

  /** A stored name as shown: shortened without the demangler where it can be, else demangled. */
  private display(n: string): string {
    const demangle = this.demangle;
    if (!demangle) return n;
    if (!this.shortNames) return demangle(n);
    let out = this.shown.get(n);
    if (out === undefined) {
      const short = shortNameOfMangled(n);
      if (short === null) out = demangle(n);
      else {
        out = short;
        if (!this.mangledOf.has(short)) this.mangledOf.set(short, n);
      }
      this.shown.set(n, out);
    }
    return out;
  }

  /**
   * The name of the symbol covering a virtual address (one array per symbol), or null: the file's
   * own symbol, else its debug file's (Binding.own).
   */
  private symbolName(b: Binding, vh: number, vl: number): string[] | null {
    const own = b.own.lookup(vh, vl);
    if (own >= 0) return this.nameOf(b.own, b.own === b.source.symbols ? b.cache : b.ownCache, own);
    if (b.own === b.source.symbols) return null;
    const sym = b.source.symbols.lookup(vh, vl);
    return sym < 0 ? null : this.nameOf(b.source.symbols, b.cache, sym);
  }

  /** The names of symbol `sym` of a table (one array per symbol, kept in `cache`). */
  private nameOf(t: SymbolTable, cache: (string[] | undefined)[], sym: number): string[] {
    let names = cache[sym];
    if (names === undefined) {
      names = [this.display(stripVersion(t.names[sym]))];
      cache[sym] = names;
    }
    return names;
  }

  /** A DWARF function name for display: `??` when DWARF has none. */
  private dwarfName(name: string | null): string {
    return name === null ? '??' : this.display(name);
  }

  /**
   * `llvm-symbolizer --inlining --functions=linkage` at a virtual address (Go pprof's symbolizer):
   * the DWARF inline chain, each inlined function named by DWARF (its linkage name, else its name,
   * through abstract origins and specifications), and the outermost frame named after the symbol
   * covering the address (LLVM's SymbolizableObjectFile::symbolizeInlinedCode: the file's own
   * symbol table overrides DWARF's name there), after DWARF where no symbol covers it. Null when
   * DWARF knows nothing of the address.
   */
  private dwarfFrames(b: Binding, vh: number, vl: number): SymbolFrame[] | null {
    const d = b.dwarf;
    if (d === null || vh >= TWO53_HI) return null;
    const addr = vh * TWO32 + vl;
    const hit = b.frames.get(addr);
    if (hit !== undefined) return hit;
    let out: SymbolFrame[] | null = null;
    try {
      const ans = d.lookup(addr);
      if (ans !== null) {
        let outer: string | null = null;
        const own = b.own.lookup(vh, vl);
        if (own >= 0) outer = this.nameOf(b.own, b.own === b.source.symbols ? b.cache : b.ownCache, own)[0];
        else if (ans.found && ans.frames[0].name !== null) outer = this.display(ans.frames[0].name);
        else outer = this.symbolName(b, vh, vl)?.[0] ?? (ans.found ? '??' : null);
        const shared = outer === null ? undefined : b.chains.get(ans.frames);
        if (shared !== undefined && shared[0].name === outer) out = shared;
        else if (outer !== null) out = this.chainOf(b, ans.frames, outer);
      }
    } catch {
      out = null; // never reached: DwarfInfo.lookup reports and skips what it cannot read
    }
    if (b.frames.size >= FRAME_CACHE) b.frames.clear();
    b.frames.set(addr, out);
    return out;
  }

  /** Our frames for a DWARF chain (outermost first) whose outermost frame is named `outer`. */
  private chainOf(b: Binding, chain: DwarfFrame[], outer: string): SymbolFrame[] {
    const out: SymbolFrame[] = [];
    const n = chain.length;
    for (let k = 0; k < n; k++) {
      const f = chain[k];
      // DWARF's frames are shared between the addresses they cover (DwarfInfo): so are
      // ours, named once (later stages cache by them too). The outermost one's name is the
      // symbol's at the address, which may differ within one DWARF function (a `.cold` part).
      let fr = b.dwarfFrames.get(f);
      if (k === 0 && fr !== undefined && fr.name !== outer) fr = undefined;
      if (fr === undefined) {
        fr = { name: k === 0 ? outer : this.dwarfName(f.name) };
        if (f.file !== null && f.line > 0) {
          fr.file = f.file;
          fr.line = f.line;
        }
        b.dwarfFrames.set(f, fr);
      }
      out.push(fr);
    }
    b.chains.set(chain, out);
    return out;
  }
}

function addressingFor(source: SymbolSource, m: Mapping): Addressing {
  if (m.linkTimeAddresses || source.kind === 'kallsyms') return Addressing.Absolute;
  if (source.kind === 'nm')
    return tableHitsRange(source.symbols, m) ? Addressing.Absolute : Addressing.Offset;
  if (source.isDebugFile) return Addressing.Offset;
  return source.loadSegments.length > 0 ? Addressing.Segments : Addressing.Offset;
}

/** address − mapping start + mapping offset, as a number (file offsets are far below 2^53); -1 if not. */
function fileOffset(m: Mapping, hi: number, lo: number): number {
  // Numbers when every term is exact (all user-space addresses on today's machines): this runs
  // once per unique address, tens of thousands of times; BigInt only for the rest.
  if (hi < 0x200000 && m.end < SAFE && m.offset < SAFE) {
    const rel = hi * TWO32 + lo - Number(m.start) + Number(m.offset);
    return rel < 0 || rel >= Number.MAX_SAFE_INTEGER ? -1 : rel;
  }
  const rel = ((BigInt(hi) << 32n) | BigInt(lo)) - m.start + m.offset;
  if (rel < 0n || rel >= 0x20000000000000n) return -1;
  return Number(rel);
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * A file as the symbolizer reads it (an ELF file, a separate debug file, an nm listing): a drop's
 * file (formats/importer.ts DroppedFile) is one.
 */
export interface InputFile {
  /** The file's name, or its path: in a dropped folder, or where a bundle found it. */
  name: string;
  bytes: Uint8Array;
  /**
   * From a bundle: the build-id of the file at `name` (an absolute path) on the machine that made
   * it. A mapping of that path takes it as its own (withRecordedBuildIds), so that only a file with
   * this build-id symbolizes it.
   */
  recordedBuildId?: string;
}

export interface FileError {
  fileName: string;
  message: string;
}

export interface SymbolizerFromFilesResult extends SymbolizerResult {
  /** Files that could not be used at all (not ELF / nm, malformed ELF). */
  errors: FileError[];
}

/**
 * Classifies dropped files (ELF binaries and libraries, separate debug files, nm listings),
 * merges each debug file into the library with its build-id, and builds the Symbolizer.
 * Never throws for a bad file: it is reported in `errors` and the others still work.
 */
export function symbolizerFromFiles(
  mappings: readonly Mapping[],
  files: readonly InputFile[],
  opts: SymbolizeOptions = {},
): SymbolizerFromFilesResult {
  const { sources, errors } = readSymbolFiles(files);
  return { ...createSymbolizer(withRecordedBuildIds(mappings, files), sources, opts), errors };
}

/**
 * Reads dropped files as symbol sources (ELF binaries and libraries with their debug files merged
 * in, nm listings); files that are neither, or malformed, are `errors`.
 */
export function readSymbolFiles(files: readonly InputFile[]): {
  sources: SymbolSource[];
  errors: FileError[];
} {
  const errors: FileError[] = [];
  const elfs: ElfFile[] = [];
  const bytesOf = new Map<ElfFile, Uint8Array>();
  const nms: NmFile[] = [];
  const kallsyms: KallsymsFile[] = [];
  for (const f of files) {
    try {
      if (looksLikeElf(f.bytes)) {
        const e = readElf(f.bytes, f.name);
        elfs.push(e);
        bytesOf.set(e, f.bytes);
      } else if (looksLikeKallsyms(f.bytes)) kallsyms.push(parseKallsyms(f.bytes, f.name));
      else if (looksLikeNm(f.bytes)) nms.push(nmToElfLike(f.bytes, f.name));
      else
        errors.push({
          fileName: f.name,
          message: `${f.name}: not an ELF file, an nm listing or /proc/kallsyms`,
        });
    } catch (e) {
      const message =
        e instanceof ElfError ? e.describe() : `${f.name}: ${e instanceof Error ? e.message : e}`;
      errors.push({ fileName: f.name, message });
    }
  }
  const crcOf = (e: ElfFile): number => {
    const b = bytesOf.get(e);
    return b === undefined ? -1 : crc32(b);
  };
  return { sources: [...mergeDebugFiles(elfs, crcOf), ...nms, ...kallsyms], errors };
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (ISO-HDLC, as zlib and `.gnu_debuglink`). */
export function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
