// The pprof importer's first picture of a large profile (text-preview.ts's sampledParseWithPreview):
// the profile.proto with one Sample in `every` (evenly spread) and every other field as it is
// (mappings, locations, functions, strings, …), which parsePprof reads as a profile of its own.
// Finding the samples is one walk over the top-level fields (a key and a length each), far less than
// the parse's walk over every varint in them.

import { type Sampled, TEXT_PREVIEW_BYTES } from './text-preview.ts';

const P_SAMPLE = 2;

/**
 * The top-level fields of `b` as [start, end) pairs of their whole encodings (key included), and
 * which of them are samples; null when the bytes are no well-formed message (the parse says what
 * is wrong). One key and length per field: the samples' contents are skipped.
 */
function topLevelFields(b: Uint8Array): { bounds: Float64Array; isSample: Uint8Array; count: number } | null {
  let bounds = new Float64Array(1 << 16);
  let isSample = new Uint8Array(1 << 15);
  let count = 0;
  let p = 0;
  const n = b.length;
  while (p < n) {
    const start = p;
    // the key: a varint (field numbers fit in 29 bits)
    let key = 0;
    let mul = 1;
    let c: number;
    do {
      if (p >= n || mul > 2 ** 28) return null;
      c = b[p++];
      key += (c & 0x7f) * mul;
      mul *= 128;
    } while (c >= 0x80);
    const wt = key % 8;
    if (wt === 0 || wt === 2) {
      let v = 0;
      mul = 1;
      do {
        if (p >= n || mul > 2 ** 63) return null;
        c = b[p++];
        v += (c & 0x7f) * mul;
        mul *= 128;
      } while (c >= 0x80);
      if (wt === 2) {
        if (v > n - p) return null;
        p += v;
      }
    } else if (wt === 1) p += 8;
    else if (wt === 5) p += 4;
    else return null;
    if (p > n) return null;
    if (count === isSample.length) {
      const nb = new Float64Array(bounds.length * 2);
      nb.set(bounds);
      bounds = nb;
      const ns = new Uint8Array(isSample.length * 2);
      ns.set(isSample);
      isSample = ns;
    }
    bounds[2 * count] = start;
    bounds[2 * count + 1] = p;
    isSample[count] = Math.floor(key / 8) === P_SAMPLE ? 1 : 0;
    count++;
  }
  return { bounds, isSample, count };
}

/**
 * `bytes` (a decoded profile.proto) with one sample in `every` such that the samples kept hold
 * about `budget` bytes; null when it has too few samples to pay or is not well formed.
 */
export function sampledPprof(bytes: Uint8Array, budget = TEXT_PREVIEW_BYTES): Sampled | null {
  const fields = topLevelFields(bytes);
  if (fields === null) return null;
  const { bounds, isSample, count } = fields;
  let samples = 0;
  let sampleBytes = 0;
  for (let f = 0; f < count; f++) {
    if (isSample[f] === 0) continue;
    samples++;
    sampleBytes += bounds[2 * f + 1] - bounds[2 * f];
  }
  if (sampleBytes <= budget * 2) return null;
  const every = Math.ceil(sampleBytes / budget);
  // the fields kept: every one but the samples left out
  let size = 0;
  let kept = 0;
  for (let f = 0, i = 0; f < count; f++) {
    if (isSample[f] === 1 && i++ % every !== 0) {
      isSample[f] = 2; // left out
      continue;
    }
    if (isSample[f] === 1) kept++;
    size += bounds[2 * f + 1] - bounds[2 * f];
  }
  const out = new Uint8Array(size);
  let at = 0;
  // runs of adjacent fields kept, one copy each (the strings are many and small)
  for (let f = 0; f < count; ) {
    if (isSample[f] === 2) {
      f++;
      continue;
    }
    const s = bounds[2 * f];
    while (f < count && isSample[f] !== 2) f++;
    const e = bounds[2 * f - 1];
    out.set(bytes.subarray(s, e), at);
    at += e - s;
  }
  return { text: out, share: kept / samples };
}
