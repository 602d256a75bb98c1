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
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (e) {
    return { ok: false, error: `not an RE2 pattern: ${e instanceof Error ? e.message : String(e)}` };
  }
  const test = options.whole ? (t: string) => re.testExact(t) : (t: string) => re.test(t);
  return { ok: true, pattern: { source, test } };
}
