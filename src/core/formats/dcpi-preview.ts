// The DCPI importer's first picture of a large profile: DCPI is flat (one frame per address with
// samples), so the coarse tree of the full fold is exactly the addresses weighing at least
// PREVIEW_FRACTION of all samples, and one LIGHT_CHILDREN bar for the rest. The parse's one pass
// over the counts (the chunks' checks) keeps the few addresses that may be that heavy; they are
// folded alone (named as the fold names them) and posted before the parse fills its columns of
// millions of addresses and the fold names them all: a 100 MB file (2.2M addresses) folds in
// seconds, its heavy addresses in milliseconds.

import { LIGHT_CHILDREN, PREVIEW_FRACTION, PREVIEW_MIN_FRAMES } from '../model/calltree.ts';
import { foldProfile } from '../model/fold.ts';
import type { RawProfile } from '../types.ts';
import { type DcpiScanned, parseDcpi } from './dcpi.ts';
import type { ImporterPreview, ParseProfileOptions } from './importer.ts';

/**
 * The DCPI importer's preview capability: the parse, which for a profile of at least
 * PREVIEW_MIN_FRAMES addresses posts through `onPreview`, once its chunks are scanned, the heavy
 * addresses folded and one LIGHT_CHILDREN bar for the others; returns the parse.
 */
export function parseDcpiWithPreview(
  bytes: Uint8Array,
  opts: ParseProfileOptions & { onPreview: (p: ImporterPreview) => void },
  minFrames = PREVIEW_MIN_FRAMES,
): RawProfile {
  const t0 = performance.now();
  const onScanned = (scan: DcpiScanned): void => {
    if (scan.addresses < minFrames) return;
    const preview = heavyPreview(scan, opts);
    if (preview) opts.onPreview({ profile: preview, maxDepth: 1, ms: performance.now() - t0 });
  };
  return parseDcpi(bytes, { heavyFraction: PREVIEW_FRACTION, onScanned });
}

/** The heavy addresses folded, and a LIGHT_CHILDREN bar for the others; null when it would be wrong. */
function heavyPreview(
  { heavy, total }: DcpiScanned,
  opts: ParseProfileOptions,
): ImporterPreview['profile'] | null {
  const profile = foldProfile(heavy, {
    fileName: opts.fileName ?? '',
    granularity: opts.granularity,
    unnamedPerAddress: opts.unnamedPerAddress,
    names: opts.names,
  });
  // Only when each heavy address is a frame of its own (no symbols merge them): else the light
  // addresses might belong to the heavy frames, and the bar for them would be wrong.
  if (profile.stacks.count !== heavy.samples.count) return null;
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
  return profile;
}
