// A little-endian perf.data (file mode) rewritten as a big-endian machine would have written it:
// every field byte-swapped at its own width (u16, u32, u64; strings and build-ids as they are), and
// perf_event_attr's bit-field word with its bits reversed in each byte (big-endian compilers
// allocate bit-fields from the most significant bit). perf has no switch to write another byte
// order, so the fixtures' big-endian file is made by this from a real recording, and perf itself
// reads it back (its cross-endian reader) for the oracle: make_perf_data_fixtures.sh.
//
// Written from the layouts in perf_event.h / perf.data-file-format.txt, independently of the
// reader in src/core/formats/perfdata. Records and features it has no layout for are left out (the
// file stays valid): the features kept are those the reader shows; records other than MMAP, MMAP2,
// COMM, FORK, EXIT, LOST, LOST_SAMPLES, THROTTLE, UNTHROTTLE, SAMPLE (fields up to CALLCHAIN),
// ID_INDEX, EVENT_UPDATE (unit, scale, name), THREAD_MAP, FINISHED_ROUND and FINISHED_INIT are
// dropped.

const KEPT_FEATURES = new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 21]);

/** A field list: widths in bytes (1: copied; 2, 4, 8: swapped), or a negative count of bytes to copy. */
type Widths = number[];

class Out {
  private parts: Uint8Array[] = [];
  length = 0;
  push(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

export function toBigEndian(src: Uint8Array): Uint8Array {
  const le = new DataView(src.buffer, src.byteOffset, src.byteLength);
  const u16 = (o: number) => le.getUint16(o, true);
  const u32 = (o: number) => le.getUint32(o, true);
  const u64 = (o: number) => Number(le.getBigUint64(o, true));
  if (new TextDecoder().decode(src.subarray(0, 8)) !== 'PERFILE2')
    throw new Error('not a little-endian perf.data');
  if (u64(8) !== 104) throw new Error('only file mode (a 104-byte header) is converted');

  /** `src[o, o + n)` with the fields of `w` swapped, repeating `w` to fill n bytes. */
  const swapped = (o: number, n: number, w: Widths): Uint8Array => {
    const out = src.slice(o, o + n);
    let p = 0;
    while (p < n) {
      for (const width of w) {
        if (p >= n) break;
        if (width < 0) {
          p += -width;
          continue;
        }
        if (width > 1 && p + width <= n) out.subarray(p, p + width).reverse();
        p += width;
      }
    }
    return out;
  };

  const attrSize = u64(16);
  const attrs = { offset: u64(24), size: u64(32) };
  const data = { offset: u64(40), size: u64(48) };
  const attrCount = attrs.size / attrSize;
  const firstAttr = attrs.offset;
  const sampleType = Number(le.getBigUint64(firstAttr + 24, true));
  const readFormat = Number(le.getBigUint64(firstAttr + 32, true));
  const sampleIdAll = (le.getUint32(firstAttr + 40, true) >>> 18) & 1;
  if (attrCount !== 1) throw new Error('only single-event files are converted');

  /** perf_event_attr: natural widths, and the bit-field word's bits reversed in each byte. */
  const attr = (o: number, n: number): Uint8Array => {
    const w: Widths = [4, 4, 8, 8, 8, 8, -8, 4, 4, 8, 8, 8, 8, 4, 4, 8, 4, 2, 2, 4, 4, 8, 8];
    const out = swapped(o, n, w);
    for (let i = 40; i < 48 && i < n; i++) {
      let x = out[i];
      let r = 0;
      for (let k = 0; k < 8; k++, x >>= 1) r = (r << 1) | (x & 1);
      out[i] = r;
    }
    return out;
  };

  /** The sample_id trailer's widths (sample_id_all), from the end of a record. */
  const trailer: Widths = [];
  if (sampleIdAll) {
    if (sampleType & (1 << 1)) trailer.push(4, 4);
    for (const bit of [2, 6, 9]) if (sampleType & (1 << bit)) trailer.push(8);
    if (sampleType & (1 << 7)) trailer.push(4, 4);
    if (sampleType & (1 << 16)) trailer.push(8);
  }
  const trailerBytes = trailer.reduce((a, w) => a + w, 0);

  /** A record: its header, `body` widths from byte 8, bytes to copy up to the trailer, the trailer. */
  const record = (o: number, size: number, body: Widths, withTrailer: boolean): Uint8Array => {
    const out = src.slice(o, o + size);
    out.set(swapped(o, 8, [4, 2, 2]), 0);
    let p = 8;
    for (const w of body) {
      if (w < 0) {
        p += -w;
        continue;
      }
      out.set(swapped(o + p, w, [w]), p);
      p += w;
    }
    if (withTrailer && trailerBytes > 0) {
      const t = size - trailerBytes;
      out.set(swapped(o + t, trailerBytes, trailer), t);
    }
    return out;
  };

  const sample = (o: number, size: number): Uint8Array => {
    const w: Widths = [];
    const t = sampleType;
    if (t & (1 << 16)) w.push(8); // IDENTIFIER
    if (t & 1) w.push(8); // IP
    if (t & (1 << 1)) w.push(4, 4); // TID
    for (const bit of [2, 3, 6, 9]) if (t & (1 << bit)) w.push(8); // TIME ADDR ID STREAM_ID
    if (t & (1 << 7)) w.push(4, 4); // CPU
    if (t & (1 << 8)) w.push(8); // PERIOD
    let p = 8 + w.reduce((a, x) => a + x, 0);
    if (t & (1 << 4)) {
      // READ (not a group): value, then the optional words
      let n = 1;
      for (const bit of [0, 1, 2, 4]) if (readFormat & (1 << bit)) n++;
      if (readFormat & 8) throw new Error('group reads are not converted');
      for (let i = 0; i < n; i++) w.push(8);
      p += 8 * n;
    }
    if (t & (1 << 5)) {
      const nr = u64(o + p);
      for (let i = 0; i <= nr; i++) w.push(8);
      p += 8 * (nr + 1);
    }
    if (
      t &
      ~(
        (1 << 0) |
        (1 << 1) |
        (1 << 2) |
        (1 << 3) |
        (1 << 4) |
        (1 << 5) |
        (1 << 6) |
        (1 << 7) |
        (1 << 8) |
        (1 << 9) |
        (1 << 16)
      )
    )
      throw new Error(`sample_type 0x${t.toString(16)}: fields past CALLCHAIN are not converted`);
    if (p !== size) throw new Error(`a sample of ${size} bytes holds ${p}`);
    return record(o, size, w, false);
  };

  /** The converted record at `o`, or null to leave it out. */
  const convert = (o: number): Uint8Array | null => {
    const type = u32(o);
    const misc = u16(o + 4);
    const size = u16(o + 6);
    switch (type) {
      case 1: // MMAP
        return record(o, size, [4, 4, 8, 8, 8], true);
      case 10: // MMAP2
        return record(
          o,
          size,
          misc & (1 << 14) ? [4, 4, 8, 8, 8, -24, 4, 4] : [4, 4, 8, 8, 8, 4, 4, 8, 8, 4, 4],
          true,
        );
      case 3: // COMM
        return record(o, size, [4, 4], true);
      case 4: // EXIT
      case 7: // FORK
        return record(o, size, [4, 4, 4, 4, 8], true);
      case 2: // LOST
        return record(o, size, [8, 8], true);
      case 13: // LOST_SAMPLES
        return record(o, size, [8], true);
      case 5: // THROTTLE
      case 6: // UNTHROTTLE
        return record(o, size, [8, 8, 8], true);
      case 9:
        return sample(o, size);
      case 69: // ID_INDEX: nr, then entries of four u64
        return record(o, size, new Array((size - 8) / 8).fill(8), false);
      case 78: {
        // EVENT_UPDATE: type, id, then a unit or name string, or a scale (a double)
        const kind = u64(o + 8);
        if (kind === 0 || kind === 2) return record(o, size, [8, 8], false);
        if (kind === 1) return record(o, size, [8, 8, 8], false);
        return null;
      }
      case 73: {
        // THREAD_MAP: nr, then { u64 pid; char comm[16]; }
        const nr = u64(o + 8);
        const w: Widths = [8];
        for (let i = 0; i < nr; i++) w.push(8, -16);
        return record(o, size, w, false);
      }
      case 68: // FINISHED_ROUND
      case 82: // FINISHED_INIT
        return record(o, size, [], false);
      default:
        return null;
    }
  };

  /** A feature's data converted, or null to leave it out. */
  const feature = (feat: number, o: number, n: number): Uint8Array | null => {
    const strings = (at: number, count: number): Uint8Array[] => {
      const parts: Uint8Array[] = [];
      for (let i = 0; i < count; i++) {
        const len = u32(at);
        parts.push(swapped(at, 4, [4]), src.slice(at + 4, at + 4 + len));
        at += 4 + len;
      }
      return parts;
    };
    const join = (parts: Uint8Array[]) => {
      const out = new Out();
      for (const p of parts) out.push(p);
      return out.bytes();
    };
    switch (feat) {
      case 3:
      case 4:
      case 5:
      case 6:
      case 8:
      case 9:
        return join(strings(o, 1));
      case 7:
        return swapped(o, n, [4, 4]);
      case 10:
        return swapped(o, n, [8]);
      case 21:
        return swapped(o, n, [8, 8]);
      case 11:
        return join([swapped(o, 4, [4]), ...strings(o + 4, u32(o))]);
      case 12: {
        const nr = u32(o);
        const sz = u32(o + 4);
        const parts = [swapped(o, 8, [4, 4])];
        let at = o + 8;
        for (let i = 0; i < nr; i++) {
          parts.push(attr(at, sz));
          const nrIds = u32(at + sz);
          parts.push(swapped(at + sz, 4, [4]));
          const len = u32(at + sz + 4);
          parts.push(...strings(at + sz + 4, 1));
          const idsAt = at + sz + 8 + len;
          parts.push(swapped(idsAt, 8 * nrIds, [8]));
          at = idsAt + 8 * nrIds;
        }
        return join(parts);
      }
      case 2: {
        const parts: Uint8Array[] = [];
        for (let at = o; at < o + n; ) {
          const size = u16(at + 6);
          const e = src.slice(at, at + size);
          e.set(swapped(at, 12, [4, 2, 2, 4]), 0);
          parts.push(e);
          at += size;
        }
        return join(parts);
      }
      default:
        return null;
    }
  };

  // the records
  const records = new Out();
  for (let o = data.offset; o < data.offset + data.size; ) {
    const size = u16(o + 6);
    if (size < 8) throw new Error(`a record of ${size} bytes at ${o}`);
    const r = convert(o);
    if (r !== null) records.push(r);
    o += size;
  }

  // the features present, kept or left out
  const feats: number[] = [];
  for (let w = 0; w < 4; w++) {
    const word = le.getBigUint64(72 + 8 * w, true);
    for (let k = 0; k < 64; k++) if ((word >> BigInt(k)) & 1n) feats.push(64 * w + k);
  }
  const table = data.offset + data.size;
  const kept: { feat: number; bytes: Uint8Array }[] = [];
  feats.forEach((feat, i) => {
    if (!KEPT_FEATURES.has(feat)) return;
    const f = feature(feat, u64(table + 16 * i), u64(table + 16 * i + 8));
    if (f !== null) kept.push({ feat, bytes: f });
  });

  // header | attrs | ids | data | feature table | features
  const out = new Out();
  const be = (size: number, v: number | bigint): Uint8Array => {
    const b = new Uint8Array(size);
    const dv = new DataView(b.buffer);
    if (size === 8) dv.setBigUint64(0, BigInt(v), false);
    else dv.setUint32(0, Number(v), false);
    return b;
  };
  const idsOffset = firstAttr + attrSize - 16;
  const ids = { offset: u64(idsOffset), size: u64(idsOffset + 8) };
  const attrAt = 104;
  const idsAt = attrAt + attrSize;
  const dataAt = idsAt + ids.size;
  const tableAt = dataAt + records.length;
  const bitmap = [0n, 0n, 0n, 0n];
  for (const { feat } of kept) bitmap[feat >> 6] |= 1n << BigInt(feat & 63);
  out.push(src.slice(0, 8).reverse());
  for (const v of [104, attrSize, attrAt, attrSize, dataAt, records.length, 0, 0]) out.push(be(8, v));
  for (const w of bitmap) out.push(be(8, w));
  out.push(attr(firstAttr, attrSize - 16));
  out.push(be(8, idsAt));
  out.push(be(8, ids.size));
  out.push(swapped(ids.offset, ids.size, [8]));
  out.push(records.bytes());
  let at = tableAt + 16 * kept.length;
  for (const f of kept) {
    out.push(be(8, at));
    out.push(be(8, f.bytes.length));
    at += f.bytes.length;
  }
  for (const f of kept) out.push(f.bytes);
  return out.bytes();
}
