// FoldedProfile → gzipped profile.proto (what `go tool pprof` and every pprof viewer reads).
//
// One Location per frame. A frame that is an unsymbolized address (`MODULE+0xOFFSET` in a module
// whose mapping is known) gets its run-time address back and no Line, so pprof can symbolize it
// with the binary and our reader names it as before; any other frame gets address 0, a Function
// named after it and a Line. One Mapping per module (addresses from the profile's mappings when
// known; has_functions set when all its locations are named, so pprof leaves them alone).
// Samples: with the parsed profile the folded one came from (`PprofWriteOptions.source`), one per
// sample of it that the fold kept, on its folded stack, with every sample type's value and its
// labels (so counts of samples per label stay), the view's type as default_sample_type; without
// it, one per folded stack with its weight as the one value (the profile's sample type, or
// samples/count). A count of samples at a known period (gperftools CPU) gets pprof's
// cpu/nanoseconds column beside it, the default, as pprof's legacy reader makes it.
// Period: FoldedMeta.period, else cpu/nanoseconds from periodUs when it is known, else for a heap
// profile space/bytes 1 (as Go's legacy heap reader: every allocation recorded).

import { gzipSync } from 'fflate';
import { bigOf } from '../address.ts';
import { sampleTypesOf } from '../model/sample-types.ts';
import { frameName } from '../text/frame-text.ts';
import { type FoldedProfile, FrameKind, type RawProfile, SAMPLES_COUNT, type SampleType } from '../types.ts';

/** A growable protobuf byte buffer (also the benchmark's generator of pprof files). */
export class Writer {
  buf = new Uint8Array(1 << 16);
  len = 0;

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }

  /** A non-negative integer up to 2^53. */
  varint(v: number): void {
    this.room(10);
    const b = this.buf;
    let n = v;
    while (n >= 0x80) {
      b[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    b[this.len++] = n;
  }

  /** A uint64 given as a bigint (masked to 64 bits). */
  varintBig(v: bigint): void {
    let n = BigInt.asUintN(64, v);
    this.room(10);
    while (n >= 0x80n) {
      this.buf[this.len++] = Number(n & 0x7fn) | 0x80;
      n >>= 7n;
    }
    this.buf[this.len++] = Number(n);
  }

  /**
   * An int64 (negative values as ten-byte two's complement), rounded; past int64's range it is
   * its bound (a wrapped value would read as another sign), and a value that is no number throws
   * (readers leave such samples out: formats/sanitize.ts).
   */
  int64(v: number): void {
    if (Number.isNaN(v)) throw new Error('pprof writer: a value that is not a number');
    const n = Math.round(v);
    if (n >= 0 && n <= Number.MAX_SAFE_INTEGER) this.varint(n);
    else if (n >= 2 ** 63) this.varintBig((1n << 63n) - 1n);
    else if (n < -(2 ** 63)) this.varintBig(-(1n << 63n));
    else this.varintBig(BigInt(n));
  }

  key(field: number, wt: number): void {
    this.varint((field << 3) | wt);
  }

  uint(field: number, v: number): void {
    if (v === 0) return;
    this.key(field, 0);
    this.varint(v);
  }

  bytes(field: number, data: Uint8Array, n = data.length): void {
    this.key(field, 2);
    this.varint(n);
    this.room(n);
    this.buf.set(data.subarray(0, n), this.len);
    this.len += n;
  }

  /** A submessage written by `body` into `scratch` (cleared first). */
  message(field: number, scratch: Writer, body: (w: Writer) => void): void {
    scratch.len = 0;
    body(scratch);
    this.bytes(field, scratch.buf, scratch.len);
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

export interface PprofWriteOptions {
  /** gzip the output (default true), as `.pb.gz`. */
  gzip?: boolean;
  /**
   * The parsed profile the folded one was folded from, and where each of its samples went: its
   * samples are written, each with every sample type's value and its labels, not the folded weights.
   */
  source?: PprofSource;
}

export interface PprofSource {
  raw: RawProfile;
  /** Per sample of `raw`, its stack in the folded profile (−1: left out). */
  stackOf: Int32Array;
  /** The sample type shown, written as the default (default_sample_type). */
  sampleType: number;
}

/**
 * A profile.proto string table: `strings` in index order (index 0 is ""), and `str`, which gives a
 * string's index, adding it when new.
 */
export function stringTable(): { strings: string[]; str: (s: string) => number } {
  const strings: string[] = [''];
  const ids = new Map<string, number>([['', 0]]);
  const str = (s: string): number => {
    let i = ids.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      ids.set(s, i);
    }
    return i;
  };
  return { strings, str };
}

const CPU_NANOSECONDS: SampleType = { type: 'cpu', unit: 'nanoseconds' };

/**
 * The period in nanoseconds of a profile that only counts samples at a known period (a gperftools
 * CPU profile: one `samples/count` column, periodUs from its header, no pprof period of its own),
 * else 0. pprof's legacy reader (profile/legacy_profile.go `cpuProfile`) makes such a profile
 * `samples/count` and `cpu/nanoseconds` (count × period) with the period `cpu/nanoseconds`, so
 * `go tool pprof` reads it as CPU time: the export says the same.
 */
function legacyCpuPeriodNs(
  types: readonly SampleType[],
  meta: { periodUs: number; period?: { value: number } },
): number {
  if (types.length !== 1 || types[0].type !== SAMPLES_COUNT.type || types[0].unit !== SAMPLES_COUNT.unit)
    return 0;
  if (meta.period || !(meta.periodUs > 0)) return 0;
  return Math.round(meta.periodUs * 1000);
}

/** count × periodNs as an int64, exact past 2^53. */
function timesPeriod(w: Writer, count: number, periodNs: number): void {
  const v = count * periodNs;
  if (Number.isSafeInteger(v) || !Number.isSafeInteger(count)) w.int64(v);
  else w.varintBig(BigInt(count) * BigInt(periodNs));
}

/** The profile as profile.proto bytes, gzipped unless `opts.gzip` is false. */
export function writePprof(p: FoldedProfile, opts: PprofWriteOptions = {}): Uint8Array {
  const { strings, str } = stringTable();
  const out = new Writer();
  const sub = new Writer();
  const sub2 = new Writer();
  const meta = p.meta;

  // sample_type: the source's every type, else the folded profile's own; a count of samples at a
  // known period (gperftools CPU) with pprof's cpu/nanoseconds beside it
  const src = opts.source;
  const types = src ? [...sampleTypesOf(src.raw)] : [meta.sampleType ?? SAMPLES_COUNT];
  const cpuNs = legacyCpuPeriodNs(types, src ? src.raw.meta : meta);
  if (cpuNs > 0) types.push(CPU_NANOSECONDS);
  for (const t of types)
    out.message(1, sub, (w) => {
      w.uint(1, str(t.type));
      w.uint(2, str(t.unit));
    });

  // samples: location ids leaf first (location id = frame id + 1), values, labels
  const { start, frames, weight } = p.stacks;
  const writeSample = (s: number, values: (w: Writer) => void, labels?: (w: Writer) => void) =>
    out.message(2, sub, (w) => {
      if (start[s + 1] > start[s]) {
        sub2.len = 0;
        for (let k = start[s + 1] - 1; k >= start[s]; k--) sub2.varint(frames[k] + 1);
        w.bytes(1, sub2.buf, sub2.len);
      }
      sub2.len = 0;
      values(sub2);
      w.bytes(2, sub2.buf, sub2.len);
      labels?.(w);
    });
  if (!src) {
    for (let s = 0; s < p.stacks.count; s++)
      writeSample(s, (v) => {
        v.int64(weight[s]);
        if (cpuNs > 0) timesPeriod(v, weight[s], cpuNs);
      });
  } else {
    const raw = src.raw;
    const columns = raw.samples.values ?? [raw.samples.weight];
    const labels = (raw.labels ?? []).map((l) => ({
      l,
      key: str(l.key),
      unit: l.kind === 'number' && l.unit !== undefined ? str(l.unit) : 0,
    }));
    const label = new Writer();
    for (let s = 0; s < raw.samples.count; s++) {
      const stack = src.stackOf[s];
      if (stack < 0) continue;
      writeSample(
        stack,
        (v) => {
          for (const column of columns) v.int64(column[s]);
          if (cpuNs > 0) timesPeriod(v, columns[0][s], cpuNs);
        },
        (w) => {
          for (const { l, key, unit } of labels) {
            const value = l.value[s];
            if (l.kind === 'string' ? value < 0 : Number.isNaN(value)) continue;
            w.message(3, label, (x) => {
              x.uint(1, key);
              if (l.kind === 'string') x.uint(2, str(raw.strings[value]));
              else {
                x.key(3, 0);
                x.int64(value);
                x.uint(4, unit);
              }
            });
          }
        },
      );
    }
  }

  // unsymbolized frames (an address no function names): their addresses, where the module's
  // mapping is known (the frame holds its offset in the module's file)
  const known = p.modules.map((path) => meta.mappings.find((x) => x.path === path));
  const addresses: (bigint | undefined)[] = new Array(p.frames.count);
  const named = new Uint8Array(p.modules.length).fill(1);
  const { kind, func, addrHi, addrLo } = p.frames;
  for (let f = 0; f < p.frames.count; f++) {
    const m = p.frames.module[f];
    const k = m >= 0 ? known[m] : undefined;
    if (!k || kind[f] !== FrameKind.Address || (func?.[f] ?? -1) >= 0) continue;
    const start = BigInt(k.start);
    const addr = start + bigOf(addrHi?.[f] ?? 0, addrLo?.[f] ?? 0) - BigInt(k.offset);
    // 0 is no address in profile.proto (such a frame keeps its name, as a function's); nor is an
    // address that another mapping covers too (overlapping mappings of a damaged or crafted
    // file): read back, it could be named by the other one.
    if (addr === 0n || addr < start || addr >= BigInt(k.end)) continue;
    let covering = 0;
    for (const x of meta.mappings) if (addr >= BigInt(x.start) && addr < BigInt(x.end)) covering++;
    if (covering !== 1) continue;
    addresses[f] = addr;
    named[m] = 0;
  }

  // mappings: one per module, with the addresses of the profile's mapping of that path if any
  for (let m = 0; m < p.modules.length; m++) {
    const path = p.modules[m];
    const k = known[m];
    out.message(3, sub, (w) => {
      w.uint(1, m + 1);
      if (k) {
        for (const [f, v] of [
          [2, k.start],
          [3, k.end],
          [4, k.offset],
        ] as const) {
          const b = BigInt(v);
          if (b !== 0n) {
            w.key(f, 0);
            w.varintBig(b);
          }
        }
      }
      w.uint(5, str(path));
      if (k?.buildId) w.uint(6, str(k.buildId));
      w.uint(7, named[m]); // has_functions
    });
  }

  // locations and functions: one per frame
  const n = p.frames.count;
  for (let f = 0; f < n; f++) {
    const addr = addresses[f];
    out.message(4, sub, (w) => {
      w.uint(1, f + 1);
      w.uint(2, p.frames.module[f] + 1);
      if (addr !== undefined) {
        w.key(3, 0);
        w.varintBig(addr);
      } else w.message(4, sub2, (l) => l.uint(1, f + 1));
    });
  }
  for (let f = 0; f < n; f++) {
    if (addresses[f] !== undefined) continue;
    out.message(5, sub, (w) => {
      w.uint(1, f + 1);
      const name = str(frameName(p.frames, f));
      w.uint(2, name);
      w.uint(3, name);
    });
  }

  // period (before the string table, which must hold its strings)
  let periodType: { type: string; unit: string } | null = null;
  let period = 0;
  if (meta.period && meta.period.type.type !== '') {
    periodType = meta.period.type;
    period = meta.period.value;
  } else if (meta.periodUs > 0 && !src) {
    periodType = { type: 'cpu', unit: 'nanoseconds' };
    period = Math.round(meta.periodUs * 1000);
  } else if (src && src.raw.meta.periodUs > 0 && !src.raw.sampleTypes) {
    // A profile of sample counts with a sampling period (gperftools CPU): the period is time.
    periodType = { type: 'cpu', unit: 'nanoseconds' };
    period = Math.round(src.raw.meta.periodUs * 1000);
  } else if (meta.format === 'heap') {
    periodType = { type: 'space', unit: 'bytes' };
    period = 1;
  }
  const periodIdx = periodType ? [str(periodType.type), str(periodType.unit)] : null;
  // the view's type; none where cpu was added, as pprof's reading of the .prof and its `-proto`
  // of it have none: pprof takes the last type (cpu)
  const defaultType = cpuNs === 0 && src ? str(types[src.sampleType].type) : 0;
  const comment = str(`written by flamelens from ${meta.fileName} (${meta.format})`);

  const enc = new TextEncoder();
  for (const s of strings) out.bytes(6, enc.encode(s));
  if (periodIdx) {
    out.message(11, sub, (w) => {
      w.uint(1, periodIdx[0]);
      w.uint(2, periodIdx[1]);
    });
    if (period !== 0) {
      out.key(12, 0);
      out.int64(period);
    }
  }
  if (meta.timeNs !== undefined && meta.timeNs > 0) {
    out.key(9, 0);
    out.int64(meta.timeNs);
  }
  if (meta.durationNs !== undefined && meta.durationNs > 0) {
    out.key(10, 0);
    out.int64(meta.durationNs);
  }
  out.key(13, 0);
  out.varint(comment);
  if (defaultType !== 0) {
    out.key(14, 0);
    out.varint(defaultType);
  }

  const bytes = out.finish();
  return opts.gzip === false ? bytes : gzipSync(bytes);
}
