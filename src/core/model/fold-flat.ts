// The fold of a flat profile (DCPI) whose samples are one location each at distinct addresses: each
// sample's stack ([module, function if symbolized, MODULE+0xOFFSET]) ends in an address frame of its
// own, so every stack is new. The stacks are written in sample order, stack s for sample s, with no
// table of unique stacks, no per-location slots (one use each) and no lookup of the address frames
// (FrameNaming.newAddressFrame); the function table is summed after, in exact-size arrays. The
// usual fold's working arrays for the 8.75M addresses of a 400 MB profile (the slots, the offset and
// stack tables, the table's per-frame sums grown by doublings) were ~1 GB at its peak.

import { U32Builder } from '../address.ts';
import type { FoldedProfile, RawProfile, Symbolizer } from '../types.ts';
import { pushFlatFrames } from './fold-slots.ts';
import { rememberFunctionTable } from './functions.ts';
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

/** The function table's sums of a flat fold (finishFold gives it the profile). */
export interface FlatTable {
  finish(p: FoldedProfile): void;
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
): {
  folded: { stacks: FoldedProfile['stacks']; total: number; droppedSamples: 0; droppedWeight: 0 };
  table: FlatTable;
} {
  const { count: n, stackStart, stackLocs, weight: rawWeight } = raw.samples;
  const symbols = new SymbolNaming(naming, raw, symbolizer);
  naming.reserve(n + 1024);
  // [module, address] without symbols; grown as the stacks so far predict with them.
  const frames = new U32Builder(2 * n + 16);
  const start = new Uint32Array(n + 1);
  const weight = new Float64Array(n);
  let total = 0;
  let integral = true;
  for (let s = 0; s < n; s++) {
    if (frames.data.length - frames.length < 64)
      frames.growTo(Math.ceil(((frames.length + 2) / (s + 1)) * n * 1.05) + 64);
    pushFlatFrames(raw, naming, symbols, stackLocs[stackStart[s]], frames, true);
    start[s + 1] = frames.length;
    const w = rawWeight[s];
    weight[s] = w;
    total += w;
    if (!Number.isInteger(w)) integral = false;
  }
  if (sampleStacks !== null) for (let s = 0; s < n; s++) sampleStacks[s] = s;
  const stackFrames = frames.finish();
  return {
    folded: {
      stacks: { count: n, start, frames: stackFrames, weight },
      total,
      droppedSamples: 0,
      droppedWeight: 0,
    },
    table: {
      // Summed in sample order as the usual fold sums them, and only when its sums are exact.
      finish: (p) => {
        if (integral) rememberFunctionTable(p, flatSums(p.frames.count, start, stackFrames, weight, n));
      },
    },
  };
}

/** Per frame, the weight of the stacks ending in it (self) and of those holding it (total, once per stack). */
function flatSums(
  frameCount: number,
  start: Uint32Array,
  frames: Uint32Array,
  weight: Float64Array,
  n: number,
): { count: number; self: Float64Array; total: Float64Array } {
  const self = new Float64Array(frameCount);
  const total = new Float64Array(frameCount);
  for (let s = 0; s < n; s++) {
    const a = start[s];
    const b = start[s + 1];
    const w = weight[s];
    self[frames[b - 1]] += w;
    for (let k = a; k < b; k++) {
      const f = frames[k];
      let seen = false;
      for (let j = a; j < k && !seen; j++) seen = frames[j] === f;
      if (!seen) total[f] += w;
    }
  }
  return { count: frameCount, self, total };
}
