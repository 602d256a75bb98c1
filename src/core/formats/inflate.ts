// Bounded inflation: what a gzip file or a zip member inflates to is capped, and a stream that
// grows far faster than real profiles compress is stopped while it inflates, before it takes the
// page (or the CLI) down. Real files: profiles and objects deflate 3–30× (the fixtures: perf.data
// 9×, gperftools 23×, perf script 31×, folded text of deep recursion 139×); deflate's limit is
// 1032×, which is what bombs are made of (a 6 MB gzip of 4.7 GB: 780×).

import { Inflate } from 'fflate';
import { ProfileError } from '../types.ts';

export interface InflateLimits {
  /** The most bytes one stream (a gzip file, a zip member) may inflate to. */
  maxOutput: number;
  /** The most bytes of output per compressed byte read, once `ratioFrom` bytes are out. */
  maxRatio: number;
  /** Output below this is never a bomb by ratio (small files of zeros deflate 1000×). */
  ratioFrom: number;
}

/**
 * What a browser tab can hold (Chromium's renderers hold a few GiB in all; the profile's parse needs
 * about as much again as its bytes), and a ratio well past what real profiles reach and below what
 * bombs are made with.
 */
export const INFLATE_LIMITS: InflateLimits = {
  maxOutput: 2 ** 31,
  maxRatio: 500,
  ratioFrom: 64 * 2 ** 20,
};

const MIB = 2 ** 20;
const size = (n: number) => (n >= 10 * MIB ? `${Math.round(n / MIB)} MiB` : `${n} bytes`);

/** Why an inflation was stopped (a ProfileError: the file is refused with this message). */
export function inflateLimitMessage(
  what: string,
  out: number,
  read: number,
  limits: InflateLimits,
): string | null {
  if (out > limits.maxOutput)
    return `${what} inflates to more than ${size(limits.maxOutput)}, the most a page can hold (stopped after ${size(read)} of compressed data)`;
  if (out > limits.ratioFrom && out > limits.maxRatio * read)
    return (
      `${what} inflates more than ${limits.maxRatio} times its compressed size ` +
      `(${size(out)} from ${size(read)}): a decompression bomb, not a profile`
    );
  return null;
}

/**
 * Inflates raw deflate data under the limits: fed in pieces, its output counted as it comes.
 * Throws a ProfileError (at `offset`, the stream's first byte in the file) when a limit is passed;
 * other errors (invalid deflate data) are fflate's, for the caller to place.
 */
export function boundedInflate(
  data: Uint8Array,
  what: string,
  offset: number,
  limits: InflateLimits = INFLATE_LIMITS,
): Uint8Array {
  const chunks: Uint8Array[] = [];
  let out = 0;
  let ended = false;
  const inflater = new Inflate((chunk, final) => {
    chunks.push(chunk);
    out += chunk.length;
    if (final) ended = true;
  });
  const STEP = 1 << 16;
  for (let at = 0; at < data.length && !ended; at += STEP) {
    const end = Math.min(at + STEP, data.length);
    inflater.push(data.subarray(at, end), end === data.length);
    const why = inflateLimitMessage(what, out, end, limits);
    if (why !== null) throw new ProfileError(why, 'unknown', { offset });
  }
  if (!ended) throw new Error('unexpected EOF');
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(out);
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.length;
  }
  return all;
}
