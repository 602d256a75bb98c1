// pprof's -noinlines: a symbolizer whose answers keep only the outermost function of each inline
// chain, so the samples of code inlined into a function stay with that function. At source lines
// the outermost frame's line is the call site of the first inlined function (SymbolFrame's rule:
// frame k's line is the call, inside it, of frame k + 1), as pprof shows it.

import type { RawProfile, SymbolFrame, Symbolizer } from '../types';

export function withoutInlines(s: Symbolizer): Symbolizer {
  // Answers are shared arrays (one per symbol or inline chain): their outermost parts are too.
  const names = new Map<readonly string[], string[]>();
  const frames = new Map<readonly SymbolFrame[], SymbolFrame[]>();
  const outermost = <T>(cache: Map<readonly T[], T[]>, found: readonly T[] | null): T[] | null => {
    if (found === null || found.length <= 1) return found as T[] | null;
    let out = cache.get(found);
    if (out === undefined) {
      out = [found[0]];
      cache.set(found, out);
    }
    return out;
  };
  const out: Symbolizer = { lookup: (hi, lo) => outermost(names, s.lookup(hi, lo)) };
  if (s.lookupFrames) {
    const lookupFrames = s.lookupFrames.bind(s);
    out.lookupFrames = (hi, lo) => outermost(frames, lookupFrames(hi, lo));
  }
  if (s.offsetInSymbol) out.offsetInSymbol = s.offsetInSymbol.bind(s);
  if (s.hasSymbolFile) out.hasSymbolFile = s.hasSymbolFile.bind(s);
  if (s.fullName) out.fullName = s.fullName.bind(s);
  return out;
}

/**
 * A profile's own frames (pprof Lines, `pprof --raw` inline chains) with only each location's
 * outermost function kept, for -noinlines on profiles that name themselves.
 */
export function withoutInlineLines(raw: RawProfile): RawProfile {
  const l = raw.lines;
  if (!l) return raw;
  const n = l.start.length - 1;
  const start = new Uint32Array(n + 1);
  let count = 0;
  for (let i = 0; i < n; i++) {
    start[i] = count;
    if (l.start[i + 1] > l.start[i]) count++;
  }
  start[n] = count;
  const name = new Int32Array(count);
  const file = new Int32Array(count);
  const line = new Uint32Array(count);
  for (let i = 0; i < n; i++) {
    if (start[i + 1] === start[i]) continue;
    const k = l.start[i];
    name[start[i]] = l.name[k];
    file[start[i]] = l.file[k];
    line[start[i]] = l.line[k];
  }
  return { ...raw, lines: { start, name, file, line } };
}
