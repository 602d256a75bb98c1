// pprof's profile.proto (github.com/google/pprof/proto/profile.proto), gzipped or not: Go's
// runtime/pprof, `pprof -proto`, and most profilers that export "pprof" write it.
//
// A hand-written protobuf reader (docs/formats/pprof.md says why, with figures): one pass over the
// bytes, varints decoded into uint32 halves (addresses and ids never pass through a JS number above
// 2^53), nothing allocated from a count or an id read from the file. Field order is free in
// protobuf (Go writes samples before the locations they name, and the string table after both), so
// references are interned to dense indices when first seen and checked once the file is read.
//
// What becomes what:
//   sample_type, sample.value          → sampleTypes, samples.values (weight = the default column)
//   sample.location_id (leaf first)    → samples.stackLocs
//   sample.label                       → labels (one column per key)
//   location address                   → locations.addrHi/addrLo (hasAddr when nonzero)
//   location line[] (innermost first)  → lines (outermost first), locName = the outermost function
//   mapping                            → meta.mappings (start, limit, offset, filename, build_id)
//   string_table                       → strings (indices kept as they are)
//   drop/keep_frames, period(_type), time_nanos, duration_nanos, comment → meta
// Addresses are used as written (adjustCallers false): pprof's addresses are the ones to look up,
// and `pprof -proto` of a gperftools profile already wrote caller PCs − 1 (legacy_profile.go).

import { F64Builder, U32Builder } from '../address.ts';
import { periodUsFor } from '../model/sample-types.ts';
import type {
  LocationLines,
  Mapping,
  ProfileWarning,
  RawMeta,
  RawProfile,
  SampleLabel,
  SampleType,
} from '../types.ts';
import { ProfileError } from '../types.ts';

const TWO32 = 4294967296;

/** Thrown inside the reader; turned into a ProfileError (or a warning) by the parser. */
class Damage extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** A cursor over protobuf bytes. `lo`/`hi` hold the last varint read (uint32 halves). */
class Reader {
  pos = 0;
  lo = 0;
  hi = 0;
  constructor(readonly buf: Uint8Array) {}

  /** Reads a varint ending before `end` into lo/hi. */
  varint(end: number): void {
    const b = this.buf;
    let p = this.pos;
    if (end - p >= 10) {
      let c = b[p++];
      let lo = c & 0x7f;
      if (c < 0x80) {
        this.pos = p;
        this.lo = lo;
        this.hi = 0;
        return;
      }
      c = b[p++];
      lo |= (c & 0x7f) << 7;
      if (c < 0x80) {
        this.pos = p;
        this.lo = lo;
        this.hi = 0;
        return;
      }
      c = b[p++];
      lo |= (c & 0x7f) << 14;
      if (c < 0x80) {
        this.pos = p;
        this.lo = lo;
        this.hi = 0;
        return;
      }
    }
    this.varintSlow(end);
  }

  private varintSlow(end: number): void {
    const b = this.buf;
    const start = this.pos;
    let p = start;
    let lo = 0;
    let hi = 0;
    for (let k = 0; ; k++) {
      if (p >= end) {
        throw new Damage(
          end >= b.length ? 'the file ends inside a number' : 'a number runs past the end of its message',
          start,
        );
      }
      if (k === 10) throw new Damage('a number is longer than 10 bytes (not a protobuf varint)', start);
      const c = b[p++];
      const v = c & 0x7f;
      if (k < 4) lo |= v << (7 * k);
      else if (k === 4) {
        lo |= (v & 0x0f) << 28;
        hi = v >> 4;
      } else hi |= v << (7 * k - 32);
      if (c < 0x80) break;
    }
    this.pos = p;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** The last varint as an unsigned number (rounded above 2^53). */
  get unsigned(): number {
    return this.hi * TWO32 + (this.lo >>> 0);
  }

  /** The last varint as a signed int64 (rounded beyond ±2^53). */
  get signed(): number {
    if (this.hi < 0x80000000) return this.hi * TWO32 + (this.lo >>> 0);
    return -((~this.hi >>> 0) * TWO32 + ((~this.lo >>> 0) + 1));
  }

  /** The last varint as an index that must fit in a uint32 (strings, counts); -1 when it does not. */
  get index(): number {
    return this.hi === 0 ? this.lo >>> 0 : -1;
  }

  /**
   * Reads a length prefix and returns the end of the bytes it covers (checked against `end`);
   * `keyAt`, the offset of the field's key, is where a field that runs past the end is reported.
   */
  length(end: number, keyAt: number): number {
    this.varint(end);
    const n = this.hi === 0 ? this.lo >>> 0 : -1;
    if (n < 0 || n > end - this.pos) {
      throw new Damage(
        end >= this.buf.length
          ? `a field of ${this.hi === 0 ? n : 'over 2^32'} bytes runs past the end of the file`
          : `a field of ${this.hi === 0 ? n : 'over 2^32'} bytes runs past the end of its message`,
        keyAt,
      );
    }
    return this.pos + n;
  }

  /** Skips the value of a field of wire type `wt` (the key already read at `keyAt`). */
  skip(wt: number, end: number, keyAt: number): void {
    switch (wt) {
      case 0:
        this.varint(end);
        return;
      case 1:
        this.fixed(8, end, keyAt);
        return;
      case 2:
        this.pos = this.length(end, keyAt);
        return;
      case 5:
        this.fixed(4, end, keyAt);
        return;
      default:
        throw new Damage(`invalid protobuf wire type ${wt}`, keyAt);
    }
  }

  private fixed(n: number, end: number, keyAt: number): void {
    if (end - this.pos < n) throw new Damage(`a ${n}-byte field runs past the end`, keyAt);
    this.pos += n;
  }
}

/** uint64 ids as Map keys: exact numbers up to 2^53, strings above. */
type IdKey = number | string;
const idKey = (hi: number, lo: number): IdKey => (hi < 0x200000 ? hi * TWO32 + lo : `${hi}:${lo}`);

/**
 * uint64 ids → dense indices in first-seen order. Ids up to the file's length use a table that
 * grows to the largest such id seen (so its size is bounded by the input), others a Map.
 */
class IdTable {
  count = 0;
  /** Dense index of each small id (-1: not seen yet); read directly by the sample loop. */
  dense = new Int32Array(64).fill(-1);
  private readonly sparse = new Map<IdKey, number>();
  /** Byte offset where each index was first referenced or defined. */
  readonly firstAt = new U32Builder(64);
  constructor(private readonly denseLimit: number) {}

  /** The dense index of id (hi, lo); `at` is recorded for a new one. */
  get(hi: number, lo: number, at: number): number {
    if (hi === 0 && lo < this.denseLimit) {
      if (lo >= this.dense.length) {
        const n = new Int32Array(Math.min(this.denseLimit, Math.max(lo + 1, this.dense.length * 2))).fill(-1);
        n.set(this.dense);
        this.dense = n;
      }
      const i = this.dense[lo];
      if (i >= 0) return i;
      this.dense[lo] = this.count;
    } else {
      const k = idKey(hi, lo);
      const i = this.sparse.get(k);
      if (i !== undefined) return i;
      this.sparse.set(k, this.count);
    }
    this.firstAt.push(at);
    return this.count++;
  }
}

/** A growable Int32Array. */
class I32Builder {
  length = 0;
  data: Int32Array;
  constructor(cap = 64) {
    this.data = new Int32Array(cap);
  }
  /** Makes index i writable (filled with `fill`), growing as needed. */
  ensure(n: number, fill: number): void {
    if (n <= this.length) return;
    if (n > this.data.length) {
      const d = new Int32Array(Math.max(n, this.data.length * 2));
      d.set(this.data.subarray(0, this.length));
      this.data = d;
    }
    this.data.fill(fill, this.length, n);
    this.length = n;
  }
  push(v: number): void {
    this.ensure(this.length + 1, v);
  }
}

const TEXT = new TextDecoder('utf-8');

function decodeString(b: Uint8Array, s: number, e: number): string {
  if (e - s < 64) {
    let ascii = true;
    for (let i = s; i < e; i++) {
      if (b[i] >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, b.subarray(s, e) as unknown as number[]);
  }
  return TEXT.decode(b.subarray(s, e));
}

// Field numbers of profile.proto.
const P_SAMPLE_TYPE = 1;
const P_SAMPLE = 2;
const P_MAPPING = 3;
const P_LOCATION = 4;
const P_FUNCTION = 5;
const P_STRING = 6;
const P_DROP = 7;
const P_KEEP = 8;
const P_TIME = 9;
const P_DURATION = 10;
const P_PERIOD_TYPE = 11;
const P_PERIOD = 12;
const P_COMMENT = 13;
const P_DEFAULT_TYPE = 14;

/** The wire type each known Profile field may have (13, comment, may also be packed). */
const PROFILE_WIRE: Record<number, number> = {
  1: 2,
  2: 2,
  3: 2,
  4: 2,
  5: 2,
  6: 2,
  7: 0,
  8: 0,
  9: 0,
  10: 0,
  11: 2,
  12: 0,
  13: 0,
  14: 0,
  15: 0, // doc_url (newer profile.proto)
};

/** True when the fields of a (sub)message in [p, end) are all well formed and of the allowed kinds. */
function wellFormed(
  b: Uint8Array,
  p: number,
  end: number,
  allowed: (f: number, wt: number) => boolean,
): boolean {
  const r = new Reader(b);
  r.pos = p;
  try {
    while (r.pos < end) {
      const at = r.pos;
      r.varint(end);
      if (r.hi !== 0) return false;
      const f = r.lo >>> 3;
      const wt = r.lo & 7;
      if (f === 0 || !allowed(f, wt)) return false;
      r.skip(wt, end, at);
    }
  } catch {
    return false;
  }
  return r.pos === end;
}

const isVarintOrPacked = (wt: number) => wt === 0 || wt === 2;
/** What each submessage of Profile may hold (unknown fields of a known kind are allowed). */
const SUBMESSAGE: Record<number, (f: number, wt: number) => boolean> = {
  1: (f, wt) => (f <= 2 ? wt === 0 : wt !== 3 && wt !== 4), // ValueType
  2: (f, wt) => (f <= 2 ? isVarintOrPacked(wt) : f === 3 ? wt === 2 : wt !== 3 && wt !== 4), // Sample
  3: (f, wt) => (f <= 10 ? wt === 0 : wt !== 3 && wt !== 4), // Mapping
  4: (f, wt) => (f === 4 ? wt === 2 : f <= 5 ? wt === 0 : wt !== 3 && wt !== 4), // Location
  5: (f, wt) => (f <= 5 ? wt === 0 : wt !== 3 && wt !== 4), // Function
  11: (f, wt) => (f <= 2 ? wt === 0 : wt !== 3 && wt !== 4), // ValueType
};

/**
 * True when the bytes (already gunzipped) start like a profile.proto Profile: the first fields (up
 * to 8) have known field numbers with their wire types, lengths that fit, and submessages (and
 * strings) that are themselves well formed. Text and gperftools files fail on the first byte or
 * two. A file damaged after its first field(s) is still claimed, so that the user gets the
 * importer's precise error: one good field then a field whose key is right but whose value is not,
 * or two good fields then anything.
 */
export function looksLikePprof(bytes: Uint8Array): boolean {
  if (bytes.length < 2) return false;
  const r = new Reader(bytes);
  const end = bytes.length;
  let fields = 0;
  while (r.pos < end && fields < 8) {
    const at = r.pos;
    let f = 0;
    let wt = 0;
    try {
      r.varint(end);
      f = r.hi === 0 ? r.lo >>> 3 : 0;
      wt = r.lo & 7;
    } catch {
      return fields >= 2;
    }
    const want = PROFILE_WIRE[f];
    if (want === undefined || (wt !== want && !(f === P_COMMENT && wt === 2))) return fields >= 2;
    try {
      if (wt === 2) {
        const e = r.length(end, at);
        const sub = SUBMESSAGE[f];
        if (sub && !wellFormed(bytes, r.pos, e, sub)) return fields >= 1;
        if (f === P_STRING) {
          for (let i = r.pos; i < e; i++) if (bytes[i] < 0x20 && bytes[i] !== 9) return fields >= 1;
        }
        r.pos = e;
      } else r.skip(wt, end, at);
    } catch {
      return fields >= 1;
    }
    fields++;
  }
  return fields >= 2 || (fields === 1 && r.pos === end);
}

/** Parses a profile.proto Profile (not gzipped: detect.ts gunzips). */
export function parsePprof(bytes: Uint8Array): RawProfile {
  return new PprofParser(bytes).parse();
}

class PprofParser {
  private readonly r: Reader;
  private readonly warnings: ProfileWarning[] = [];
  private readonly strings: string[] = [];
  private maxStringRef = -1;
  private maxStringRefAt = 0;

  // sample_type and period_type as string indices
  private readonly sampleTypes: Array<[number, number]> = [];
  private periodType: [number, number] | null = null;
  private period = 0;
  private timeNanos = 0;
  private durationNanos = 0;
  private dropFrames = 0;
  private keepFrames = 0;
  private defaultType = 0;
  private defaultTypeAt = 0;
  private readonly comments: number[] = [];

  // samples
  private readonly stackStart = new U32Builder(1024);
  private readonly stackLocs: U32Builder;
  private readonly values = new F64Builder(1024);
  private readonly valueStart = new U32Builder(1024);
  private sampleCount = 0;
  private valueCountMismatch = 0;
  // labels: (sample, key, str, num, unit)
  private readonly labelSample = new U32Builder(16);
  private readonly labelKey = new U32Builder(16);
  private readonly labelStr = new U32Builder(16);
  private readonly labelNum = new F64Builder(16);
  private readonly labelUnit = new U32Builder(16);

  // locations, by dense index
  private readonly locIds: IdTable;
  private readonly locDefined = new I32Builder(64);
  private readonly locAddrHi = new U32Builder(64);
  private readonly locAddrLo = new U32Builder(64);
  /** The mapping id of each location (0 = none) and the offset of its Location message. */
  private readonly locMapHi = new U32Builder(64);
  private readonly locMapLo = new U32Builder(64);
  private readonly locAt = new U32Builder(64);
  private readonly locLineStart = new I32Builder(64);
  private readonly locLineCount = new I32Builder(64);
  private readonly lineFunc = new U32Builder(64);
  private readonly lineNo = new U32Builder(64);

  // functions, by dense index
  private readonly funcIds: IdTable;
  private readonly funcDefined = new I32Builder(64);
  private readonly funcName = new I32Builder(64);
  private readonly funcSystemName = new I32Builder(64);
  private readonly funcFile = new I32Builder(64);

  // mappings
  private readonly mappingIds = new Map<IdKey, number>();
  private readonly mappingRaw: Array<{
    start: bigint;
    end: bigint;
    offset: bigint;
    file: number;
    buildId: number;
  }> = [];
  private mappingMissing = 0;
  private mappingMissingAt = 0;

  constructor(private readonly bytes: Uint8Array) {
    this.r = new Reader(bytes);
    this.stackLocs = new U32Builder(Math.min(1 << 20, bytes.length >>> 1));
    this.locIds = new IdTable(bytes.length);
    this.funcIds = new IdTable(bytes.length);
    this.stackStart.push(0);
    this.valueStart.push(0);
  }

  private str(index: number, at: number): number {
    if (index < 0) throw new Damage('a string index above 2^32', at);
    if (index > this.maxStringRef) {
      this.maxStringRef = index;
      this.maxStringRefAt = at;
    }
    return index;
  }

  parse(): RawProfile {
    const r = this.r;
    const end = this.bytes.length;
    let fields = 0;
    let damage: Damage | null = null;
    while (r.pos < end) {
      const at = r.pos;
      try {
        this.topField(at, end);
        fields++;
      } catch (e) {
        if (!(e instanceof Damage)) throw e;
        if (fields === 0)
          throw new ProfileError(`not a valid pprof profile: ${e.message}`, 'pprof', { offset: e.offset });
        damage = e;
        break;
      }
    }
    try {
      return this.finish(damage);
    } catch (e) {
      if (!(e instanceof Damage)) throw e;
      if (damage) {
        throw new ProfileError(
          `damaged pprof profile: ${damage.message} (at byte ${damage.offset}), and what comes before it is incomplete: ${e.message}`,
          'pprof',
          { offset: damage.offset },
        );
      }
      throw new ProfileError(`invalid pprof profile: ${e.message}`, 'pprof', { offset: e.offset });
    }
  }

  private topField(at: number, end: number): void {
    const r = this.r;
    r.varint(end);
    if (r.hi !== 0 || r.lo >>> 3 === 0) throw new Damage('invalid protobuf field number', at);
    const f = r.lo >>> 3;
    const wt = r.lo & 7;
    const want = PROFILE_WIRE[f];
    if (want !== undefined && wt !== want && !(f === P_COMMENT && wt === 2) && f !== 15) {
      throw new Damage(`field ${f} of Profile has wire type ${wt}, expected ${want}`, at);
    }
    if (wt === 2 && want === 2) {
      const e = r.length(end, at);
      switch (f) {
        case P_SAMPLE:
          this.sample(e);
          break;
        case P_LOCATION:
          this.location(at, e);
          break;
        case P_FUNCTION:
          this.func(at, e);
          break;
        case P_STRING:
          this.strings.push(decodeString(this.bytes, r.pos, e));
          break;
        case P_MAPPING:
          this.mapping(at, e);
          break;
        case P_SAMPLE_TYPE:
          this.sampleTypes.push(this.valueType(at, e));
          break;
        case P_PERIOD_TYPE:
          this.periodType = this.valueType(at, e);
          break;
      }
      r.pos = e;
      return;
    }
    if (f === P_COMMENT && wt === 2) {
      const e = r.length(end, at);
      while (r.pos < e) {
        const vAt = r.pos;
        r.varint(e);
        this.comments.push(this.str(r.index, vAt));
      }
      return;
    }
    if (wt !== 0 || want === undefined) {
      r.skip(wt, end, at);
      return;
    }
    r.varint(end);
    switch (f) {
      case P_DROP:
        this.dropFrames = this.str(r.index, at);
        break;
      case P_KEEP:
        this.keepFrames = this.str(r.index, at);
        break;
      case P_TIME:
        this.timeNanos = r.signed;
        break;
      case P_DURATION:
        this.durationNanos = r.signed;
        break;
      case P_PERIOD:
        this.period = r.signed;
        break;
      case P_COMMENT:
        this.comments.push(this.str(r.index, at));
        break;
      case P_DEFAULT_TYPE:
        this.defaultType = this.str(r.index, at);
        this.defaultTypeAt = at;
        break;
    }
  }

  /** Reads the key of a submessage field: [field, wire type]. */
  private key(end: number): [number, number] {
    const r = this.r;
    const at = r.pos;
    r.varint(end);
    if (r.hi !== 0 || r.lo >>> 3 === 0) throw new Damage('invalid protobuf field number', at);
    return [r.lo >>> 3, r.lo & 7];
  }

  private valueType(at: number, end: number): [number, number] {
    const r = this.r;
    let type = 0;
    let unit = 0;
    while (r.pos < end) {
      const kAt = r.pos;
      const [f, wt] = this.key(end);
      if (wt === 0 && (f === 1 || f === 2)) {
        r.varint(end);
        if (f === 1) type = this.str(r.index, at);
        else unit = this.str(r.index, at);
      } else r.skip(wt, end, kAt);
    }
    return [type, unit];
  }

  private sample(end: number): void {
    const r = this.r;
    const locs = this.stackLocs;
    const ids = this.locIds;
    const locsBefore = locs.length;
    const valuesBefore = this.values.length;
    const labelsBefore = this.labelSample.length;
    try {
      while (r.pos < end) {
        const kAt = r.pos;
        const [f, wt] = this.key(end);
        if (f === 1 && wt === 2) {
          const e = r.length(end, kAt);
          this.packedLocations(r.pos, e);
          r.pos = e;
        } else if (f === 1 && wt === 0) {
          r.varint(end);
          locs.push(ids.get(r.hi, r.lo, kAt));
        } else if (f === 2 && wt === 2) {
          const e = r.length(end, kAt);
          while (r.pos < e) {
            r.varint(e);
            this.values.push(r.signed);
          }
        } else if (f === 2 && wt === 0) {
          r.varint(end);
          this.values.push(r.signed);
        } else if (f === 3 && wt === 2) {
          const e = r.length(end, kAt);
          this.label(kAt, e);
        } else {
          r.skip(wt, end, kAt);
        }
      }
    } catch (e) {
      // Roll back the partial sample.
      locs.length = locsBefore;
      this.values.length = valuesBefore;
      this.labelSample.length = labelsBefore;
      this.labelKey.length = labelsBefore;
      this.labelStr.length = labelsBefore;
      this.labelNum.length = labelsBefore;
      this.labelUnit.length = labelsBefore;
      throw e;
    }
    this.stackStart.push(locs.length);
    this.valueStart.push(this.values.length);
    this.sampleCount++;
  }

  /**
   * The hot loop of a large profile (tens of millions of location ids): packed ids in [p, e) as
   * dense indices onto stackLocs, with 1–3 byte varints and known ids decoded inline.
   */
  private packedLocations(p: number, e: number): void {
    const b = this.bytes;
    const r = this.r;
    const ids = this.locIds;
    const locs = this.stackLocs;
    if (locs.length + (e - p) > locs.data.length) locs.grow(locs.length + (e - p));
    const data = locs.data;
    let n = locs.length;
    let dense = ids.dense;
    while (p < e) {
      const at = p;
      let v = b[p];
      if (v < 0x80) p++;
      else if (p + 1 < e && b[p + 1] < 0x80) {
        v = (v & 0x7f) | (b[p + 1] << 7);
        p += 2;
      } else if (p + 2 < e && b[p + 1] >= 0x80 && b[p + 2] < 0x80) {
        v = (v & 0x7f) | ((b[p + 1] & 0x7f) << 7) | (b[p + 2] << 14);
        p += 3;
      } else {
        r.pos = p;
        r.varint(e);
        p = r.pos;
        data[n++] = ids.get(r.hi, r.lo, at);
        dense = ids.dense;
        continue;
      }
      const i = v < dense.length ? dense[v] : -1;
      if (i >= 0) data[n++] = i;
      else {
        data[n++] = ids.get(0, v, at);
        dense = ids.dense;
      }
    }
    locs.length = n;
  }

  private label(at: number, end: number): void {
    const r = this.r;
    let key = 0;
    let s = 0;
    let num = 0;
    let unit = 0;
    while (r.pos < end) {
      const kAt = r.pos;
      const [f, wt] = this.key(end);
      if (wt === 0 && f >= 1 && f <= 4) {
        r.varint(end);
        if (f === 1) key = this.str(r.index, at);
        else if (f === 2) s = this.str(r.index, at);
        else if (f === 3) num = r.signed;
        else unit = this.str(r.index, at);
      } else r.skip(wt, end, kAt);
    }
    this.labelSample.push(this.sampleCount);
    this.labelKey.push(key);
    this.labelStr.push(s);
    this.labelNum.push(num);
    this.labelUnit.push(unit);
  }

  private mapping(at: number, end: number): void {
    const r = this.r;
    let idHi = 0;
    let idLo = 0;
    let start = 0n;
    let limit = 0n;
    let offset = 0n;
    let file = 0;
    let buildId = 0;
    const big = () => (BigInt(r.hi) << 32n) | BigInt(r.lo >>> 0);
    while (r.pos < end) {
      const kAt = r.pos;
      const [f, wt] = this.key(end);
      if (wt === 0 && f >= 1 && f <= 6) {
        r.varint(end);
        if (f === 1) [idHi, idLo] = [r.hi, r.lo >>> 0];
        else if (f === 2) start = big();
        else if (f === 3) limit = big();
        else if (f === 4) offset = big();
        else if (f === 5) file = this.str(r.index, kAt);
        else buildId = this.str(r.index, kAt);
      } else r.skip(wt, end, kAt);
    }
    const k = idKey(idHi, idLo);
    if (!this.mappingIds.has(k)) this.mappingIds.set(k, this.mappingRaw.length);
    else this.warnOnce('duplicate mapping id', at);
    this.mappingRaw.push({ start, end: limit, offset, file, buildId });
  }

  private readonly warned = new Set<string>();
  private warnOnce(what: string, at: number): void {
    if (this.warned.has(what)) return;
    this.warned.add(what);
    this.warnings.push({ message: `${what} (first at byte ${at}); later ones are ignored too`, offset: at });
  }

  private location(at: number, end: number): void {
    const r = this.r;
    let idHi = 0;
    let idLo = 0;
    let addrHi = 0;
    let addrLo = 0;
    let mapHi = 0;
    let mapLo = 0;
    const lineStart = this.lineFunc.length;
    while (r.pos < end) {
      const kAt = r.pos;
      const [f, wt] = this.key(end);
      if (f === 1 && wt === 0) {
        r.varint(end);
        idHi = r.hi;
        idLo = r.lo >>> 0;
      } else if (f === 2 && wt === 0) {
        r.varint(end);
        // Mappings may come after locations: the id is resolved in finish().
        mapHi = r.hi;
        mapLo = r.lo >>> 0;
      } else if (f === 3 && wt === 0) {
        r.varint(end);
        addrHi = r.hi;
        addrLo = r.lo >>> 0;
      } else if (f === 4 && wt === 2) {
        const e = r.length(end, kAt);
        let fn = -1;
        let line = 0;
        while (r.pos < e) {
          const lAt = r.pos;
          const [lf, lwt] = this.key(e);
          if (lf === 1 && lwt === 0) {
            r.varint(e);
            fn = r.hi === 0 && r.lo === 0 ? -1 : this.funcIds.get(r.hi, r.lo >>> 0, lAt);
          } else if (lf === 2 && lwt === 0) {
            r.varint(e);
            line = r.hi === 0 && r.lo >>> 0 <= 0xffffffff ? r.lo >>> 0 : 0;
          } else r.skip(lwt, e, lAt);
        }
        this.lineFunc.push(fn < 0 ? 0xffffffff : fn);
        this.lineNo.push(line);
      } else {
        r.skip(wt, end, kAt);
      }
    }
    const i = this.locIds.get(idHi, idLo, at);
    this.locDefined.ensure(i + 1, 0);
    if (this.locDefined.data[i]) {
      this.lineFunc.length = lineStart;
      this.lineNo.length = lineStart;
      this.warnOnce('duplicate location id', at);
      return;
    }
    this.locDefined.data[i] = 1;
    setU32(this.locAddrHi, i, addrHi);
    setU32(this.locAddrLo, i, addrLo);
    setU32(this.locMapHi, i, mapHi);
    setU32(this.locMapLo, i, mapLo);
    setU32(this.locAt, i, at);
    this.locLineStart.ensure(i + 1, 0);
    this.locLineCount.ensure(i + 1, 0);
    this.locLineStart.data[i] = lineStart;
    this.locLineCount.data[i] = this.lineFunc.length - lineStart;
  }

  private func(at: number, end: number): void {
    const r = this.r;
    let idHi = 0;
    let idLo = 0;
    let name = 0;
    let sys = 0;
    let file = 0;
    while (r.pos < end) {
      const kAt = r.pos;
      const [f, wt] = this.key(end);
      if (wt === 0 && f >= 1 && f <= 5) {
        r.varint(end);
        if (f === 1) [idHi, idLo] = [r.hi, r.lo >>> 0];
        else if (f === 2) name = this.str(r.index, kAt);
        else if (f === 3) sys = this.str(r.index, kAt);
        else if (f === 4) file = this.str(r.index, kAt);
      } else r.skip(wt, end, kAt);
    }
    const i = this.funcIds.get(idHi, idLo, at);
    this.funcDefined.ensure(i + 1, 0);
    if (this.funcDefined.data[i]) {
      this.warnOnce('duplicate function id', at);
      return;
    }
    this.funcDefined.data[i] = 1;
    this.funcName.ensure(i + 1, 0);
    this.funcSystemName.ensure(i + 1, 0);
    this.funcFile.ensure(i + 1, 0);
    this.funcName.data[i] = name;
    this.funcSystemName.data[i] = sys;
    this.funcFile.data[i] = file;
  }

  /** Checks every reference and builds the RawProfile; throws Damage where something points nowhere. */
  private finish(damage: Damage | null): RawProfile {
    if (damage) {
      this.warnings.unshift({
        message: `damaged at byte ${damage.offset}: ${damage.message}; kept what comes before it`,
        offset: damage.offset,
      });
    }
    this.checkStringTable();
    this.checkReferences();
    const nLoc = this.locIds.count;
    const strings = this.strings;
    const extraStrings = new ExtraStrings(strings.length);
    const { lines, locName } = this.locationLines(nLoc, extraStrings);
    const { sampleTypes, columns, def } = this.valueColumns();
    const labels = this.labelColumns();
    const meta = this.meta(sampleTypes, nLoc);
    const out: RawProfile = {
      format: 'pprof',
      meta,
      locations: { count: nLoc, ...this.locationAddresses(nLoc), locName },
      strings: extraStrings.list.length > 0 ? [...strings, ...extraStrings.list] : strings,
      samples: {
        count: this.sampleCount,
        stackStart: this.stackStart.finish(),
        stackLocs: this.stackLocs.finish(),
        weight: columns[def],
        values: columns,
      },
      sampleTypes,
      defaultSampleType: def,
      adjustCallers: false,
      warnings: this.warnings,
    };
    if (lines) out.lines = lines;
    if (labels) out.labels = labels;
    meta.periodUs = periodUsFor(out, def);
    return out;
  }

  /** Every string index read is in the table; string 0 is "" (fields left out default to it). */
  private checkStringTable(): void {
    const strings = this.strings;
    if (this.maxStringRef >= strings.length) {
      throw new Damage(
        `string index ${this.maxStringRef} is out of range (the string table has ${strings.length} entries)`,
        this.maxStringRefAt,
      );
    }
    if (strings.length === 0) strings.push('');
    else if (strings[0] !== '') {
      this.warnings.push({
        message: 'the string table does not start with an empty string, as profile.proto requires',
      });
    }
  }

  /**
   * Every location a sample names and every function a line names is defined (else Damage); a
   * mapping id no mapping has is only a warning (locations are named through their address).
   */
  private checkReferences(): void {
    const nLoc = this.locIds.count;
    this.locDefined.ensure(nLoc, 0);
    for (let i = 0; i < nLoc; i++) {
      if (!this.locDefined.data[i]) {
        throw new Damage(
          'a sample refers to a location id that no location has',
          this.locIds.firstAt.data[i],
        );
      }
    }
    const nFunc = this.funcIds.count;
    this.funcDefined.ensure(nFunc, 0);
    for (let i = 0; i < nFunc; i++) {
      if (!this.funcDefined.data[i]) {
        throw new Damage('a line refers to a function id that no function has', this.funcIds.firstAt.data[i]);
      }
    }
    for (let i = 0; i < nLoc; i++) {
      const hi = this.locMapHi.data[i];
      const lo = this.locMapLo.data[i];
      if ((hi !== 0 || lo !== 0) && !this.mappingIds.has(idKey(hi, lo))) {
        if (this.mappingMissing++ === 0) this.mappingMissingAt = this.locAt.data[i];
      }
    }
    if (this.mappingMissing > 0) {
      this.warnings.push({
        message: `${this.mappingMissing} locations refer to a mapping id that no mapping has`,
        offset: this.mappingMissingAt,
      });
    }
  }

  /**
   * The locations' lines, outermost first (pprof stores the innermost inlined callee first), and
   * each location's name: its outermost function (-1 without lines).
   */
  private locationLines(nLoc: number, extra: ExtraStrings): { lines?: LocationLines; locName: Int32Array } {
    const locName = new Int32Array(nLoc).fill(-1);
    const nLines = this.lineFunc.length;
    if (nLines === 0) return { locName };
    // A name that is the empty string, at index 0 or another, is no name (as pprof shows it).
    const named = (i: number) => i !== 0 && this.strings[i] !== '';
    const nameOf = (fn: number): number => {
      if (fn === 0xffffffff) return extra.id('[unknown]');
      const n = this.funcName.data[fn];
      if (named(n)) return n;
      const s = this.funcSystemName.data[fn];
      return named(s) ? s : extra.id('[unknown]');
    };
    const start = new Uint32Array(nLoc + 1);
    const name = new Int32Array(nLines);
    const file = new Int32Array(nLines);
    const line = new Uint32Array(nLines);
    let k = 0;
    for (let i = 0; i < nLoc; i++) {
      start[i] = k;
      const s = this.locLineStart.data[i];
      const n = this.locLineCount.data[i];
      for (let j = s + n - 1; j >= s; j--) {
        const fn = this.lineFunc.data[j];
        name[k] = nameOf(fn);
        const f = fn === 0xffffffff ? 0 : this.funcFile.data[fn];
        file[k] = f === 0 ? -1 : f;
        line[k] = this.lineNo.data[j];
        k++;
      }
      if (n > 0) locName[i] = name[start[i]];
    }
    start[nLoc] = k;
    return { lines: { start, name, file, line }, locName };
  }

  /** The locations' addresses as uint32 halves; hasAddr where the address is not 0. */
  private locationAddresses(nLoc: number): { addrHi: Uint32Array; addrLo: Uint32Array; hasAddr: Uint8Array } {
    const hasAddr = new Uint8Array(nLoc);
    const addrHi = new Uint32Array(nLoc);
    const addrLo = new Uint32Array(nLoc);
    addrHi.set(this.locAddrHi.data.subarray(0, nLoc));
    addrLo.set(this.locAddrLo.data.subarray(0, nLoc));
    for (let i = 0; i < nLoc; i++) hasAddr[i] = addrHi[i] !== 0 || addrLo[i] !== 0 ? 1 : 0;
    return { addrHi, addrLo, hasAddr };
  }

  /**
   * One value column per sample type (a sample with fewer values gets 0s, and a warning), and the
   * default column: default_sample_type when it names one, else the last (pprof's rule).
   */
  private valueColumns(): { sampleTypes: SampleType[]; columns: Float64Array[]; def: number } {
    const strings = this.strings;
    const warnings = this.warnings;
    const nTypes = this.sampleTypes.length;
    const sampleTypes: SampleType[] = this.sampleTypes.map(([t, u]) => ({
      type: strings[t],
      unit: strings[u],
    }));
    const n = this.sampleCount;
    const columns: Float64Array[] = [];
    const nCols = Math.max(1, nTypes);
    if (nCols * n > 16 * this.bytes.length + (1 << 20)) {
      // a column per sample type: never more memory than a multiple of the file's size
      throw new Damage(`${nTypes} sample types for ${n} samples: far more than the file holds`, 0);
    }
    for (let t = 0; t < nCols; t++) columns.push(new Float64Array(n));
    const vs = this.valueStart.data;
    const vals = this.values.data;
    for (let s = 0; s < n; s++) {
      const a = vs[s];
      const cnt = vs[s + 1] - a;
      if (cnt !== nTypes) this.valueCountMismatch++;
      const m = Math.min(cnt, nCols);
      for (let t = 0; t < m; t++) columns[t][s] = vals[a + t];
    }
    if (nTypes === 0) {
      warnings.push({ message: 'the profile has no sample_type: the first value of each sample is shown' });
      sampleTypes.push({ type: 'samples', unit: 'count' });
    }
    if (this.valueCountMismatch > 0 && nTypes > 0) {
      warnings.push({
        message: `${this.valueCountMismatch === 1 ? '1 sample does' : `${this.valueCountMismatch} samples do`} not have one value per sample type (${nTypes}); missing values count as 0`,
      });
    }
    let def = sampleTypes.length - 1;
    if (this.defaultType !== 0) {
      const want = strings[this.defaultType];
      const i = sampleTypes.findIndex((t) => t.type === want);
      if (i >= 0) def = i;
      else {
        warnings.push({
          message: `default_sample_type "${want}" is not a sample type; showing the last one`,
          offset: this.defaultTypeAt,
        });
      }
    }
    return { sampleTypes, columns, def };
  }

  /** One column per label key (string or number, with its unit), or undefined without labels. */
  private labelColumns(): SampleLabel[] | undefined {
    const nLabels = this.labelSample.length;
    if (nLabels === 0) return undefined;
    const strings = this.strings;
    const n = this.sampleCount;
    const byKey = new Map<number, { isString: boolean; unit: number }>();
    for (let i = 0; i < nLabels; i++) {
      const k = this.labelKey.data[i];
      const e = byKey.get(k) ?? { isString: false, unit: 0 };
      if (this.labelStr.data[i] !== 0) e.isString = true;
      if (this.labelUnit.data[i] !== 0) e.unit = this.labelUnit.data[i];
      byKey.set(k, e);
    }
    const labels: SampleLabel[] = [];
    const col = new Map<number, SampleLabel>();
    // A column per key per sample: a file with many keys and many samples could ask for far more
    // memory than its size, so keys beyond a budget proportional to the file are left out.
    const budget = 16 * this.bytes.length + (1 << 20);
    let dropped = 0;
    for (const [k, e] of byKey) {
      if ((col.size + 1) * n > budget) {
        dropped++;
        continue;
      }
      const key = strings[k];
      const l: SampleLabel = e.isString
        ? { key, kind: 'string', value: new Int32Array(n).fill(-1) }
        : { key, kind: 'number', value: new Float64Array(n).fill(Number.NaN) };
      if (l.kind === 'number' && e.unit !== 0) l.unit = strings[e.unit];
      col.set(k, l);
      labels.push(l);
    }
    if (dropped > 0)
      this.warnings.push({ message: `${dropped} label keys left out (too many labels for the file size)` });
    for (let i = nLabels - 1; i >= 0; i--) {
      // backwards, so the first label of a key in a sample wins
      const l = col.get(this.labelKey.data[i]);
      if (!l) continue;
      const s = this.labelSample.data[i];
      if (l.kind === 'string') l.value[s] = this.labelStr.data[i];
      else l.value[s] = this.labelNum.data[i];
    }
    return labels;
  }

  /** The mappings, period, drop/keep frames, times, comments and the summary for `info` (periodUs is set last). */
  private meta(sampleTypes: SampleType[], nLoc: number): RawMeta {
    const strings = this.strings;
    const mappings: Mapping[] = this.mappingRaw.map((m) => {
      const out: Mapping = { start: m.start, end: m.end, offset: m.offset, path: strings[m.file] };
      if (m.buildId !== 0) out.buildId = strings[m.buildId];
      return out;
    });
    const meta: RawMeta = { periodUs: 0, mappings };
    if (this.periodType) {
      meta.period = {
        value: this.period,
        type: { type: strings[this.periodType[0]], unit: strings[this.periodType[1]] },
      };
    } else if (this.period !== 0) {
      meta.period = { value: this.period, type: { type: '', unit: '' } };
    }
    if (this.dropFrames !== 0) meta.dropFrames = strings[this.dropFrames];
    if (this.keepFrames !== 0) meta.keepFrames = strings[this.keepFrames];
    if (this.timeNanos !== 0) meta.timeNs = this.timeNanos;
    if (this.durationNanos !== 0) meta.durationNs = this.durationNanos;
    if (this.comments.length > 0) meta.comments = this.comments.map((c) => strings[c]);
    meta.extra = {
      'sample types': sampleTypes.map((t) => `${t.type}/${t.unit}`).join(', '),
      locations: String(nLoc),
      functions: String(this.funcIds.count),
    };
    return meta;
  }
}

/** Strings the parser adds after the file's string table (`[unknown]` for a nameless function). */
class ExtraStrings {
  readonly list: string[] = [];
  constructor(private readonly base: number) {}

  /** The string id of `s`, added on first use. */
  id(s: string): number {
    let i = this.list.indexOf(s);
    if (i < 0) {
      i = this.list.length;
      this.list.push(s);
    }
    return this.base + i;
  }
}

function setU32(b: U32Builder, i: number, v: number): void {
  if (i >= b.length) {
    if (i >= b.data.length) b.grow(i + 1);
    b.data.fill(0, b.length, i + 1);
    b.length = i + 1;
  }
  b.data[i] = v;
}
