// A first picture of a large text profile (perf script, folded stacks, a heap profile) from a
// sample of its records, before the whole file is parsed and folded: windows of whole records
// evenly spread over the file, parsed and folded as the file would be (the same importer, the
// same naming), their weights scaled up to the file's size; a file of two counts per record
// (difffolded) pictured as it opens, as a comparison of the sample's two columns (one fold, each
// column's weights on its stacks). The gperftools importer's preview
// does the same for a file of many short records (gperftools-preview.ts's sampledScan); here the
// parse itself is what costs (a 100 MB `perf script` file: ~0.5–1.2 s in Chromium for the parse
// and fold, against ~0.1 s for this picture).

import { foldOtherWeights, foldProfile } from '../model/fold.ts';
import { withSampleType } from '../model/sample-types.ts';
import type { FoldedProfile, RawProfile } from '../types.ts';
import type { ChunkSource } from './gperftools-sample.ts';
import type { ImporterPreview, ParseProfileOptions, TextSampling } from './importer.ts';

/** Files from this size get a sampled first picture (below it the full parse is fast enough). */
export const TEXT_PREVIEW_FROM = 32 << 20;
/** About this many bytes of records make the picture, in TEXT_PREVIEW_WINDOWS windows. */
export const TEXT_PREVIEW_BYTES = 3 << 20;
export const TEXT_PREVIEW_WINDOWS = 96;
/**
 * A heap profile's sample is smaller: its records are lines of bare addresses, ~3× the frames of
 * folded stacks per byte and ~6× perf script's (3 MB of the bench's heap profile: 282k frames, where
 * the picture's cost goes; in Chromium its parse, fold and tree took ~0.3 s of ~0.6 s to first
 * paint, cold). 1 MB holds about the frames 3 MB of folded stacks do.
 */
export const HEAP_PREVIEW_BYTES = 1 << 20;

/** The start of the line after the first '\n' at or after `from`; -1 when there is none. */
export function lineAfter(bytes: Uint8Array, from: number): number {
  const nl = bytes.indexOf(10, from);
  return nl < 0 ? -1 : nl + 1;
}

/**
 * The sample of `bytes`: the header (bytes before bodyStart), windows of whole records, and the
 * trailer (bytes from bodyEnd); and the share of the records' bytes it holds.
 */
export function sampledText(
  bytes: Uint8Array,
  how: TextSampling,
  budget = TEXT_PREVIEW_BYTES,
  windows = TEXT_PREVIEW_WINDOWS,
): { text: Uint8Array; share: number } | null {
  const start = how.bodyStart?.(bytes) ?? 0;
  const end = how.bodyEnd?.(bytes) ?? bytes.length;
  const body = end - start;
  if (body <= budget * 2) return null;
  const span = Math.max(1, Math.floor(budget / windows));
  const parts: Uint8Array[] = [bytes.subarray(0, start)];
  let kept = 0;
  let last = start;
  for (let w = 0; w < windows; w++) {
    const from = Math.max(last, start + Math.floor((w * body) / windows));
    const b = from === start ? start : how.recordAt(bytes, from);
    if (b < 0 || b >= end) break;
    const e = windowEnd(bytes, b, span, end, how);
    if (e <= b) break;
    parts.push(bytes.subarray(b, e));
    kept += e - b;
    last = e;
  }
  if (kept === 0) return null;
  parts.push(bytes.subarray(end));
  return { text: joinBytes(parts), share: kept / body };
}

/**
 * Where a window of records begun at `b` ends: at the first record start from `b + span` on, or at
 * the records' `end`; -1 when no record starts after the span before the bytes end.
 */
function windowEnd(bytes: Uint8Array, b: number, span: number, end: number, how: TextSampling): number {
  if (b + span >= end) return end;
  const a = how.recordAt(bytes, b + span);
  return a < 0 ? -1 : Math.min(a, end);
}

/** The bytes at a file's start that sampledFrom reads for its header (and a format's sniff). */
export const UNREAD_HEAD = 1 << 16;
/** A window is read with this many bytes more than its span, to find where its last record ends. */
const WINDOW_MARGIN = 16 << 10;
/** A window whose last record runs on past this many bytes is left out (a record that long is no record). */
const WINDOW_MAX = 4 << 20;

/**
 * The sample of a file not yet read, as `sampledText` takes it of the whole bytes: its header, its
 * trailer (within `how.tailBytes` of the end) and the same windows, each read at its place through
 * `src` (a dropped file's slices: ~3 MB read in tens of ms, where the whole 100 MB file takes a few
 * hundred), so the sample is the one `sampledText` takes of the whole bytes. Null when the file is
 * too small to sample, or its header does not end within the first 64 KB. `head`: the file's first
 * 64 KB (or all of it), when the caller has read them already.
 */
export async function sampledFrom(
  src: ChunkSource,
  how: TextSampling,
  budget = TEXT_PREVIEW_BYTES,
  windows = TEXT_PREVIEW_WINDOWS,
  head?: Uint8Array,
): Promise<Sampled | null> {
  const headLen = Math.min(src.size, UNREAD_HEAD);
  head ??= await src.read(0, headLen);
  const start = how.bodyStart?.(head) ?? 0;
  if (start >= headLen && headLen < src.size) return null;
  let end = src.size;
  let tail: Uint8Array = new Uint8Array(0);
  if (how.bodyEnd) {
    // the trailer looked for in the last 1 MB first, then as far as bodyEnd looks
    const far = how.tailBytes ?? 1 << 20;
    for (const within of far > 1 << 20 ? [1 << 20, far] : [far]) {
      const n = Math.min(src.size - start, within);
      tail = await src.read(src.size - n, n);
      const at = how.bodyEnd(tail);
      end = src.size - n + at;
      if (at < n || n === src.size - start) break;
    }
    tail = tail.subarray(tail.length - (src.size - end));
  }
  const body = end - start;
  if (body <= budget * 2) return null;
  const span = Math.max(1, Math.floor(budget / windows));
  const places = Array.from({ length: windows }, (_, w) => start + Math.floor((w * body) / windows));
  const found = await Promise.all(places.map((at) => recordsAt(src, at, at === start, span, end, how)));
  const parts: Uint8Array[] = [head.subarray(0, start)];
  let kept = 0;
  let last = start;
  for (let w = 0; w < windows; w++) {
    const got = found[w];
    if (got === null || got.at < last) continue;
    parts.push(got.bytes);
    kept += got.bytes.length;
    last = got.at + got.bytes.length;
  }
  if (kept === 0) return null;
  parts.push(tail);
  return { text: joinBytes(parts), share: kept / body };
}

/**
 * The window of whole records at `place`, read from `src`: the bytes and where they are; null when
 * none fits. Its first record is the one `how.recordAt` finds at `place` in the whole file (the
 * record starting there when `isStart`, the body's first): the slice starts a byte before it, all
 * `recordAt` looks at. So the windows are those `sampledText` takes of the same file.
 */
async function recordsAt(
  src: ChunkSource,
  place: number,
  isStart: boolean,
  span: number,
  end: number,
  how: TextSampling,
): Promise<{ at: number; bytes: Uint8Array } | null> {
  const base = isStart ? place : place - 1;
  for (let margin = Math.max(span, WINDOW_MARGIN); ; margin *= 4) {
    const len = Math.min(end - base, span + margin);
    const bytes = await src.read(base, len);
    const whole = base + len === end;
    const b = isStart ? 0 : how.recordAt(bytes, 1);
    if (b >= 0 && b < len) {
      // short of the records' end, a window must end within what was read
      const e = windowEnd(bytes, b, span, whole ? len : len + 1, how);
      if (e > b && e <= len) return { at: base + b, bytes: bytes.subarray(b, e) };
      if (e === -1 && whole) return null;
    } else if (whole) return null;
    if (span + margin > WINDOW_MAX) return null;
  }
}

/** The bytes of `parts`, one after another, in one new array. */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) {
    out.set(p, n);
    n += p.length;
  }
  return out;
}

/** A sample of a file to picture it by: bytes its importer parses, and the share of its records they hold. */
export interface Sampled {
  text: Uint8Array;
  share: number;
}

/** The sample of a text file by its records (sampledText with `how`). */
export const byRecords =
  (how: TextSampling, budget = TEXT_PREVIEW_BYTES, windows = TEXT_PREVIEW_WINDOWS) =>
  (bytes: Uint8Array): Sampled | null =>
    sampledText(bytes, how, budget, windows);

/**
 * An importer's preview capability from a sample of the file: when the file is large, a first
 * picture of `sample(bytes)` (parsed by `parse`, folded as the file will be, weighed up by
 * 1/share; posted through `onPreview`, said to be from one record in about 1/share), then the
 * full parse. Returns what `parse` gives of the whole file. A sample of two counts per record
 * (difffolded: `diffPair`) gives the comparison as `profile` and the baseline as `baseline`, the
 * same stacks with each column's weights (folded once: foldOtherWeights), as the file opens: as a
 * comparison of the two.
 */
export function sampledParseWithPreview(
  parse: (bytes: Uint8Array) => RawProfile,
  sample: (bytes: Uint8Array) => Sampled | null,
  from = TEXT_PREVIEW_FROM,
): (
  bytes: Uint8Array,
  opts: ParseProfileOptions & { onPreview: (p: ImporterPreview) => void },
) => RawProfile {
  return (bytes, opts) => {
    if (bytes.length >= from) postSampledPreview(() => sample(bytes), opts, parse);
    return parse(bytes);
  };
}

/**
 * Posts the first picture of a sample (`sample()`, timed with the picture; null: none) through
 * `onPreview`: parsed by `parse`, folded as the file will be, weighed up by 1/share. Nothing is
 * posted when the sample does not parse (the full parse reports what is wrong).
 */
export function postSampledPreview(
  sample: () => Sampled | null,
  opts: ParseProfileOptions & { onPreview: (p: ImporterPreview) => void },
  parse: (bytes: Uint8Array) => RawProfile,
): void {
  const t0 = performance.now();
  let preview: ImporterPreview;
  try {
    const s = sample();
    if (s === null) return;
    preview = previewOfSample(s, parse, opts, t0);
  } catch {
    return; // only a preview: the parse reports what is wrong with the file
  }
  opts.onPreview(preview);
}

/**
 * The first picture of a sample: parsed by `parse` (which throws on what does not parse), folded
 * as the file will be (`opts`' granularity and names), weighed up by 1/share; begun at `t0`.
 */
export function previewOfSample(
  s: Sampled,
  parse: (bytes: Uint8Array) => RawProfile,
  opts: ParseProfileOptions,
  t0: number,
): ImporterPreview {
  const raw = parse(s.text);
  // A two-count sample's baseline (its first column) has the comparison's stacks: summed again
  // from where the fold put each sample, not folded twice.
  const sampleStacks = raw.diffPair ? new Int32Array(raw.samples.count) : undefined;
  const profile = foldProfile(raw, {
    fileName: opts.fileName ?? '',
    granularity: opts.granularity,
    unnamedPerAddress: opts.unnamedPerAddress,
    names: opts.names,
    sampleStacks,
  });
  const baseline = sampleStacks && foldOtherWeights(profile, withSampleType(raw, 0), sampleStacks);
  return weighedUp(profile, s.share, Math.max(2, Math.round(1 / s.share)), t0, baseline);
}

/**
 * The preview of a folded sample holding `share` of the file's records (one in `every`), its
 * weights (and `baseline`'s, a comparison's other side) scaled up to the file's, begun at `t0`.
 */
export function weighedUp(
  profile: FoldedProfile,
  share: number,
  every: number,
  t0: number,
  baseline?: FoldedProfile,
): ImporterPreview {
  const scale = 1 / share;
  let maxDepth = 0;
  for (const p of baseline ? [profile, baseline] : [profile]) {
    const w = p.stacks.weight;
    for (let i = 0; i < w.length; i++) w[i] *= scale;
    p.meta.totalSamples *= scale;
    if (p.meta.samplingTimeUs !== undefined) p.meta.samplingTimeUs *= scale;
    const start = p.stacks.start;
    for (let s = 0; s < p.stacks.count; s++) maxDepth = Math.max(maxDepth, start[s + 1] - start[s]);
  }
  return {
    profile,
    ...(baseline && { baseline }),
    maxDepth,
    ms: performance.now() - t0,
    sampledEvery: every,
  };
}

/** Folded stacks (and difffolded): a record is a line. */
export const FOLDED_SAMPLING: TextSampling = {
  recordAt: (bytes, from) => (from === 0 ? 0 : lineAfter(bytes, from - 1)),
};

/**
 * `perf script`: a record is a sample, its header line then its frames, ended by a blank line;
 * the next record starts at the first line after a blank one (-1 when a file has no blank lines:
 * samples without call chains are one line each, and are not sampled).
 */
export const PERF_SCRIPT_SAMPLING: TextSampling = {
  recordAt(bytes, from) {
    let p = from === 0 ? 0 : lineAfter(bytes, from - 1);
    let blank = false;
    while (p >= 0 && p < bytes.length) {
      let e = p;
      while (e < bytes.length && (bytes[e] === 32 || bytes[e] === 9 || bytes[e] === 13)) e++;
      if (e < bytes.length && bytes[e] === 10) blank = true;
      else if (blank) return p;
      p = lineAfter(bytes, p);
    }
    return -1;
  },
};

/**
 * The last occurrence of any of the ASCII `words` in bytes[from, to), or -1: each word's first
 * byte found by the native lastIndexOf, the search for a word stopping above the last occurrence
 * of the ones before (a loop over every byte of the last 16 MB, for each word, was ~30 ms of a
 * 100 MB heap profile's ~70 ms preview when it has one kind of sentinel only, as they all do).
 */
function lastIndexOfAny(bytes: Uint8Array, words: readonly string[], from: number, to: number): number {
  let best = -1;
  for (const word of words) {
    const first = word.charCodeAt(0);
    // bounded below: lastIndexOf would otherwise look on to the file's start
    const floor = Math.max(from, best + 1);
    const area = bytes.subarray(floor, to);
    for (let i = area.length - word.length; i >= 0; i--) {
      i = area.lastIndexOf(first, i);
      if (i < 0) break;
      let k = 1;
      while (k < word.length && area[i + k] === word.charCodeAt(k)) k++;
      if (k === word.length) {
        best = floor + i;
        break;
      }
    }
  }
  return best;
}

/** How far from its end a heap profile's maps section is looked for. */
export const HEAP_MAPS_WITHIN = 16 << 20;

/**
 * A gperftools heap profile: its header line, then a record per line, then the maps section
 * (`MAPPED_LIBRARIES:` or `--- Memory map:`, looked for in the last 16 MB), which each window's
 * parse needs to name frames as the fold will.
 */
export const HEAP_SAMPLING: TextSampling = {
  recordAt: FOLDED_SAMPLING.recordAt,
  tailBytes: HEAP_MAPS_WITHIN,
  bodyStart(bytes) {
    let p = 0;
    while (p < bytes.length && (bytes[p] === 10 || bytes[p] === 13 || bytes[p] === 32 || bytes[p] === 9)) p++;
    const after = lineAfter(bytes, p);
    return after < 0 ? bytes.length : after;
  },
  bodyEnd(bytes) {
    const from = Math.max(0, bytes.length - HEAP_MAPS_WITHIN);
    let at = lastIndexOfAny(bytes, ['MAPPED_LIBRARIES:', '--- Memory map:'], from, bytes.length);
    if (at < 0) return bytes.length;
    // the start of the sentinel's line
    while (at > 0 && bytes[at - 1] !== 10) at--;
    return at;
  },
};
