// The fold of a flat profile (DCPI) whose samples are one location each at distinct addresses: each
// sample's stack ([module, function if symbolized, MODULE+0xOFFSET]) ends in an address frame of its
// own, so every stack is new. The stacks are written in sample order, stack s for sample s, with no
// table of unique stacks, no per-location slots (one use each) and no lookup of the address frames
// (FrameNaming.newAddressFrame); no function table is kept: functionTableOf sums the stacks when
// asked, in the same order. The usual fold's working arrays for the 8.75M addresses of a 400 MB
// profile (the slots, the offset and stack tables, the table's per-frame sums grown by doublings)
// were ~1 GB at its peak.

import { U32Builder } from '../address.ts';
import type { FoldedProfile, RawProfile, Symbolizer } from '../types.ts';
import { pushFlatFrames } from './fold-slots.ts';
import { SymbolNaming } from './granularity.ts';
import type { FrameNaming } from './naming.ts';

/**
 * Whether foldFlat folds `raw`: a flat profile without own lines, each sample one location with an
 * address, the addresses increasing in sample order (so distinct: DCPI's chunks are).
 */
export function foldsFlat(raw: RawProfile): boolean {
  if (raw.flat !== true || raw.lines !== undefined) return false;
  const { stackStart, stackLocs, count } = raw.samples;
  const { addrHi, addrLo, hasAddr } = raw.locations;
  let hi = -1;
  let lo = -1;
  for (let s = 0; s < count; s++) {
    const a = stackStart[s];
    if (stackStart[s + 1] !== a + 1) return false;
    const loc = stackLocs[a];
    if (hasAddr[loc] === 0) return false;
    const h = addrHi[loc];
    const l = addrLo[loc];
    if (h < hi || (h === hi && l <= lo)) return false;
    hi = h;
    lo = l;
  }
  return true;
}

/**
 * Folds a profile foldsFlat accepts: stack s is sample s's frames, of its weight. `sampleStacks`,
 * when given, gets s for sample s.
 */
export function foldFlat(
  raw: RawProfile,
  naming: FrameNaming,
  symbolizer: Symbolizer | undefined,
  sampleStacks: Int32Array | null,
): { stacks: FoldedProfile['stacks']; total: number; droppedSamples: 0; droppedWeight: 0 } {
  const { count: n, stackStart, stackLocs, weight: rawWeight } = raw.samples;
  const symbols = new SymbolNaming(naming, raw, symbolizer);
  naming.reserve(n + 1024);
  // [module, address] without symbols; grown as the stacks so far predict with them.
  const frames = new U32Builder(2 * n + 16);
  const start = new Uint32Array(n + 1);
  const weight = new Float64Array(n);
  let total = 0;
  for (let s = 0; s < n; s++) {
    if (frames.data.length - frames.length < 64)
      frames.growTo(Math.ceil(((frames.length + 2) / (s + 1)) * n * 1.05) + 64);
    pushFlatFrames(raw, naming, symbols, stackLocs[stackStart[s]], frames, true);
    start[s + 1] = frames.length;
    const w = rawWeight[s];
    weight[s] = w;
    total += w;
  }
  if (sampleStacks !== null) for (let s = 0; s < n; s++) sampleStacks[s] = s;
  return {
    stacks: { count: n, start, frames: frames.finish(), weight },
    total,
    droppedSamples: 0,
    droppedWeight: 0,
  };
}
