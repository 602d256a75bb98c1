// The floors the importers are measured against: what any decoder of the format must at least do.
// Used in node (pprof.ts, perf-parse.ts) and, as source text, in the page's floor workers (run.ts):
// keep them self-contained (no imports, no helpers outside the function).

/** pprof: one walk over the fields, and over every varint inside each sample; no checks. */
export function floorWalk(b: Uint8Array): number {
  let p = 0;
  let h = 0;
  const varint = (): number => {
    let v = 0;
    let s = 0;
    let c: number;
    do {
      c = b[p++];
      if (s < 28) v |= (c & 0x7f) << s;
      s += 7;
    } while (c >= 0x80);
    return v >>> 0;
  };
  while (p < b.length) {
    const key = varint();
    const wt = key & 7;
    if (wt === 0) {
      varint();
      continue;
    }
    if (wt !== 2) throw new Error('unexpected wire type');
    const len = varint();
    const end = p + len;
    if (key >>> 3 !== 2) {
      p = end;
      continue;
    }
    // a sample: every varint of its fields (location ids, values, labels)
    while (p < end) {
      const k = varint();
      if ((k & 7) === 2) {
        const n = varint();
        const e = p + n;
        while (p < e) h = (h + varint()) | 0;
      } else h = (h + varint()) | 0;
    }
  }
  return h;
}

/** Text: decode, then find every line (an indexOf('\n') walk that slices each line). */
export function splitLines(bytes: Uint8Array): { lines: number; chars: number } {
  const text = new TextDecoder('utf-8').decode(bytes);
  let lines = 0;
  let chars = 0;
  for (let pos = 0; pos < text.length; ) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    chars += text.slice(pos, nl).length;
    lines++;
    pos = nl + 1;
  }
  return { lines, chars };
}

/**
 * Line formats (perf script, heap, folded): the least any reader of lines must do, without a
 * TextDecoder: one pass over the bytes finding every line end, with a hash of each line's length
 * (so the pass cannot be skipped).
 */
export function scanLines(bytes: Uint8Array): { lines: number; h: number } {
  let lines = 0;
  let h = 0;
  let start = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    if (bytes[i] === 10) {
      h = Math.imul(h ^ (i - start), 16777619);
      start = i + 1;
      lines++;
    }
  }
  return { lines, h };
}

/**
 * DCPI: the header's lines up to `samples`, then each chunk's offset and count and every count of
 * it summed; the 8-byte footer is the last. No checks.
 */
export function dcpiWalk(bytes: Uint8Array): { chunks: number; total: number } {
  let p = 0;
  // past the header: the line `samples` (blanks may follow) ends it
  for (;;) {
    let e = p;
    while (e < bytes.length && bytes[e] !== 10) e++;
    const isSamples = bytes[p] === 115 && bytes[p + 1] === 97 && bytes[p + 2] === 109 && bytes[p + 6] === 115;
    p = e + 1;
    if (isSamples || p >= bytes.length) break;
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const footer = bytes.length - 8;
  let chunks = 0;
  let total = 0;
  while (p + 8 <= footer) {
    const num = dv.getUint32(p + 4, true);
    p += 8;
    const end = Math.min(footer, p + num * 4);
    for (; p < end; p += 4) total += dv.getUint32(p, true);
    chunks++;
  }
  return { chunks, total };
}
