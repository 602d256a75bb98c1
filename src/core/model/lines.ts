// Where in its source a function spends its samples: per source line and per address, self and
// total, as `pprof -list` and `-addresses` show them. Computed from the parsed profile (samples of
// locations) and the symbolizer's inline chains (DWARF) or the file's own lines (pprof), so that
// inlined code is attributed to the function it was written in.
//
// For a function F and a sample: each location of the stack (callers looked up at PC − 1) has a
// chain of frames, outermost first, each with the file:line it is at. Where F is in a chain, the
// sample is at F's file:line there (for the innermost frame: the sampled line; for an outer one:
// the line of the call it made). A sample counts once per line for its total; it is self at the
// line where F is the innermost frame of the leaf location.

import { hexOf, minusOne } from '../address';
import { shortFunctionName } from '../text/names';
import type { RawProfile, SymbolFrame, Symbolizer } from '../types';

export interface LineCount {
  file: string;
  line: number;
  self: number;
  total: number;
}

export interface AddressCount {
  /** The address as looked up (callers at PC − 1), hex without 0x. */
  address: string;
  file: string;
  line: number;
  self: number;
  total: number;
}

export interface SourceListing {
  name: string;
  /** Sorted by file, then line. */
  lines: LineCount[];
  /** Sorted by address. */
  addresses: AddressCount[];
  self: number;
  total: number;
  /** True when any frame of the function had a file and line (DWARF or the profile's own lines). */
  hasLines: boolean;
}

/** The frames of a location, outermost first, with file:line where known. */
interface Chain {
  frames: SymbolFrame[];
  address: string | null;
}
/** A location's chain as a leaf or as a caller; one object per location and role. */
type ChainOf = (loc: number, caller: boolean) => Chain;

function chains(raw: RawProfile, symbolizer: Symbolizer | null | undefined): ChainOf {
  const { locations: locs, strings, lines } = raw;
  const cache: (Chain | undefined)[] = new Array(locs.count * 2);
  return (loc, caller) => {
    const key = loc * 2 + (caller ? 1 : 0);
    const hit = cache[key];
    if (hit) return hit;
    let frames: SymbolFrame[] = [];
    let address: string | null = null;
    if (lines && lines.start[loc + 1] > lines.start[loc]) {
      for (let i = lines.start[loc]; i < lines.start[loc + 1]; i++) {
        const f = lines.file[i];
        frames.push({
          name: strings[lines.name[i]],
          file: f >= 0 ? strings[f] : undefined,
          line: lines.line[i] || undefined,
        });
      }
    }
    if (locs.hasAddr[loc]) {
      let hi = locs.addrHi[loc];
      let lo = locs.addrLo[loc];
      if (caller ? raw.adjustCallers : raw.adjustLeaves === true) [hi, lo] = minusOne(hi, lo);
      address = hexOf(hi, lo);
      // The names a report carries (its lines, at line granularity), as the fold reads them first.
      const own =
        raw.embeddedLines?.get(address) ?? raw.embeddedSymbols?.get(address)?.map((name) => ({ name }));
      if (frames.length === 0 && own !== undefined) frames = own;
      else if (frames.length === 0 && symbolizer) {
        frames =
          symbolizer.lookupFrames?.(hi, lo) ?? (symbolizer.lookup(hi, lo) ?? []).map((name) => ({ name }));
      }
    }
    if (frames.length === 0 && locs.locName[loc] >= 0) frames = [{ name: strings[locs.locName[loc]] }];
    const out = { frames, address };
    cache[key] = out;
    return out;
  };
}

/**
 * Per line and per address counts of the function named `name` (as the fold names it: demangled
 * unless the symbolizer gives mangled names; short as pprof's with `names` short), weighed by
 * `raw.samples.weight`.
 */
export function sourceListing(
  raw: RawProfile,
  symbolizer: Symbolizer | null | undefined,
  name: string,
  names: 'short' | 'full' = 'full',
): SourceListing {
  const chainOf = chains(raw, symbolizer);
  // The frame's name as the fold shows it (short names: pprof's).
  const shown = names === 'short' ? shortFunctionName : (n: string) => n;
  const { stackStart, stackLocs, weight } = raw.samples;
  const lineCounts = new Map<string, LineCount>();
  const addrCounts = new Map<string, AddressCount>();
  let self = 0;
  let total = 0;
  let hasLines = false;
  const seenLines = new Set<string>();
  const seenAddrs = new Set<string>();
  // Per chain (chainOf caches one object per location and role), the indices of its frames that
  // are the function: names shortened once per chain, not once per sample (a 100 MB profile has
  // millions of stack entries; shortening each took seconds).
  const NONE: readonly number[] = [];
  const matchesOf = new Map<Chain, readonly number[]>();
  const isIt = new Map<string, boolean>();
  const named = (n: string): boolean => {
    let v = isIt.get(n);
    if (v === undefined) isIt.set(n, (v = n === name || shown(n) === name));
    return v;
  };
  const matching = (chain: Chain): readonly number[] => {
    let m = matchesOf.get(chain);
    if (m === undefined) {
      const ks: number[] = [];
      chain.frames.forEach((f, k) => {
        if (named(f.name)) ks.push(k);
      });
      m = ks.length === 0 ? NONE : ks;
      matchesOf.set(chain, m);
    }
    return m;
  };
  for (let s = 0; s < raw.samples.count; s++) {
    const a = stackStart[s];
    const b = stackStart[s + 1];
    const w = weight[s];
    if (w === 0) continue;
    seenLines.clear();
    seenAddrs.clear();
    let onStack = false;
    for (let p = a; p < b; p++) {
      const leaf = p === a && !raw.flat;
      const chain = chainOf(stackLocs[p], !leaf && !raw.flat);
      const ks = matching(chain);
      if (ks.length === 0) continue;
      const { frames, address } = chain;
      for (const k of ks) {
        const f = frames[k];
        onStack = true;
        const file = f.file ?? '';
        const line = f.line ?? 0;
        if (file) hasLines = true;
        const lineKey = `${file}\0${line}`;
        let lc = lineCounts.get(lineKey);
        if (!lc) lineCounts.set(lineKey, (lc = { file, line, self: 0, total: 0 }));
        if (!seenLines.has(lineKey)) {
          seenLines.add(lineKey);
          lc.total += w;
        }
        const isSelf = (leaf || raw.flat === true) && k === frames.length - 1;
        if (isSelf) lc.self += w;
        if (address !== null) {
          let ac = addrCounts.get(address);
          if (!ac) addrCounts.set(address, (ac = { address, file, line, self: 0, total: 0 }));
          if (!seenAddrs.has(address)) {
            seenAddrs.add(address);
            ac.total += w;
          }
          if (isSelf) ac.self += w;
        }
        if (isSelf) self += w;
      }
    }
    if (onStack) total += w;
  }
  const lines = [...lineCounts.values()].sort((x, y) =>
    x.file < y.file ? -1 : x.file > y.file ? 1 : x.line - y.line,
  );
  const addresses = [...addrCounts.values()].sort((x, y) =>
    x.address.length !== y.address.length
      ? x.address.length - y.address.length
      : x.address < y.address
        ? -1
        : 1,
  );
  return { name, lines, addresses, self, total, hasLines };
}

/**
 * The source files a listing's lines are in, matched with files the user gave (by path suffix:
 * DWARF names `/build/x/src/a.c`, the user drops `a.c` or `src/a.c`): DWARF path → given path.
 */
export function matchSources(files: readonly string[], given: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of files) {
    let best: string | undefined;
    for (const g of given) {
      const gg = g.replace(/^\.?\//, '');
      if (f === g || f.endsWith(`/${gg}`)) {
        if (!best || gg.length > best.length) best = g;
      }
    }
    if (best) out.set(f, best);
  }
  return out;
}
