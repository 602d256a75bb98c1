// A gperftools CPU profile too large to hold whole in a browser tab, read in chunks and sampled:
// every N-th record is kept (N from the file's size and a byte budget), so that what is shown is
// an even sample of the run; the records and samples of the whole file are still counted. The
// output is a small gperftools profile of its own (the header, the kept records, the trailer and
// the mapped-objects text), which the ordinary parser reads.

import { formatBytes } from '../text/units';
import type { ProfileWarning } from '../types';
import { ProfileError } from '../types';
import { detectLayouts } from './gperftools';

/** Reads `len` bytes at `at` (fewer at the end of the file). */
export interface ChunkSource {
  size: number;
  read(at: number, len: number): Promise<Uint8Array>;
}

export interface SampledProfile {
  bytes: Uint8Array;
  /** One record in `every` was kept. */
  every: number;
  warning: ProfileWarning;
}

const CHUNK = 16 << 20;
/** The mapped-objects text is a /proc/maps listing: more than this is not one. */
const MAX_MAPS_TEXT = 16 << 20;
const MAX_PLAUSIBLE_DEPTH = 0x10000;

/** A growable byte buffer. */
class Bytes {
  data: Uint8Array;
  length = 0;
  constructor(capacity: number) {
    this.data = new Uint8Array(capacity);
  }
  push(b: Uint8Array): void {
    if (this.length + b.length > this.data.length) {
      const d = new Uint8Array(Math.max(this.data.length * 2, this.length + b.length));
      d.set(this.data.subarray(0, this.length));
      this.data = d;
    }
    this.data.set(b, this.length);
    this.length += b.length;
  }
}

/**
 * Keeps one record in `ceil(size / budget)` of a gperftools profile read through `src`, with the
 * header, trailer and mapped-objects text; counts every record and sample. Reading stops at the
 * trailer, or where a record runs past the end or is implausible (said in the warning).
 */
export async function sampleGperftools(
  src: ChunkSource,
  budget: number,
  onProgress?: (fraction: number) => void,
  chunk = CHUNK,
): Promise<SampledProfile> {
  const head = await src.read(0, Math.min(src.size, 1 << 16));
  const layout = detectLayouts(head)[0];
  if (!layout) throw new ProfileError('not a gperftools CPU profile', 'gperftools', { offset: 0 });
  const ws = layout.wordSize;
  const le = layout.le;
  const every = Math.max(1, Math.ceil(src.size / budget));
  const hdrBytes = (2 + layout.hdrWords) * ws;
  const out = new Bytes(Math.min(budget, src.size) + (1 << 16));
  out.push(head.subarray(0, hdrBytes));

  // The current window of the file: buf holds bytes [bufAt, bufAt + buf.length).
  let buf = new Uint8Array(0);
  let bufAt = hdrBytes;
  let pos = hdrBytes;
  const ensure = async (n: number): Promise<boolean> => {
    if (pos + n <= bufAt + buf.length) return true;
    if (pos + n > src.size) return false;
    const keep = buf.subarray(pos - bufAt);
    const more = await src.read(bufAt + buf.length, Math.max(chunk, n - keep.length));
    const next = new Uint8Array(keep.length + more.length);
    next.set(keep);
    next.set(more, keep.length);
    buf = next;
    bufAt = pos;
    onProgress?.(Math.min(1, (bufAt + buf.length) / src.size));
    return pos + n <= bufAt + buf.length;
  };
  const slot = (at: number): number => {
    const dv = new DataView(buf.buffer, buf.byteOffset + (at - bufAt), ws);
    if (ws === 4) return dv.getUint32(0, le);
    const a = dv.getUint32(0, le);
    const b = dv.getUint32(4, le);
    return le ? b * 4294967296 + a : a * 4294967296 + b;
  };

  let records = 0;
  let kept = 0;
  let samples = 0;
  let keptSamples = 0;
  let stopped: string | null = null;
  let trailerEnd = -1;
  for (;;) {
    if (!(await ensure(2 * ws))) {
      stopped = `the file ends at byte ${src.size} without a trailer`;
      break;
    }
    const count = slot(pos);
    const n = slot(pos + ws);
    if (n > MAX_PLAUSIBLE_DEPTH) {
      stopped = `a record at byte ${pos} claims ${n} PCs`;
      break;
    }
    const len = (2 + n) * ws;
    if (!(await ensure(len))) {
      stopped = `a record at byte ${pos} runs past the end of the file`;
      break;
    }
    if (count === 0 && n === 1 && slot(pos + 2 * ws) === 0) {
      out.push(buf.subarray(pos - bufAt, pos - bufAt + len));
      trailerEnd = pos + len;
      break;
    }
    if (records % every === 0) {
      out.push(buf.subarray(pos - bufAt, pos - bufAt + len));
      kept++;
      keptSamples += count;
    }
    records++;
    samples += count;
    pos += len;
  }
  if (trailerEnd >= 0 && trailerEnd < src.size) {
    out.push(await src.read(trailerEnd, Math.min(src.size - trailerEnd, MAX_MAPS_TEXT)));
  }
  onProgress?.(1);
  const warning: ProfileWarning = {
    message:
      `showing 1 in ${every} records: this ${formatBytes(src.size)} file is more than a tab holds whole, so an even ` +
      `sample of it is shown (${kept.toLocaleString('en-US')} of ${records.toLocaleString('en-US')} ` +
      `records, ${keptSamples.toLocaleString('en-US')} of ${samples.toLocaleString('en-US')} samples)` +
      (stopped ? `; reading stopped: ${stopped}` : ''),
  };
  if (stopped) warning.offset = pos;
  return { bytes: out.data.subarray(0, out.length), every, warning };
}
