// A parsed profile with the names its symbols give written into it (an HTML report's profile): the
// names the fold would look up are put in `embeddedSymbols`, keyed by the address the fold looks up
// (a caller's return address minus one where the profile says so), so that the profile folds to the
// same frames with no symbol file. Samples, every value column, labels, mappings and metadata stay
// as they are; addresses no symbol names stay addresses. Pure: no DOM.

import { hexOf, minusOne } from '../address.ts';
import type { RawProfile, Symbolizer } from '../types.ts';

/**
 * `raw` with the names `symbolizer` gives to the addresses its samples use, as the fold looks them
 * up, in `embeddedSymbols` (names the profile already embeds win, as in the fold). `symbolizer`
 * names frames as they are to be shown (see granularity.ts's symbolizerFor); without one, `raw` as
 * it is. `mappings`: the profile's mappings to keep (with those placed files add).
 */
export function withResolvedNames(
  raw: RawProfile,
  symbolizer: Symbolizer | undefined,
  mappings = raw.meta.mappings,
): RawProfile {
  const out: RawProfile =
    mappings === raw.meta.mappings
      ? { ...raw }
      : { ...raw, meta: { ...raw.meta, mappings: mappings.slice() } };
  if (!symbolizer) return out;
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
  const own = raw.lines;
  const add = (hi: number, lo: number) => {
    const key = hexOf(hi, lo);
    if (embedded.has(key)) return;
    const names = symbolizer.lookup(hi, lo);
    // Full names where the symbolizer gave short ones without demangling: the report's fold
    // shortens them as ours did, and keeps the full names for its tooltips.
    if (names && names.length > 0)
      embedded.set(
        key,
        names.map((n) => symbolizer.fullName?.(n) ?? n),
      );
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
  return out;
}
