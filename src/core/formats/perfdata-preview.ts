// A first picture of a large perf.data from one SAMPLE record in N, before the whole file is
// parsed and folded: every record is walked (the mappings, thread names and events are read as the
// parse reads them), only those samples' call chains are read, and they are folded as the whole
// profile will be (ParseProfileOptions.foldSample: symbolized by the files dropped with it, at the
// view's granularity), their weights scaled up to the file's. A 220 MB recording of 1.2M samples:
// parse, fold and tree took ~4 s in node (~8 s in Chromium); its picture from 1 sample in 38 is a
// walk over the record headers and a fold of ~32k stacks. The full parse follows, unchanged.

import { foldProfile } from '../model/fold.ts';
import type { RawProfile } from '../types.ts';
import type { ImporterPreview, ParseProfileOptions } from './importer.ts';
import { parsePerfData, sampledPerfData } from './perfdata.ts';
import { weighedUp } from './text-preview.ts';

/** Files from this size get a sampled first picture (below it the full parse is fast enough). */
export const PERFDATA_PREVIEW_FROM = 32 << 20;
/** About this many samples make the picture. */
export const PERFDATA_PREVIEW_SAMPLES = 1 << 14;

type PreviewOptions = ParseProfileOptions & { onPreview: (p: ImporterPreview) => void };

/**
 * The perf.data importer's preview capability: from `from` bytes, a first picture of about
 * `samples` samples, posted through `onPreview` (said to be from one record in N), then the full
 * parse, whose profile it returns.
 */
export function perfDataWithPreview(
  from = PERFDATA_PREVIEW_FROM,
  samples = PERFDATA_PREVIEW_SAMPLES,
): (bytes: Uint8Array, opts: PreviewOptions) => RawProfile {
  return (bytes, opts) => {
    if (bytes.length >= from) postPreview(bytes, opts, samples);
    return parsePerfData(bytes);
  };
}

function postPreview(bytes: Uint8Array, opts: PreviewOptions, samples: number): void {
  const t0 = performance.now();
  let preview: ImporterPreview;
  try {
    const sampled = sampledPerfData(bytes, samples);
    if (sampled === null) return;
    const profile =
      opts.foldSample?.(sampled.raw) ??
      foldProfile(sampled.raw, {
        fileName: opts.fileName ?? '',
        granularity: opts.granularity,
        unnamedPerAddress: opts.unnamedPerAddress,
      });
    preview = weighedUp(profile, sampled.share, sampled.every, t0);
  } catch {
    return; // only a preview: the parse reports what is wrong with the file
  }
  opts.onPreview(preview);
}
