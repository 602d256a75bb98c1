// Patterns that come from a file, a link or a person (pprof's drop_frames/keep_frames, the search
// box and `q=`, the CLI's `list`/`disasm` REGEX) are RE2 patterns, matched in time linear in the
// text whatever the pattern: RE2JS, a port of RE2 (Go's regexp, which pprof uses), so pprof's
// syntax is the syntax. A JavaScript RegExp backtracks: `(a+)+$` on a line of a's never returns.

import { RE2JS } from 're2js';

/** A compiled pattern: `test` says whether it matches (a part of, or all of) a name. */
export interface Pattern {
  readonly source: string;
  test(text: string): boolean;
}

export type CompiledPattern = { ok: true; pattern: Pattern } | { ok: false; error: string };

export interface PatternOptions {
  /** Case-insensitive, as the search box is. */
  ignoreCase?: boolean;
  /** The whole text must match (pprof wraps drop_frames as `^(…)$`); default: any part of it. */
  whole?: boolean;
}

/** The longest pattern taken: RE2 compiles in time and memory linear in it, and a link is short. */
export const MAX_PATTERN_LENGTH = 64 * 1024;

/**
 * An RE2 pattern, or why it is not one (RE2's own message, e.g. `invalid nested repetition
 * operator: **`, or a construct RE2 has not: backreferences, lookarounds).
 */
export function compilePattern(source: string, options: PatternOptions = {}): CompiledPattern {
  if (source.length > MAX_PATTERN_LENGTH) {
    return {
      ok: false,
      error: `pattern of ${source.length} characters: over the limit of ${MAX_PATTERN_LENGTH}`,
    };
  }
  const literal = literalTest(source, options);
  if (literal) return { ok: true, pattern: { source, test: literal } };
  let re: RE2JS;
  try {
    re = compiled(source, options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (e) {
    return { ok: false, error: `not an RE2 pattern: ${e instanceof Error ? e.message : String(e)}` };
  }
  const test = options.whole ? (t: string) => re.testExact(t) : (t: string) => re.test(t);
  return { ok: true, pattern: { source, test } };
}

/**
 * The last patterns compiled, by flags and source: compiling is the costly part (a heap profile's
 * drop_frames, a few hundred characters of alternatives, took milliseconds at every fold, more than
 * matching its names), and a compiled RE2JS is immutable, so a fold, a search again and the next
 * profile with the same drop_frames share it.
 */
const COMPILED = new Map<string, RE2JS>();
const COMPILED_KEPT = 32;

function compiled(source: string, flags: number): RE2JS {
  const key = `${flags}:${source}`;
  const had = COMPILED.get(key);
  if (had !== undefined) return had;
  const re = RE2JS.compile(source, flags);
  if (COMPILED.size >= COMPILED_KEPT) COMPILED.delete(COMPILED.keys().next().value as string);
  COMPILED.set(key, re);
  return re;
}

/** RE2's metacharacters; a pattern of printable ASCII without them matches itself. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;
const META = /[\\^$.|?*+()[\]{}]/;
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A pattern that is a plain ASCII literal (most searches: a function's name), tested as a substring
 * (V8's string search, several times faster than the RE2 port's). Case-insensitive, a name with a
 * non-ASCII character goes to RE2, whose folding pairs ASCII letters with some others (K with the
 * Kelvin sign, s with ſ): the answers are RE2's in every case.
 */
function literalTest(source: string, options: PatternOptions): ((text: string) => boolean) | null {
  if (source === '' || !PLAIN_ASCII.test(source) || META.test(source)) return null;
  if (!options.ignoreCase) return options.whole ? (t) => t === source : (t) => t.includes(source);
  const needle = source.toLowerCase();
  let re: RE2JS | undefined;
  const slow = (t: string) => {
    re ??= compiled(source, RE2JS.CASE_INSENSITIVE);
    return options.whole ? re.testExact(t) : re.test(t);
  };
  if (options.whole)
    return (t) => (NON_ASCII.test(t) ? slow(t) : t.length === needle.length && t.toLowerCase() === needle);
  return (t) => (NON_ASCII.test(t) ? slow(t) : t.toLowerCase().includes(needle));
}
