// What each file given to an analysis is: the one place that sorts a drop (or a command line) into
// its roles. Bundles are opened into their profile and objects; ELF files and nm listings are
// symbol files; of the other files, the one that parses is the profile; text that is no profile is
// a source file (the source panel's); anything else goes to the symbolizer, which names it in its
// report. The app (through the worker) and the CLI both sort their files here.

import { expandBundles, looksLikeBundle } from '../bundle/bundle';
import type { DroppedFile } from '../formats/importer';
import { type Loaded, type ParseOptions, parse } from '../pipeline';
import { isSeparateDebugFile, looksLikeElf } from '../symbols/elf';
import { looksLikeKallsyms } from '../symbols/kallsyms';
import { looksLikeNm } from '../symbols/nm';
import { type InputNote, ProfileError } from '../types';

const isSymbolFile = (b: Uint8Array) => looksLikeElf(b) || looksLikeNm(b) || looksLikeKallsyms(b);

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
    parse?: (file: DroppedFile, candidates: number, symbols: number) => ParseOptions;
    profile?: string;
    release?: (file: DroppedFile) => void;
  } = {},
): SortedInputs {
  const roles: InputNote[] = [];
  const bundles = new Set(given.filter((f) => looksLikeBundle(f.bytes)).map((f) => f.name));
  for (const name of bundles) roles.push({ name, role: 'bundle' });
  const files = expandBundles(given, opts.profile === undefined ? {} : { profile: opts.profile });
  const symbols = files.filter((f) => isSymbolFile(f.bytes));
  const others = files.filter((f) => !isSymbolFile(f.bytes));
  const givenSet = new Set(given);
  const fromBundle = (f: DroppedFile) => !givenSet.has(f);
  for (const f of symbols) if (!fromBundle(f)) roles.push({ name: f.name, role: symbolRole(f.bytes) });
  let profile: SortedInputs['profile'] = null;
  let firstError: unknown = null;
  const unusable: DroppedFile[] = [];
  for (const f of others) {
    try {
      const loaded = parse(f.bytes, f.name, opts.parse?.(f, others.length, symbols.length));
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
      firstError ??= e;
      unusable.push(f);
    }
  }
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
