// Flamelens snapshot: a parsed profile (RawProfile) as it is, in one file. HTML reports carry their
// profiles this way (export/report.ts): the profile with its symbols' names already written in
// (model/resolve.ts), so it opens with the same frames, every sample type, every label, its
// mappings and its metadata, through the same importer path as any dropped file.
//
// Layout (gzipped as a whole when written; detect.ts looks through gzip):
//   "FLAMELENS SNAPSHOT 1\n"  u32 LE n  n bytes of UTF-8 JSON  then the typed arrays' bytes, each
//   starting at a multiple of 8 (little endian).
// The JSON is the RawProfile with each typed array replaced by {"$a": i} (i indexes the header's
// `arrays`: element type and length), each bigint by {"$b": "hex"}, and `embeddedSymbols` by a
// table (addresses, and per address names indexing a string table), with `embeddedLines` (per
// address frames: name, file, line) and `embeddedOffsets` (per address a number) beside it in
// `lines` and `offsets`, when the profile has them. Everything read is checked
// against the RawProfile contract before it is returned: a damaged or forged file is a
// ProfileError, never an index out of range later.

import { gunzipSync, gzipSync } from 'fflate';
import type { FormatId, RawProfile, SymbolFrame } from '../types.ts';
import { ProfileError } from '../types.ts';

const MAGIC = 'FLAMELENS SNAPSHOT 1\n';
const MAGIC_BYTES = new TextEncoder().encode(MAGIC);
const FORMAT: FormatId = 'snapshot';

type ArrayKind = 'u8' | 'u32' | 'i32' | 'f64';
type Typed = Uint8Array | Uint32Array | Int32Array | Float64Array;
const CTORS = { u8: Uint8Array, u32: Uint32Array, i32: Int32Array, f64: Float64Array } as const;

function kindOf(a: Typed): ArrayKind {
  if (a instanceof Uint8Array) return 'u8';
  if (a instanceof Uint32Array) return 'u32';
  if (a instanceof Int32Array) return 'i32';
  return 'f64';
}

export function looksLikeSnapshot(bytes: Uint8Array): boolean {
  if (bytes.length < MAGIC_BYTES.length) return false;
  for (let i = 0; i < MAGIC_BYTES.length; i++) if (bytes[i] !== MAGIC_BYTES[i]) return false;
  return true;
}

/** The profile as a snapshot file, gzipped. */
export function writeSnapshot(raw: RawProfile): Uint8Array {
  const arrays: Typed[] = [];
  const put = (a: Typed) => ({ $a: arrays.push(a) - 1 });
  const { embeddedSymbols, embeddedLines, embeddedOffsets, ...rest } = raw;
  const json = JSON.stringify(rest, (_key, v: unknown) => {
    if (typeof v === 'bigint') return { $b: v.toString(16) };
    if (ArrayBuffer.isView(v)) return put(v as Typed);
    return v;
  });
  let embedded: unknown;
  if (embeddedSymbols?.size || embeddedLines?.size || embeddedOffsets?.size) {
    // Names repeat over the addresses of a function: a table of names, indexed per address.
    const names: string[] = [];
    const ids = new Map<string, number>();
    const str = (n: string) => {
      let id = ids.get(n);
      if (id === undefined) ids.set(n, (id = names.push(n) - 1));
      return id;
    };
    const chains = (map: Map<string, readonly (string | SymbolFrame)[]>) => {
      const keys: string[] = [];
      const start = [0];
      const [name, file, line]: number[][] = [[], [], []];
      for (const [k, list] of map) {
        keys.push(k);
        for (const f of list) {
          name.push(str(typeof f === 'string' ? f : f.name));
          if (typeof f !== 'string') {
            file.push(f.file === undefined ? -1 : str(f.file));
            line.push(f.line ?? 0);
          }
        }
        start.push(name.length);
      }
      const table = { keys, start: put(Uint32Array.from(start)), name: put(Uint32Array.from(name)) };
      return map === embeddedLines
        ? { ...table, file: put(Int32Array.from(file)), line: put(Uint32Array.from(line)) }
        : table;
    };
    embedded = {
      ...chains(embeddedSymbols ?? new Map()),
      names,
      ...(embeddedLines?.size && { lines: chains(embeddedLines) }),
      ...(embeddedOffsets?.size && {
        offsets: {
          keys: [...embeddedOffsets.keys()],
          offset: put(Float64Array.from(embeddedOffsets.values())),
        },
      }),
    };
  }
  const header = new TextEncoder().encode(
    JSON.stringify({
      raw: JSON.parse(json) as unknown,
      embedded,
      arrays: arrays.map((a) => [kindOf(a), a.length]),
    }),
  );
  let size = MAGIC_BYTES.length + 4 + header.length;
  const offsets: number[] = [];
  for (const a of arrays) {
    size = Math.ceil(size / 8) * 8;
    offsets.push(size);
    size += a.byteLength;
  }
  const out = new Uint8Array(size);
  out.set(MAGIC_BYTES, 0);
  new DataView(out.buffer).setUint32(MAGIC_BYTES.length, header.length, true);
  out.set(header, MAGIC_BYTES.length + 4);
  arrays.forEach((a, i) => {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), offsets[i]);
  });
  return gzipSync(out, { level: 6 });
}

const bad = (why: string): ProfileError => new ProfileError(`damaged Flamelens snapshot: ${why}`, FORMAT);

/** Reads a snapshot (gunzipped bytes). */
/**
 * What a written snapshot reads back differently from `raw` (null when nothing): read again
 * before an HTML report is offered, so a report that would not reopen is never handed out.
 * Compares the samples (count, stacks, every value) and the locations' addresses.
 */
export function snapshotMismatch(raw: RawProfile, written: Uint8Array): string | null {
  let back: RawProfile;
  try {
    back = parseSnapshot(gunzipSync(written));
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  const a = raw.samples;
  const b = back.samples;
  if (a.count !== b.count) return `${b.count} samples read back of ${a.count}`;
  const same = (x: ArrayLike<number>, y: ArrayLike<number>) => {
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++)
      if (x[i] !== y[i] && !(Number.isNaN(x[i]) && Number.isNaN(y[i]))) return false;
    return true;
  };
  if (!same(a.stackStart, b.stackStart) || !same(a.stackLocs, b.stackLocs)) return 'the stacks differ';
  if (!same(a.weight, b.weight)) return 'the sample values differ';
  const av = a.values ?? [];
  const bv = b.values ?? [];
  if (av.length !== bv.length || av.some((v, i) => !same(v, bv[i]))) return 'the sample values differ';
  const la = raw.locations;
  const lb = back.locations;
  if (la.count !== lb.count || !same(la.addrHi, lb.addrHi) || !same(la.addrLo, lb.addrLo))
    return 'the locations differ';
  return null;
}

export function parseSnapshot(bytes: Uint8Array): RawProfile {
  if (!looksLikeSnapshot(bytes)) throw bad('no snapshot header');
  const at = MAGIC_BYTES.length;
  if (bytes.length < at + 4) throw bad('cut short');
  const n = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0, true);
  if (at + 4 + n > bytes.length) throw bad('cut short');
  let header: { raw?: unknown; embedded?: unknown; arrays?: unknown };
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(at + 4, at + 4 + n)));
  } catch (e) {
    throw bad(`unreadable header (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!isObject(header) || !Array.isArray(header.arrays)) throw bad('no array table');
  const arrays: Typed[] = [];
  let offset = at + 4 + n;
  for (const entry of header.arrays as unknown[]) {
    if (!Array.isArray(entry) || !(entry[0] in CTORS) || !isCount(entry[1])) throw bad('bad array table');
    const Ctor = CTORS[entry[0] as ArrayKind];
    offset = Math.ceil(offset / 8) * 8;
    const byteLength = (entry[1] as number) * Ctor.BYTES_PER_ELEMENT;
    if (offset + byteLength > bytes.length) throw bad('cut short');
    // A copy, aligned for its element type.
    const copy = bytes.slice(offset, offset + byteLength);
    arrays.push(new Ctor(copy.buffer, 0, entry[1] as number));
    offset += byteLength;
  }
  const used = new Set<number>();
  const revive = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(revive);
    if (!isObject(v)) return v;
    if ('$a' in v) {
      const i = v.$a;
      if (typeof i !== 'number' || !(i in arrays) || used.has(i)) throw bad('bad array reference');
      used.add(i);
      return arrays[i];
    }
    if ('$b' in v) {
      if (typeof v.$b !== 'string' || !/^-?[0-9a-f]{1,16}$/.test(v.$b)) throw bad('bad address');
      return v.$b.startsWith('-') ? -BigInt(`0x${v.$b.slice(1)}`) : BigInt(`0x${v.$b}`);
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (k !== '__proto__') out[k] = revive(x);
    return out;
  };
  const raw = revive(header.raw) as RawProfile;
  if (!isObject(raw)) throw bad('no profile');
  if (header.embedded !== undefined) Object.assign(raw, embeddedOf(revive(header.embedded)));
  checkRaw(raw);
  // Stack entries past the last stack's end are no stack's: left out, as every importer leaves them.
  const entries = raw.samples.stackStart[raw.samples.count];
  if (raw.samples.stackLocs.length > entries)
    raw.samples.stackLocs = raw.samples.stackLocs.subarray(0, entries);
  return raw;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 2 ** 32;
}

function embeddedOf(e: unknown): Pick<RawProfile, 'embeddedSymbols' | 'embeddedLines' | 'embeddedOffsets'> {
  const table = 'bad symbol table';
  if (!isObject(e)) throw bad(table);
  const { names } = e;
  if (!Array.isArray(names) || !names.every((x) => typeof x === 'string')) throw bad(table);
  const out: Pick<RawProfile, 'embeddedSymbols' | 'embeddedLines' | 'embeddedOffsets'> = {};
  const symbols = chainsOf(e, names as string[], (_k, n) => n);
  if (symbols.size > 0) out.embeddedSymbols = symbols;
  if (e.lines !== undefined) {
    const t = e.lines;
    if (!isObject(t) || !(t.file instanceof Int32Array) || !(t.line instanceof Uint32Array)) throw bad(table);
    const { file, line } = t;
    if (!(t.name instanceof Uint32Array) || file.length !== t.name.length || line.length !== t.name.length)
      throw bad(table);
    if (!file.every((f) => f >= -1 && f < names.length)) throw bad(table);
    out.embeddedLines = chainsOf(
      t,
      names as string[],
      (k, n): SymbolFrame => ({
        name: n,
        ...(file[k] >= 0 && { file: names[file[k]] as string }),
        ...(line[k] !== 0 && { line: line[k] }),
      }),
    );
  }
  if (e.offsets !== undefined) {
    const t = e.offsets;
    if (!isObject(t) || !Array.isArray(t.keys) || !(t.offset instanceof Float64Array)) throw bad(table);
    const { keys, offset } = t;
    if (keys.length !== offset.length || !keys.every((k) => typeof k === 'string')) throw bad(table);
    if (!offset.every((x) => Number.isSafeInteger(x) && x >= 0)) throw bad(table);
    out.embeddedOffsets = new Map(keys.map((k, i) => [k as string, offset[i]]));
  }
  return out;
}

/** A table of per-address chains (`keys`, `start`, `name` indexing `names`), each entry `k` made by `entry`. */
function chainsOf<T>(
  t: Record<string, unknown>,
  names: string[],
  entry: (k: number, name: string) => T,
): Map<string, T[]> {
  const { keys, start, name } = t;
  if (!Array.isArray(keys) || !(start instanceof Uint32Array) || !(name instanceof Uint32Array))
    throw bad('bad symbol table');
  if (start.length !== keys.length + 1) throw bad('bad symbol table');
  const map = new Map<string, T[]>();
  for (let i = 0; i < keys.length; i++) {
    const [a, b] = [start[i], start[i + 1]];
    if (typeof keys[i] !== 'string' || a > b || b > name.length) throw bad('bad symbol table');
    const list: T[] = [];
    for (let k = a; k < b; k++) {
      if (name[k] >= names.length) throw bad('bad symbol table');
      list.push(entry(k, names[name[k]]));
    }
    map.set(keys[i], list);
  }
  return map;
}

const FORMATS = new Set<string>([
  'gperftools',
  'folded',
  'dcpi',
  'pprof-raw',
  'pprof',
  'heap',
  'perf-script',
  'perf-data',
  'folded-diff',
]);

/** Checks what the fold and the views rely on: types, lengths, and every index in range. */
function checkRaw(raw: RawProfile): void {
  const need = (ok: boolean, what: string) => {
    if (!ok) throw bad(what);
  };
  need(isObject(raw), 'no profile');
  need(typeof raw.format === 'string' && FORMATS.has(raw.format), 'unknown format');
  need(Array.isArray(raw.strings) && raw.strings.every((s) => typeof s === 'string'), 'bad strings');
  const nStrings = raw.strings.length;
  const inStrings = (a: Int32Array, min: number) => a.every((x) => x >= min && x < nStrings);
  const meta = raw.meta;
  need(isObject(meta) && typeof meta.periodUs === 'number' && Array.isArray(meta.mappings), 'bad metadata');
  for (const m of meta.mappings)
    need(
      isObject(m) &&
        typeof m.start === 'bigint' &&
        typeof m.end === 'bigint' &&
        typeof m.offset === 'bigint' &&
        typeof m.path === 'string',
      'bad mapping',
    );
  checkMeta(meta, need);
  need(
    Array.isArray(raw.warnings) && raw.warnings.every((w) => isObject(w) && typeof w.message === 'string'),
    'bad warnings',
  );
  need(raw.flat === undefined || typeof raw.flat === 'boolean', 'bad flat flag');
  need(raw.diffPair === undefined || typeof raw.diffPair === 'boolean', 'bad comparison flag');
  need(typeof raw.adjustCallers === 'boolean', 'bad caller flag');
  need(raw.adjustLeaves === undefined || typeof raw.adjustLeaves === 'boolean', 'bad leaf flag');

  const locs = raw.locations;
  need(isObject(locs) && isCount(locs.count), 'bad locations');
  const nLocs = locs.count;
  need(
    locs.addrHi instanceof Uint32Array &&
      locs.addrLo instanceof Uint32Array &&
      locs.hasAddr instanceof Uint8Array &&
      locs.locName instanceof Int32Array,
    'bad locations',
  );
  need(
    locs.addrHi.length >= nLocs &&
      locs.addrLo.length >= nLocs &&
      locs.hasAddr.length >= nLocs &&
      locs.locName.length >= nLocs,
    'locations cut short',
  );
  need(inStrings(locs.locName.subarray(0, nLocs), -1), 'location name out of range');

  const s = raw.samples;
  need(isObject(s) && isCount(s.count), 'bad samples');
  need(
    s.stackStart instanceof Uint32Array &&
      s.stackLocs instanceof Uint32Array &&
      s.weight instanceof Float64Array,
    'bad samples',
  );
  need(s.stackStart.length >= s.count + 1 && s.weight.length >= s.count, 'samples cut short');
  const finite = (col: Float64Array) => col.subarray(0, s.count).every(Number.isFinite);
  need(finite(s.weight), 'a sample value is not a number');
  if (s.time !== undefined)
    need(s.time instanceof Float64Array && s.time.length >= s.count, 'bad sample times');
  need(s.stackStart[0] === 0 && s.stackStart[s.count] <= s.stackLocs.length, 'bad stacks');
  for (let i = 0; i < s.count; i++) need(s.stackStart[i] <= s.stackStart[i + 1], 'bad stacks');
  for (let i = 0; i < s.stackStart[s.count]; i++) need(s.stackLocs[i] < nLocs, 'stack location out of range');
  const nTypes = raw.sampleTypes?.length ?? 1;
  if (raw.sampleTypes !== undefined)
    need(
      Array.isArray(raw.sampleTypes) &&
        raw.sampleTypes.every((t) => isObject(t) && typeof t.type === 'string' && typeof t.unit === 'string'),
      'bad sample types',
    );
  if (s.values !== undefined) {
    need(Array.isArray(s.values) && s.values.length === nTypes, 'bad value columns');
    for (const col of s.values)
      need(col instanceof Float64Array && col.length >= s.count, 'bad value column');
  }
  if (raw.defaultSampleType !== undefined)
    need(isCount(raw.defaultSampleType) && raw.defaultSampleType < nTypes, 'bad default sample type');
  if (raw.diffPair) need(s.values !== undefined && s.values.length >= 2, 'bad comparison columns');

  for (const l of raw.labels ?? []) {
    need(isObject(l) && typeof l.key === 'string', 'bad label');
    if (l.kind === 'string')
      need(l.value instanceof Int32Array && inStrings(l.value.subarray(0, s.count), -1), 'bad label');
    else need(l.kind === 'number' && l.value instanceof Float64Array, 'bad label');
    need(l.value.length >= s.count, 'label cut short');
  }

  const lines = raw.lines;
  if (lines !== undefined) {
    need(
      isObject(lines) &&
        lines.start instanceof Uint32Array &&
        lines.name instanceof Int32Array &&
        lines.file instanceof Int32Array &&
        lines.line instanceof Uint32Array,
      'bad lines',
    );
    need(lines.start.length >= nLocs + 1 && lines.start[0] === 0, 'bad lines');
    for (let i = 0; i < nLocs; i++) need(lines.start[i] <= lines.start[i + 1], 'bad lines');
    const n = lines.start[nLocs];
    need(lines.name.length >= n && lines.file.length >= n && lines.line.length >= n, 'lines cut short');
    need(inStrings(lines.name.subarray(0, n), 0) && inStrings(lines.file.subarray(0, n), -1), 'bad lines');
  }
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number';
const optional = <T>(v: unknown, test: (x: unknown) => x is T) => v === undefined || test(v);

/** The metadata the views show as text: strings where strings are expected. */
function checkMeta(meta: RawProfile['meta'], need: (ok: boolean, what: string) => void): void {
  const m = meta as unknown as Record<string, unknown>;
  for (const x of meta.mappings)
    need(
      optional(x.buildId, isString) &&
        (x.linkTimeAddresses === undefined || typeof x.linkTimeAddresses === 'boolean') &&
        (x.symbolFile === undefined || typeof x.symbolFile === 'boolean'),
      'bad mapping',
    );
  need(m.wordSize === undefined || m.wordSize === 32 || m.wordSize === 64, 'bad word size');
  need(m.byteOrder === undefined || m.byteOrder === 'little' || m.byteOrder === 'big', 'bad byte order');
  need(
    optional(m.dropFrames, isString) &&
      optional(m.keepFrames, isString) &&
      optional(m.durationNs, isNumber) &&
      optional(m.timeNs, isNumber),
    'bad metadata',
  );
  need(m.comments === undefined || (Array.isArray(m.comments) && m.comments.every(isString)), 'bad comments');
  need(
    m.extra === undefined || (isObject(m.extra) && Object.values(m.extra).every(isString)),
    'bad metadata',
  );
  need(
    m.headerLines === undefined ||
      (Array.isArray(m.headerLines) &&
        m.headerLines.every(
          (l: unknown) => isObject(l) && isString(l.key) && isString(l.value) && typeof l.known === 'boolean',
        )),
    'bad header lines',
  );
  const p = m.period;
  need(
    p === undefined ||
      (isObject(p) &&
        isNumber(p.value) &&
        isObject(p.type) &&
        isString(p.type.type) &&
        isString(p.type.unit)),
    'bad period',
  );
}
