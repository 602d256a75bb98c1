// A parsed profile with the names its symbols give written into it (an HTML report's profile): the
// names the fold would look up are put in `embeddedSymbols`, keyed by the address the fold looks up
// (a caller's return address minus one where the profile says so), so that the profile folds to the
// same frames with no symbol file. Samples, every value column, labels, mappings and metadata stay
// as they are; addresses no symbol names stay addresses. What the granularity's frames need is
// embedded with the names: files and lines at `lines` (embeddedLines), offsets into the symbols at
// `addresses` (embeddedOffsets). Pure: no DOM.

import { hexOf, minusOne, splitBig } from '../address.ts';
import type { Granularity, Mapping, RawProfile, SymbolFrame, Symbolizer } from '../types.ts';

/**
 * `raw` with the names `symbolizer` gives to the addresses its samples use, as the fold looks them
 * up, in `embeddedSymbols` (names the profile already embeds win, as in the fold), and what the
 * fold at `granularity` names frames by (granularity.ts); without a symbolizer, `raw` as it is.
 * `mappings`: the profile's mappings to keep (with those placed files add).
 */
export function withResolvedNames(
  raw: RawProfile,
  symbolizer: Symbolizer | undefined,
  granularity: Granularity = 'functions',
  mappings = raw.meta.mappings,
): RawProfile {
  if (!symbolizer)
    return mappings === raw.meta.mappings
      ? { ...raw }
      : { ...raw, meta: { ...raw.meta, mappings: mappings.slice() } };
  // Which mappings a symbol file describes: the fold tells their unnamed code by it.
  const described = (m: Mapping) => symbolizer.hasSymbolFile?.(...splitBig(m.start)) === true;
  const out: RawProfile = {
    ...raw,
    meta: { ...raw.meta, mappings: mappings.map((m) => (described(m) ? { ...m, symbolFile: true } : m)) },
  };
  const { locations: locs, samples } = raw;
  // Which uses of each location occur: 1 as the leaf, 2 as a caller (flat profiles: leaf only).
  const uses = new Uint8Array(locs.count);
  const flat = raw.flat === true;
  const { stackStart, stackLocs } = samples;
  for (let s = 0; s < samples.count; s++) {
    const a = stackStart[s];
    const b = stackStart[s + 1];
    for (let p = a; p < b; p++) uses[stackLocs[p]] |= flat || p === a ? 1 : 2;
  }
  const embedded = new Map(raw.embeddedSymbols ?? []);
  const lines = new Map(raw.embeddedLines ?? []);
  const offsets = new Map(raw.embeddedOffsets ?? []);
  const own = raw.lines;
  // Full names where the symbolizer gave short ones without demangling: the report's fold
  // shortens them as ours did, and keeps the full names for its tooltips.
  const full = (n: string) => symbolizer.fullName?.(n) ?? n;
  const add = (hi: number, lo: number) => {
    const key = hexOf(hi, lo);
    if (embedded.has(key) || lines.has(key)) return;
    const names = symbolizer.lookup(hi, lo);
    if (names && names.length > 0) embedded.set(key, names.map(full));
    if (granularity === 'lines') {
      const frames = symbolizer.lookupFrames?.(hi, lo);
      if (frames && frames.length > 0)
        lines.set(
          key,
          frames.map((f): SymbolFrame => ({ ...f, name: full(f.name) })),
        );
    } else if (granularity === 'addresses' && names && names.length > 0) {
      const off = symbolizer.offsetInSymbol?.(hi, lo);
      if (off !== null && off !== undefined) offsets.set(key, off);
    }
  };
  for (let loc = 0; loc < locs.count; loc++) {
    if (uses[loc] === 0 || !locs.hasAddr[loc]) continue;
    // Frames the location names itself: the fold does not consult symbols for it.
    if (!flat && own && own.start[loc + 1] > own.start[loc]) continue;
    const hi = locs.addrHi[loc];
    const lo = locs.addrLo[loc];
    if (uses[loc] & 1) {
      if (raw.adjustLeaves) add(...minusOne(hi, lo));
      else add(hi, lo);
    }
    if (uses[loc] & 2) {
      if (raw.adjustCallers) add(...minusOne(hi, lo));
      else add(hi, lo);
    }
  }
  if (embedded.size > 0) out.embeddedSymbols = embedded;
  if (lines.size > 0) out.embeddedLines = lines;
  if (offsets.size > 0) out.embeddedOffsets = offsets;
  return out;
}
