// Symbolization: match dropped ELF files (and nm listings) to the profile's mappings, then
// resolve addresses to function names.
//
// runtime address − mapping start + mapping file offset = file offset;
// file offset → ELF virtual address through the PT_LOAD segment holding it;
// virtual address → the function symbol covering it.
// The Symbolizer gets addresses already adjusted (callers PC − 1) and does not adjust again.

import type { ParseInProgress } from '../formats/importer';
import { shortNameOfMangled } from '../text/mangled.ts';
import { basename } from '../text/names.ts';
import type { Mapping, ProfileWarning, SymbolFrame, Symbolizer } from '../types.ts';
import { type DwarfFrame, DwarfInfo } from './dwarf/index.ts';
import {
  ElfError,
  type ElfFile,
  ET_REL,
  looksLikeElf,
  mergeDebugFile,
  offsetToVaddr,
  readElf,
  type SymbolTable,
  stripVersion,
} from './elf.ts';
import { isKernelMapping, type KallsymsFile, looksLikeKallsyms, parseKallsyms } from './kallsyms.ts';
import { MappingIndex } from './modules.ts';
import { looksLikeNm, type NmFile, nmToElfLike } from './nm.ts';

const TWO32 = 4294967296;

export type SymbolSource = ElfFile | NmFile | KallsymsFile;

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
   * Use the DWARF of files that have it (default true): inline chains and file:line, as
   * `addr2line -f -i`. False names every address after its ELF symbol only, as before.
   */
  dwarf?: boolean;
  /**
   * `short`: C++ names as the fold shows them by default (shortFunctionName's), read from the
   * mangled name where text/mangled.ts can (no demangler call), else demangled; the full name of
   * such a name is `Symbolizer.fullName`'s, demangled on request. Default `full`: demangled whole.
   */
  names?: 'short' | 'full';
}

export interface SymbolizeMatch {
  mappingPath: string;
  elfFile: string;
  /**
   * build-id; path: the file's path ends with the mapping's directory and name; name: its name
   * only; nm: an nm listing; kallsyms: a /proc/kallsyms text, for a kernel mapping.
   */
  by: 'build-id' | 'path' | 'name' | 'nm' | 'kallsyms';
}

/** A mapping whose only candidate files had another build-id: none was used for it. */
export interface SymbolizeMismatch {
  mappingPath: string;
  /** The build-id the mapping names (the profile's, or the one a bundle recorded for the path). */
  mappingBuildId: string;
  elfFile: string;
  fileBuildId: string;
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

/** Shared objects (`.so`, `.so.6`, `.so.0.5.5`) and pseudo mappings like `[vdso]`. */
function isLibraryPath(path: string): boolean {
  const b = basename(path);
  return /\.so(\.[0-9]+)*$/.test(b) || b.startsWith('[') || /\.(dylib|dll|bundle|node)$/.test(b);
}

function nmBaseName(fileName: string): string {
  return basename(fileName).replace(/\.(nm|txt|sym|syms|symbols)$/i, '');
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
  /** Per-symbol name arrays, built on first use, and their frames for lookupFrames. */
  cache: (string[] | undefined)[];
  symbolFrames: (SymbolFrame[] | undefined)[];
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
 * A Symbolizer over the given ELF files / nm listings for these mappings. Debug files should
 * already be merged into their libraries (symbolizerFromFiles does that); a debug file given
 * alone is used with file offset = virtual address, which holds for the code of typical
 * GNU-linked libraries.
 */
export function createSymbolizer(
  mappings: readonly Mapping[],
  sources: readonly SymbolSource[],
  opts: SymbolizeOptions = {},
): SymbolizerResult {
  const index = new MappingIndex(mappings);
  const report: SymbolizeReport = {
    matched: [],
    unmatchedFiles: [],
    unsymbolizedMappings: [],
    mismatched: [],
    warnings: [],
  };
  const used = new Set<SymbolSource>();
  const elfs = sources.filter((s): s is ElfFile => s.kind === 'elf');
  const nms = sources.filter((s): s is NmFile => s.kind === 'nm');
  const kallsyms = sources.find((s): s is KallsymsFile => s.kind === 'kallsyms');
  const bindings: (Binding | null)[] = [];
  const byPath = new Map<string, Binding | null>();
  const dwarfOf = new Map<ElfFile, DwarfInfo | null>();

  // The main executable for nm listings without a matching name.
  const mainPath = index.mappings.find((m) => !isLibraryPath(m.path))?.path;
  const mappedBases = new Set(index.mappings.map((m) => basename(m.path)));
  const nmFor = (m: Mapping): NmFile | undefined => {
    const base = basename(m.path);
    if (opts.nmTarget !== undefined) {
      return opts.nmTarget === m.path || opts.nmTarget === base ? nms[0] : undefined;
    }
    const named = nms.find((n) => nmBaseName(n.fileName) === base);
    if (named !== undefined) return named;
    if (m.path !== mainPath) return undefined;
    return nms.find((n) => !mappedBases.has(nmBaseName(n.fileName)));
  };

  for (const m of index.mappings) {
    const known = byPath.get(m.path);
    if (known !== undefined) {
      bindings.push(known === null ? null : { ...known, addressing: addressingFor(known.source, m) });
      continue;
    }
    const base = basename(m.path);
    let source: SymbolSource | undefined;
    let by: SymbolizeMatch['by'] = 'name';
    const mismatched: SymbolizeMismatch[] = [];
    // The kernel's mappings: /proc/kallsyms first, whose addresses are the run-time ones (a
    // vmlinux's are its link-time ones, moved by the kernel's address randomization).
    if (kallsyms !== undefined && isKernelMapping(m)) {
      source = kallsyms;
      by = 'kallsyms';
    }
    if (source === undefined && m.buildId) {
      const id = m.buildId.toLowerCase();
      source = elfs.find((e) => e.buildId === id && !e.isDebugFile) ?? elfs.find((e) => e.buildId === id);
      by = 'build-id';
    }
    if (source === undefined) {
      // By name; of several files with the name (a sysroot's i386 and x86_64 libc.so.6), the one
      // whose path shares the longest tail of directories with the mapping's comes first.
      const named = elfs
        .filter((e) => basename(e.fileName) === base || debugNameMatches(e, base))
        .map((e) => ({ e, tail: sharedTail(e.fileName, m.path) }))
        .sort((a, b) => b.tail - a.tail);
      for (const { e, tail } of named) {
        if (m.buildId && e.buildId && e.buildId !== m.buildId.toLowerCase()) {
          report.warnings.push(
            `${e.fileName}: build-id ${e.buildId} differs from ${m.path}'s ${m.buildId}: not used for it`,
          );
          mismatched.push({
            mappingPath: m.path,
            mappingBuildId: m.buildId.toLowerCase(),
            elfFile: e.fileName,
            fileBuildId: e.buildId,
          });
          continue;
        }
        source = e;
        by = tail > 1 ? 'path' : 'name';
        break;
      }
    }
    if (source === undefined) {
      const nm = nmFor(m);
      if (nm !== undefined) {
        source = nm;
        by = 'nm';
      }
    }
    if (source === undefined) {
      report.mismatched.push(...mismatched);
      byPath.set(m.path, null);
      bindings.push(null);
      report.unsymbolizedMappings.push(m.path);
      continue;
    }
    used.add(source);
    const b: Binding = {
      source,
      addressing: addressingFor(source, m),
      cache: new Array(source.symbols.count),
      symbolFrames: new Array(source.symbols.count),
      dwarf: null,
      frames: new Map(),
      dwarfFrames: new Map(),
      chains: new Map(),
      chainNames: new Map(),
    };
    if (
      source.kind === 'elf' &&
      source.dwarf !== undefined &&
      opts.dwarf !== false &&
      source.type === ET_REL
    ) {
      report.warnings.push(
        `${source.fileName}: relocatable object: its DWARF is not used (relocations are not applied)`,
      );
    } else if (source.kind === 'elf' && source.dwarf !== undefined && opts.dwarf !== false) {
      // One DwarfInfo per file, even when several mapping paths name it.
      let d = dwarfOf.get(source);
      if (d === undefined) {
        const dw: string[] = [];
        d = DwarfInfo.create(source.dwarf, dw);
        const name = source.fileName;
        for (const w of dw) report.warnings.push(`${name}: ${w}`);
        // Units are parsed on demand: what a lookup finds damaged is reported when found.
        if (d !== null) d.onWarning = (w) => report.warnings.push(`${name}: ${w}`);
        dwarfOf.set(source, d);
      }
      b.dwarf = d;
    }
    byPath.set(m.path, b);
    bindings.push(b);
    report.matched.push({ mappingPath: m.path, elfFile: source.fileName, by });
    for (const w of source.warnings) report.warnings.push(`${source.fileName}: ${w}`);
    if (source.kind === 'elf' && source.symbolSource === 'none') {
      report.warnings.push(`${source.fileName}: no function symbols (stripped?): frames stay module+offset`);
    }
  }
  for (const s of sources) if (!used.has(s)) report.unmatchedFiles.push(s.fileName);

  const demangle = opts.mangled ? undefined : opts.demangle;
  // Short names read from mangled ones, and the mangled name each came from first (fullName).
  const shortNames = demangle !== undefined && opts.names === 'short';
  const shown = new Map<string, string>();
  const mangledOf = new Map<string, string>();
  /** A stored name as shown: shortened without the demangler where it can be, else demangled. */
  const display = (n: string): string => {
    if (!demangle) return n;
    if (!shortNames) return demangle(n);
    let out = shown.get(n);
    if (out === undefined) {
      const short = shortNameOfMangled(n);
      if (short === null) out = demangle(n);
      else {
        out = short;
        if (!mangledOf.has(short)) mangledOf.set(short, n);
      }
      shown.set(n, out);
    }
    return out;
  };
  const nameOf = (b: Binding, sym: number): string[] => {
    let names = b.cache[sym];
    if (names === undefined) {
      names = [display(stripVersion(b.source.symbols.names[sym]))];
      b.cache[sym] = names;
    }
    return names;
  };

  /**
   * addr2line -f -i at a virtual address: the DWARF inline chain; the innermost frame is named
   * after the ELF symbol covering the address when DWARF has no function there or names it
   * without a linkage name (bfd does so). Null when DWARF knows nothing of the address.
   */
  const dwarfFrames = (b: Binding, vh: number, vl: number): SymbolFrame[] | null => {
    const d = b.dwarf;
    if (d === null || vh >= TWO53_HI) return null;
    const addr = vh * TWO32 + vl;
    const hit = b.frames.get(addr);
    if (hit !== undefined) return hit;
    let out: SymbolFrame[] | null = null;
    try {
      const ans = d.lookup(addr);
      if (ans !== null) {
        const sym = b.source.symbols.lookup(vh, vl);
        const n = ans.frames.length;
        let inner: string | null = null;
        if ((!ans.found || !ans.linkage) && sym >= 0) inner = nameOf(b, sym)[0];
        else if (ans.found) inner = dwarfName(ans.frames[n - 1].name, display);
        const shared = inner === null ? undefined : b.chains.get(ans.frames);
        if (shared !== undefined && shared[n - 1].name === inner) out = shared;
        else if (inner !== null) {
          out = [];
          for (let k = 0; k < n; k++) {
            const f = ans.frames[k];
            // DWARF's frames are shared between the addresses they cover (DwarfInfo): so are
            // ours, named once (later stages cache by them too).
            let fr = b.dwarfFrames.get(f);
            // Callers keep their DWARF names: bfd renames a function after its ELF symbol only
            // once it was the innermost one of an earlier lookup in the same process, so a
            // one-process addr2line over many addresses depends on their order (docs/dwarf.md).
            if (k === n - 1) {
              if (fr !== undefined && fr.name !== inner) fr = undefined;
            }
            if (fr === undefined) {
              fr = { name: k === n - 1 ? inner : dwarfName(f.name, display) };
              if (f.file !== null && f.line > 0) {
                fr.file = f.file;
                fr.line = f.line;
              }
              b.dwarfFrames.set(f, fr);
            }
            out.push(fr);
          }
          b.chains.set(ans.frames, out);
        }
      }
    } catch {
      out = null; // never reached: DwarfInfo.lookup reports and skips what it cannot read
    }
    if (b.frames.size >= FRAME_CACHE) b.frames.clear();
    b.frames.set(addr, out);
    return out;
  };

  /** The binding and virtual address of a runtime address, or null. */
  const resolve = (hi: number, lo: number): [Binding, number, number] | null => {
    const i = index.find(hi, lo);
    if (i < 0) return null;
    const b = bindings[i];
    if (b === null) return null;
    let vh: number;
    let vl: number;
    if (b.addressing === Addressing.Absolute) {
      vh = hi;
      vl = lo;
    } else {
      const fo = fileOffset(index.mappings[i], hi, lo);
      if (fo < 0) return null;
      if (b.addressing === Addressing.Offset) {
        vh = Math.floor(fo / TWO32);
        vl = fo % TWO32;
      } else {
        const v = offsetToVaddr((b.source as ElfFile).loadSegments, fo);
        if (v === null) return null;
        [vh, vl] = v;
      }
    }
    return [b, vh, vl];
  };

  const hasDwarf = bindings.some((b) => b !== null && b.dwarf !== null);
  const symbolizer: Symbolizer = {
    fullName(name: string): string | undefined {
      const m = mangledOf.get(name);
      return m === undefined || !demangle ? undefined : demangle(m);
    },
    hasSymbolFile(hi: number, lo: number): boolean {
      const i = index.find(hi, lo);
      const b = i < 0 ? null : bindings[i];
      return b !== null && b.source.symbols.count > 0;
    },
    lookup(hi: number, lo: number): string[] | null {
      const r = resolve(hi, lo);
      if (r === null) return null;
      const [b, vh, vl] = r;
      if (b.dwarf !== null) {
        const frames = dwarfFrames(b, vh, vl);
        if (frames !== null) {
          let names = b.chainNames.get(frames);
          if (names === undefined) {
            names = frames.map((f) => f.name);
            b.chainNames.set(frames, names);
          }
          return names;
        }
      }
      const sym = b.source.symbols.lookup(vh, vl);
      return sym < 0 ? null : nameOf(b, sym);
    },
  };
  symbolizer.offsetInSymbol = (hi: number, lo: number): number | null => {
    const r = resolve(hi, lo);
    if (r === null) return null;
    const [b, vh, vl] = r;
    const t = b.source.symbols;
    const sym = t.lookup(vh, vl);
    if (sym < 0) return null;
    return (vh - t.startHi[sym]) * TWO32 + (vl - t.startLo[sym]);
  };
  if (hasDwarf) {
    symbolizer.lookupFrames = (hi: number, lo: number): SymbolFrame[] | null => {
      const r = resolve(hi, lo);
      if (r === null) return null;
      const [b, vh, vl] = r;
      if (b.dwarf !== null) {
        const frames = dwarfFrames(b, vh, vl);
        if (frames !== null) return frames;
      }
      const sym = b.source.symbols.lookup(vh, vl);
      if (sym < 0) return null;
      let frames = b.symbolFrames[sym];
      if (frames === undefined) {
        frames = nameOf(b, sym).map((name) => ({ name }));
        b.symbolFrames[sym] = frames;
      }
      return frames;
    };
  }
  return { symbolizer, report };
}

/** A DWARF function name for display: `??` when DWARF has none, else as `display` shows it. */
function dwarfName(name: string | null, display: (n: string) => string): string {
  return name === null ? '??' : display(name);
}

/** `libc.so.6.debug` (Fedora-style names) describes `libc.so.6`. */
/**
 * How many trailing path components two paths share (`a/usr/lib/libc.so.6` and
 * `/usr/lib/libc.so.6`: 3); a separate debug file's `.debug` suffix is ignored.
 */
export function sharedTail(filePath: string, mappingPath: string): number {
  const a = filePath.replace(/\.debug$/, '').split(/[\\/]/);
  const b = mappingPath.split('/');
  let n = 0;
  while (
    n < a.length &&
    n < b.length &&
    a[a.length - 1 - n] === b[b.length - 1 - n] &&
    a[a.length - 1 - n] !== ''
  )
    n++;
  return n;
}

function debugNameMatches(e: ElfFile, base: string): boolean {
  return e.isDebugFile && basename(e.fileName) === `${base}.debug`;
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

export interface DroppedFile {
  /** The file's name, or its path: in a dropped folder, or where a bundle found it. */
  name: string;
  bytes: Uint8Array;
  /**
   * From a bundle: the build-id of the file at `name` (an absolute path) on the machine that made
   * it. A mapping of that path takes it as its own (withRecordedBuildIds), so that only a file with
   * this build-id symbolizes it.
   */
  recordedBuildId?: string;
  /** Said of the file while reading it (a sampled large profile), shown with its parser's. */
  warnings?: ProfileWarning[];
  /** The whole file's size, where `bytes` hold less of it (a sampled large profile). */
  size?: number;
  /**
   * A parse begun while the file was read (a large profile: detect.ts's streamingParse, fed with
   * all of `bytes`, or chunkedParse, fed with its chunks: `bytes` is then only the file's head):
   * the profile's parse finishes it.
   */
  stream?: ParseInProgress;
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
  files: readonly DroppedFile[],
  opts: SymbolizeOptions = {},
): SymbolizerFromFilesResult {
  const { sources, errors } = readSymbolFiles(files);
  return { ...createSymbolizer(withRecordedBuildIds(mappings, files), sources, opts), errors };
}

/**
 * The mappings, each without a build-id of its own taking the one a bundle recorded for its path
 * (gperftools' maps text names no build-ids; the bundle read them from the files it packed).
 */
export function withRecordedBuildIds(mappings: readonly Mapping[], files: readonly DroppedFile[]): Mapping[] {
  const recorded = new Map<string, string>();
  for (const f of files) if (f.recordedBuildId) recorded.set(f.name, f.recordedBuildId);
  if (recorded.size === 0) return [...mappings];
  return mappings.map((m) => {
    const id = m.buildId ? undefined : recorded.get(m.path);
    return id === undefined ? m : { ...m, buildId: id };
  });
}

/**
 * Reads dropped files as symbol sources (ELF binaries and libraries with their debug files merged
 * in, nm listings); files that are neither, or malformed, are `errors`.
 */
export function readSymbolFiles(files: readonly DroppedFile[]): {
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

/**
 * Each debug file whose build-id matches a non-debug ELF is folded into it; a library without a
 * build-id match takes the debug file its `.gnu_debuglink` names, when no build-id contradicts
 * it and (given `crcOf`, the CRC-32 of a file's bytes) its CRC matches. Debug files without their
 * library are kept as they are (used alone when their name matches a mapping).
 */
export function mergeDebugFiles(elfs: readonly ElfFile[], crcOf?: (e: ElfFile) => number): ElfFile[] {
  const out: ElfFile[] = [];
  const debug = elfs.filter((e) => e.isDebugFile);
  const usedDebug = new Set<ElfFile>();
  for (const e of elfs) {
    if (e.isDebugFile) continue;
    let merged = e;
    if (e.buildId !== undefined) {
      for (const d of debug) {
        if (d.buildId === e.buildId) {
          merged = mergeDebugFile(merged, d);
          usedDebug.add(d);
        }
      }
    }
    const link = e.debugLink;
    if (merged === e && link !== undefined) {
      const d = debug.find(
        (d) =>
          !usedDebug.has(d) &&
          basename(d.fileName) === link.file &&
          (d.buildId === undefined || e.buildId === undefined || d.buildId === e.buildId) &&
          (crcOf === undefined || crcOf(d) === link.crc),
      );
      if (d !== undefined) {
        merged = mergeDebugFile(merged, d);
        usedDebug.add(d);
      }
    }
    out.push(merged);
  }
  for (const d of debug) if (!usedDebug.has(d)) out.push(d);
  return out;
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
