// The DCPI importer's first picture of a large profile: DCPI is flat (one frame per address with
// samples), so the coarse tree of the full fold is exactly the addresses weighing at least
// PREVIEW_FRACTION of all samples, and one LIGHT_CHILDREN bar for the rest. Those few addresses
// are folded alone (named as the fold names them) before the millions of the whole file are: a
// 100 MB file (2.2M addresses) folds in seconds, its heavy addresses in milliseconds.

import { LIGHT_CHILDREN, PREVIEW_FRACTION, PREVIEW_MIN_FRAMES } from '../model/calltree.ts';
import { foldProfile } from '../model/fold.ts';
import type { RawProfile } from '../types.ts';
import { parseDcpi } from './dcpi.ts';
import type { ImporterPreview, ParseProfileOptions } from './importer.ts';

/** The raw profile of `raw`'s samples of weight ≥ `threshold` (a flat profile: sample i at location i). */
function heavyOnly(raw: RawProfile, threshold: number): RawProfile {
  const { weight } = raw.samples;
  const keep: number[] = [];
  for (let i = 0; i < raw.samples.count; i++) if (weight[i] >= threshold) keep.push(i);
  const n = keep.length;
  const loc = raw.locations;
  const pick = <T extends Uint32Array | Uint8Array | Int32Array | Float64Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)(n);
    for (let k = 0; k < n; k++) out[k] = a[raw.samples.stackLocs[keep[k]]];
    return out;
  };
  const w = new Float64Array(n);
  for (let k = 0; k < n; k++) w[k] = weight[keep[k]];
  const stackStart = new Uint32Array(n + 1);
  const stackLocs = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    stackStart[k + 1] = k + 1;
    stackLocs[k] = k;
  }
  return {
    ...raw,
    locations: {
      count: n,
      addrHi: pick(loc.addrHi),
      addrLo: pick(loc.addrLo),
      hasAddr: pick(loc.hasAddr),
      locName: pick(loc.locName),
    },
    samples: { count: n, stackStart, stackLocs, weight: w },
    warnings: [],
  };
}

/**
 * The DCPI importer's preview capability: the parse (fast: the counts are read in place), then,
 * for a profile of at least PREVIEW_MIN_FRAMES addresses, its heavy addresses folded and one
 * LIGHT_CHILDREN bar for the others, posted through `onPreview`; returns the parse.
 */
export function parseDcpiWithPreview(
  bytes: Uint8Array,
  opts: ParseProfileOptions & { onPreview: (p: ImporterPreview) => void },
  minFrames = PREVIEW_MIN_FRAMES,
): RawProfile {
  const t0 = performance.now();
  const raw = parseDcpi(bytes);
  if (raw.samples.count < minFrames || raw.flat !== true) return raw;
  let total = 0;
  const { weight } = raw.samples;
  for (let i = 0; i < raw.samples.count; i++) total += weight[i];
  const heavy = heavyOnly(raw, total * PREVIEW_FRACTION);
  const profile = foldProfile(heavy, {
    fileName: opts.fileName ?? '',
    granularity: opts.granularity,
    unnamedPerAddress: opts.unnamedPerAddress,
  });
  // Only when each heavy address is a frame of its own (no symbols merge them): else the light
  // addresses might belong to the heavy frames, and the bar for them would be wrong.
  if (profile.stacks.count !== heavy.samples.count) return raw;
  let kept = 0;
  for (let s = 0; s < profile.stacks.count; s++) kept += profile.stacks.weight[s];
  const { start, frames, weight: sw, count } = profile.stacks;
  const light = total - kept;
  profile.stacks =
    light > 0
      ? {
          count: count + 1,
          start: Uint32Array.of(...start, start[count] + 1),
          frames: Uint32Array.of(...frames, LIGHT_CHILDREN >>> 0),
          weight: Float64Array.of(...sw, light),
        }
      : profile.stacks;
  profile.meta.totalSamples = total;
  opts.onPreview({ profile, maxDepth: 1, ms: performance.now() - t0 });
  return raw;
}
