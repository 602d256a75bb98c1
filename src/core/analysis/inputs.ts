// What each file given to an analysis is: the one place that sorts a drop (or a command line) into
// its roles. Bundles are opened into their profile and objects; ELF files and nm listings are
// symbol files; of the other files, the one that parses is the profile; text that is no profile is
// a source file (the source panel's); anything else goes to the symbolizer, which names it in its
// report. The app (through the worker) and the CLI both sort their files here.

import { expandBundles, looksLikeBundle } from '../bundle/bundle';
import type { DroppedFile } from '../formats/importer';
import { type Loaded, type ParseOptions, parse } from '../pipeline';
import { buildIdFromHead, isSeparateDebugFile, looksLikeElf } from '../symbols/elf';
import { looksLikeKallsyms } from '../symbols/kallsyms';
import { looksLikeNm } from '../symbols/nm';
import { basename } from '../text/names';
import { type InputNote, ProfileError, type RawProfile } from '../types';

/** An ELF file, an nm listing or a /proc/kallsyms text. */
export const isSymbolFile = (b: Uint8Array) => looksLikeElf(b) || looksLikeNm(b) || looksLikeKallsyms(b);

/** The role of a symbol file: an object, a separate debug file, or a listing (nm, /proc/kallsyms). */
export function symbolRole(bytes: Uint8Array): 'binary' | 'debug' | 'symbols' {
  if (!looksLikeElf(bytes)) return 'symbols';
  return isSeparateDebugFile(bytes) ? 'debug' : 'binary';
}

/** The text of a file that could be source code (UTF-8, no NUL, under 4 MB), else null. */
export function sourceText(bytes: Uint8Array): string | null {
  if (bytes.length === 0 || bytes.length > 4 << 20 || bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

export interface SortedInputs {
  /**
   * The file that parsed as a profile, parsed, and its size (as given, or as unpacked from a
   * bundle; a sampled file's whole size); null when none did.
   */
  profile: { file: DroppedFile; loaded: Loaded; bytes: number } | null;
  /** ELF files and nm listings (a bundle's objects among them). */
  symbols: DroppedFile[];
  /** Files nothing took (no profile, symbol file or text): the symbolizer names each in its report. */
  junk: DroppedFile[];
  /** Source files by name. */
  sources: Map<string, string>;
  /** The first error of a file that did not parse (said when it was the only candidate). */
  firstError: unknown;
  /** How many files could have been the profile. */
  candidates: number;
  /** The role each given file took, by the name it was given under. */
  roles: InputNote[];
}

/**
 * Sorts `files` into their roles and parses the profile among them (`parseOpts` for it; `profile`
 * names the one to take from a bundle holding several). `release` frees a profile's bytes once
 * parsed (the parsed columns are the only copy). Throws when two files are profiles.
 */
export function sortInputs(
  given: readonly DroppedFile[],
  opts: {
    /**
     * The parse's options for a file: `symbols` are the symbol files given loose (readable now),
     * `packed` how many objects a bundle holds (unpacked after the parse, for its mappings).
     */
    parse?: (
      file: DroppedFile,
      candidates: number,
      symbols: readonly DroppedFile[],
      packed: number,
    ) => ParseOptions;
    profile?: string;
    release?: (file: DroppedFile) => void;
  } = {},
): SortedInputs {
  const roles: InputNote[] = [];
  const bundles = new Set(given.filter((f) => looksLikeBundle(f.bytes)));
  for (const { name } of bundles) roles.push({ name, role: 'bundle' });
  const pick = opts.profile === undefined ? {} : { profile: opts.profile };
  // A profile taken out of a bundle: its errors name it (their offsets are in it, not in the bundle).
  const member = new Set<DroppedFile>();
  const files = given.flatMap((g) => {
    if (!bundles.has(g)) return [g];
    const out = expandBundles([g], pick);
    for (const f of out) if (f.fromBundle === undefined) member.add(f);
    return out;
  });
  // A bundle's objects are not unpacked yet: they are symbol files by where the bundle has them.
  const packed = files.filter((f) => f.fromBundle !== undefined);
  const loose = files.filter((f) => f.fromBundle === undefined);
  const isSymbols = loose.map((f) => isSymbolFile(f.bytes));
  const symbols = loose.filter((_, i) => isSymbols[i]);
  const others = loose.filter((_, i) => !isSymbols[i]);
  const givenSet = new Set(given);
  const fromBundle = (f: DroppedFile) => !givenSet.has(f);
  for (const f of symbols) if (!fromBundle(f)) roles.push({ name: f.name, role: symbolRole(f.bytes) });
  let profile: SortedInputs['profile'] = null;
  let firstError: unknown = null;
  const unusable: DroppedFile[] = [];
  for (const f of others) {
    try {
      const loaded = parse(f.bytes, f.name, opts.parse?.(f, others.length, symbols, packed.length));
      if (profile)
        throw new ProfileError(
          `drop one profile at a time (got ${profile.file.name} and ${f.name}); binaries and libraries may ` +
            'come with it. To compare two profiles, open one, then drop the other on "Compare with…"',
          'unknown',
        );
      if (f.warnings) loaded.raw.warnings.unshift(...f.warnings);
      profile = { file: f, loaded, bytes: f.size ?? f.bytes.length };
      if (!fromBundle(f)) roles.push({ name: f.name, role: 'profile' });
      opts.release?.(f);
    } catch (e) {
      if (e instanceof ProfileError && e.message.startsWith('drop one profile')) throw e;
      firstError ??=
        e instanceof ProfileError && member.has(f)
          ? new ProfileError(`${f.name}: ${e.message}`, e.format, { offset: e.offset, line: e.line })
          : e;
      unusable.push(f);
    }
  }
  if (packed.length > 0) symbols.push(...unpackWanted(packed, profile?.loaded.raw ?? null));
  // Text that is no profile is a source file; other unusable files go to the symbolizer, which
  // reports each by name.
  const sources = new Map<string, string>();
  const junk: DroppedFile[] = [];
  for (const f of unusable) {
    const text = sourceText(f.bytes);
    if (text === null) {
      junk.push(f);
    } else {
      sources.set(f.name, text);
      if (!fromBundle(f)) roles.push({ name: f.name, role: 'source' });
    }
  }
  return { profile, symbols, junk, sources, firstError, candidates: others.length, roles };
}

/**
 * The objects of a bundle that the profile's mappings want (by path, else by file name), and the
 * debug files of those (the manifest's `debugFor`, else a `.build-id` path of a mapping's or a
 * wanted object's build-id), unpacked: the others are never inflated. A member that does not
 * unpack is a warning of the profile's.
 */
function unpackWanted(packed: readonly DroppedFile[], raw: RawProfile | null): DroppedFile[] {
  if (raw === null) return [];
  const paths = new Set<string>();
  const names = new Set<string>();
  const ids = new Set<string>();
  for (const m of raw.meta.mappings) {
    paths.add(m.path);
    names.add(basename(m.path));
    if (m.buildId) ids.add(m.buildId.toLowerCase());
  }
  const wants = (path: string) => paths.has(path) || names.has(basename(path));
  const out: DroppedFile[] = [];
  const unpack = (f: DroppedFile): Uint8Array | null => {
    try {
      return f.bytes;
    } catch (e) {
      if (!(e instanceof ProfileError)) throw e;
      raw.warnings.push({ message: `${f.fromBundle?.bundle}: ${e.message}`, offset: e.offset });
      return null;
    }
  };
  const debug: DroppedFile[] = [];
  for (const f of packed) {
    const debugFor = f.fromBundle?.debugFor;
    if (debugFor !== undefined || BUILD_ID_PATH.test(f.name)) {
      if (debugFor === undefined || wants(debugFor)) debug.push(f);
      continue;
    }
    if (!wants(f.name)) continue;
    const bytes = unpack(f);
    if (bytes === null) continue;
    out.push({ ...f, bytes });
    const id = buildIdFromHead(bytes.subarray(0, 1 << 16));
    if (id !== undefined) ids.add(id.toLowerCase());
  }
  for (const f of debug) {
    const byId = BUILD_ID_PATH.exec(f.name);
    if (f.fromBundle?.debugFor === undefined && !(byId && ids.has(`${byId[1]}${byId[2]}`.toLowerCase())))
      continue;
    const bytes = unpack(f);
    if (bytes !== null) out.push({ ...f, bytes });
  }
  return out;
}

/** A separate debug file's path by build-id: `…/.build-id/ab/cdef….debug`. */
const BUILD_ID_PATH = /\/\.build-id\/([0-9a-f]{2})\/([0-9a-f]+)\.debug$/i;
