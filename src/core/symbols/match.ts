// The matching policy: which dropped file serves which mapping. Nothing here reads an address;
// symbolize.ts looks addresses up through the files chosen here.
//
// For each mapped path, in order:
//   1. build-id: a file with the mapping's build-id (the profile's, or the one a bundle recorded for
//      the path: withRecordedBuildIds), the library before its separate debug file;
//   2. name: a file named like the mapping (`libc.so.6`, or a debug file `libc.so.6.debug`), the one
//      sharing the longest tail of directories with the mapping's path first (`by: 'path'` when it
//      shares a directory too); else one named by the library's soname, which the mapped file's
//      name extends with version numbers (`libstdc++.so.6` for `libstdc++.so.6.0.30`: the link
//      `ldd` lists, copied as a file of that name); a file whose build-id differs from the
//      mapping's is refused (a warning, and a `mismatched` entry when nothing else serves the
//      mapping);
//   3. nm listing: one named like the mapping, else (for the main executable) one named like no
//      mapping; `nmTarget` overrides both.
// The kernel's mappings (perf.data) take a /proc/kallsyms text before anything else: its addresses
// are the run-time ones (a vmlinux's are its link-time ones, moved by address randomization).
// Debug files are merged into their library beforehand (mergeDebugFiles: by build-id, else by
// `.gnu_debuglink` with its CRC), so a library and its debug file are one source here.

import { basename } from '../text/names.ts';
import type { Mapping } from '../types.ts';
import { type ElfFile, mergeDebugFile } from './elf.ts';
import { isKernelMapping, type KallsymsFile } from './kallsyms.ts';
import type { NmFile } from './nm.ts';

export type SymbolSource = ElfFile | NmFile | KallsymsFile;

export interface SymbolizeMatch {
  mappingPath: string;
  elfFile: string;
  /**
   * build-id; path: the file's path ends with the mapping's directory and name; name: its name
   * only; nm: an nm listing; kallsyms: a /proc/kallsyms text, for a kernel mapping.
   */
  by: 'build-id' | 'path' | 'name' | 'nm' | 'kallsyms';
  /**
   * The separate debug file that lent the file its symbols and DWARF (merged by build-id or
   * `.gnu_debuglink`); `elfFile` itself when a debug file serves the mapping alone.
   */
  debugFile?: string;
  /** The file has no symbol at all (a stripped binary without its debug file): it names nothing. */
  noSymbols?: true;
}

/** A mapping whose only candidate files had another build-id: none was used for it. */
export interface SymbolizeMismatch {
  mappingPath: string;
  /** The build-id the mapping names (the profile's, or the one a bundle recorded for the path). */
  mappingBuildId: string;
  elfFile: string;
  fileBuildId: string;
}

/** The file chosen for a mapped path, and why. */
export interface FileChoice {
  source: SymbolSource;
  by: SymbolizeMatch['by'];
}

export interface SymbolFileMatch {
  /** Per mapping, in the order given: the file serving it (one object per path), or null. */
  choices: (FileChoice | null)[];
  /** One entry per mapped path that got a file. */
  matched: SymbolizeMatch[];
  /** Given files that no mapping uses. */
  unmatchedFiles: string[];
  /** Mapped paths no file serves. */
  unsymbolizedMappings: string[];
  /** Mapped paths left without a file because the files named like them had another build-id. */
  mismatched: SymbolizeMismatch[];
  /** One per refused file: its build-id differs from the mapping's. */
  warnings: string[];
}

/** Chooses, for each mapping, the source that serves it (see the file comment for the order). */
export function matchSymbolFiles(
  mappings: readonly Mapping[],
  sources: readonly SymbolSource[],
  nmTarget?: string,
): SymbolFileMatch {
  const elfs = sources.filter((s): s is ElfFile => s.kind === 'elf');
  const kallsyms = sources.find((s): s is KallsymsFile => s.kind === 'kallsyms');
  const nmFor = nmListingChooser(
    mappings,
    sources.filter((s): s is NmFile => s.kind === 'nm'),
    nmTarget,
  );
  const out: SymbolFileMatch = {
    choices: [],
    matched: [],
    unmatchedFiles: [],
    unsymbolizedMappings: [],
    mismatched: [],
    warnings: [],
  };
  const byPath = new Map<string, FileChoice | null>();
  const used = new Set<SymbolSource>();
  for (const m of mappings) {
    let choice = byPath.get(m.path);
    if (choice === undefined) {
      const refused: SymbolizeMismatch[] = [];
      choice =
        kallsyms !== undefined && isKernelMapping(m)
          ? { source: kallsyms, by: 'kallsyms' }
          : (fileWithBuildId(elfs, m) ?? fileNamedLike(elfs, m, refused, out.warnings));
      if (choice === null) {
        const nm = nmFor(m);
        if (nm !== undefined) choice = { source: nm, by: 'nm' };
      }
      byPath.set(m.path, choice);
      if (choice === null) {
        out.mismatched.push(...refused);
        out.unsymbolizedMappings.push(m.path);
      } else {
        used.add(choice.source);
        const src = choice.source;
        const debugFile = src.kind !== 'elf' ? undefined : src.isDebugFile ? src.fileName : src.debugFile;
        out.matched.push({
          mappingPath: m.path,
          elfFile: src.fileName,
          by: choice.by,
          ...(debugFile !== undefined && { debugFile }),
          ...(src.symbols.count === 0 && { noSymbols: true as const }),
        });
      }
    }
    out.choices.push(choice);
  }
  for (const s of sources) if (!used.has(s)) out.unmatchedFiles.push(s.fileName);
  return out;
}

/** The ELF file with the mapping's build-id (a library before a debug file alone), if any. */
function fileWithBuildId(elfs: readonly ElfFile[], m: Mapping): FileChoice | null {
  if (!m.buildId) return null;
  const id = m.buildId.toLowerCase();
  const e = elfs.find((e) => e.buildId === id && !e.isDebugFile) ?? elfs.find((e) => e.buildId === id);
  return e === undefined ? null : { source: e, by: 'build-id' };
}

/**
 * The ELF file named like the mapping whose build-id does not contradict the mapping's. Of several
 * with the name (a sysroot's i386 and x86_64 libc.so.6), the one whose path shares the longest tail
 * of directories with the mapping's comes first. Refused files are added to `refused` and `warnings`.
 */
function fileNamedLike(
  elfs: readonly ElfFile[],
  m: Mapping,
  refused: SymbolizeMismatch[],
  warnings: string[],
): FileChoice | null {
  const base = basename(m.path);
  const exact = elfs
    .filter((e) => basename(e.fileName) === base || debugNameMatches(e, base))
    .map((e) => ({ e, tail: sharedTail(e.fileName, m.path) }))
    .sort((a, b) => b.tail - a.tail);
  const bySoname = elfs
    .filter((e) => !exact.some((x) => x.e === e) && sonameOf(basename(e.fileName), base))
    .map((e) => ({ e, tail: 1 }));
  const named = [...exact, ...bySoname];
  for (const { e, tail } of named) {
    if (m.buildId && e.buildId && e.buildId !== m.buildId.toLowerCase()) {
      warnings.push(
        `${e.fileName}: build-id ${e.buildId} differs from ${m.path}'s ${m.buildId}: not used for it`,
      );
      refused.push({
        mappingPath: m.path,
        mappingBuildId: m.buildId.toLowerCase(),
        elfFile: e.fileName,
        fileBuildId: e.buildId,
      });
      continue;
    }
    return { source: e, by: tail > 1 ? 'path' : 'name' };
  }
  return null;
}

/**
 * Which nm listing describes a mapping: with `nmTarget`, the first listing for the mapping it
 * names (path or basename); else the listing named like the mapping (`app.nm` for `app`), and for
 * the main executable (the first mapping that is no library) a listing named like no mapping.
 */
function nmListingChooser(
  mappings: readonly Mapping[],
  nms: readonly NmFile[],
  nmTarget: string | undefined,
): (m: Mapping) => NmFile | undefined {
  const mainPath = mappings.find((m) => !isLibraryPath(m.path))?.path;
  const mappedBases = new Set(mappings.map((m) => basename(m.path)));
  return (m) => {
    const base = basename(m.path);
    if (nmTarget !== undefined) return nmTarget === m.path || nmTarget === base ? nms[0] : undefined;
    const named = nms.find((n) => nmBaseName(n.fileName) === base);
    if (named !== undefined) return named;
    if (m.path !== mainPath) return undefined;
    return nms.find((n) => !mappedBases.has(nmBaseName(n.fileName)));
  };
}

/** Shared objects (`.so`, `.so.6`, `.so.0.5.5`) and pseudo mappings like `[vdso]`. */
function isLibraryPath(path: string): boolean {
  const b = basename(path);
  return /\.so(\.[0-9]+)*$/.test(b) || b.startsWith('[') || /\.(dylib|dll|bundle|node)$/.test(b);
}

function nmBaseName(fileName: string): string {
  return basename(fileName).replace(/\.(nm|txt|sym|syms|symbols)$/i, '');
}

/** `libc.so.6.debug` (Fedora-style names) describes `libc.so.6`. */
/**
 * Whether `name` is the soname of a library file named `real`: `real` is `name` and more version
 * numbers (`libstdc++.so.6` of `libstdc++.so.6.0.30`, `liblzma.so.5` of `liblzma.so.5.4.1`), as
 * the links `ldd` lists are named beside the files they point to. A debug file's `.debug` suffix
 * is looked through.
 */
export function sonameOf(name: string, real: string): boolean {
  const n = name.replace(/\.debug$/, '');
  return /\.so(\.\d+)*$/.test(n) && real.startsWith(n) && /^(\.\d+)+$/.test(real.slice(n.length));
}

function debugNameMatches(e: ElfFile, base: string): boolean {
  return e.isDebugFile && basename(e.fileName) === `${base}.debug`;
}

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

/**
 * The mappings, each without a build-id of its own taking the one a bundle recorded for its path
 * (gperftools' maps text names no build-ids; the bundle read them from the files it packed).
 */
export function withRecordedBuildIds(
  mappings: readonly Mapping[],
  files: readonly { name: string; recordedBuildId?: string }[],
): Mapping[] {
  const recorded = new Map<string, string>();
  for (const f of files) if (f.recordedBuildId) recorded.set(f.name, f.recordedBuildId);
  if (recorded.size === 0) return [...mappings];
  return mappings.map((m) => {
    const id = m.buildId ? undefined : recorded.get(m.path);
    return id === undefined ? m : { ...m, buildId: id };
  });
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
