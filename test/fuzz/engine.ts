// In-process fuzz engine: per input format, a corpus of small real files and mutators; each input
// runs through the core (`parse`, `fold` when small; ELF and nm files through `readElf` /
// `nmToElfLike`, `symbolizerFromFiles` and lookups) and must end in a result or a ProfileError,
// in under a second. Input `i` of format `f` under seed `s` is a pure function of (s, f, i), so a
// failure is reproduced from its three numbers alone (`FUZZ_REPRO=f:s:i npm run fuzz`).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync, zipSync } from 'fflate';
import { sortInputs } from '../../src/core/analysis/inputs.ts';
import { MANIFEST, writeBundle } from '../../src/core/bundle/bundle.ts';
import { readZip } from '../../src/core/bundle/zip.ts';
import {
  checkedProfile,
  detectFormat,
  isGzip,
  parseProfile,
  streamingParse,
} from '../../src/core/formats/detect.ts';
import { parseFolded } from '../../src/core/formats/folded.ts';
import { GperftoolsChunkStream, scanGperftools } from '../../src/core/formats/gperftools.ts';
import { gperftoolsPreview } from '../../src/core/formats/gperftools-preview.ts';
import { chunkHeap } from '../../src/core/formats/heap-chunks.ts';
import { writePprof } from '../../src/core/formats/pprof-write.ts';
import { writeSnapshot } from '../../src/core/formats/snapshot.ts';
import { joinBytes } from '../../src/core/formats/text-preview.ts';
import { toFoldedText } from '../../src/core/model/serialize.ts';
import { fold, type Loaded, parse } from '../../src/core/pipeline.ts';
import { readElf, vaddrToOffset } from '../../src/core/symbols/elf.ts';
import { KallsymsError, parseKallsyms } from '../../src/core/symbols/kallsyms.ts';
import { nmToElfLike } from '../../src/core/symbols/nm.ts';
import { symbolizerFromFiles, withRecordedBuildIds } from '../../src/core/symbols/symbolize.ts';
import type { Mapping, RawProfile } from '../../src/core/types.ts';
import { ProfileError } from '../../src/core/types.ts';
import { parseReport, reportHtml } from '../../src/export/report.ts';
import {
  bitflips,
  crossover,
  dropRange,
  duplicateRange,
  editLines,
  editSeparators,
  headLines,
  insertBytes,
  int,
  longLine,
  onText,
  pick,
  type Rng,
  replaceNumbers,
  replaceTokens,
  SEPARATORS,
  setBytes,
  setWords,
  splice,
  truncate,
  VARINT_RUN,
} from '../helpers/mutate.ts';
import { prng } from '../helpers/prng.ts';

/** An input slower than this is a failure. */
export const MAX_INPUT_MS = 1000;
/** Results with more stack entries than this are not folded (keeps every input cheap). */
const MAX_FOLD_LOCS = 200_000;

export interface Seed {
  name: string;
  bytes: Uint8Array;
}

export type Mutator = (b: Uint8Array, r: Rng, other: Uint8Array) => Uint8Array;

/** How inputs of a format are checked. */
type Target = 'profile' | 'elf' | 'nm' | 'kallsyms' | 'bundle';

export interface FuzzFormat {
  id: string;
  target: Target;
  seeds: Seed[];
  mutators: Mutator[];
  /** Share of the total inputs (relative weight). */
  weight: number;
  /**
   * Also build the importer's preview of a quarter of the inputs (gperftools: the worker builds it
   * only for large files and ignores its failures, so only a direct call finds them).
   */
  preview?: boolean;
  /** Also parsed from chunks, as the worker parses a large file while reading it (a heap profile). */
  chunks?: boolean;
}

// ─── seeds ──────────────────────────────────────────────────────────────────────────────────

const FIX = new URL('../fixtures/', import.meta.url);
const load = (rel: string): Seed => {
  const b = new Uint8Array(readFileSync(new URL(rel, FIX)));
  return { name: rel, bytes: rel.endsWith('.gz') ? gunzipSync(b) : b };
};
/** A big text fixture cut to its first `max` bytes at a record boundary. */
const head = (rel: string, max: number, breakAt = '\n'): Seed => {
  const s = load(rel);
  return { name: `${rel} (first ${max} B)`, bytes: headLines(s.bytes, max, breakAt) };
};

// ─── mutators ───────────────────────────────────────────────────────────────────────────────

/** Applies a text mutation to the text before the first NUL byte or after the last one. */
function textPart(f: (t: string, r: Rng) => string): Mutator {
  return (b, r) => {
    const first = b.indexOf(0);
    if (first < 0) return onText(b, (t) => f(t, r));
    if (r() < 0.5)
      return concat(
        onText(b.subarray(0, first), (t) => f(t, r)),
        b.subarray(first),
      );
    const last = b.lastIndexOf(0) + 1;
    return concat(
      b.subarray(0, last),
      onText(b.subarray(last), (t) => f(t, r)),
    );
  };
}

const concat = (a: Uint8Array, b: Uint8Array) => joinBytes([a, b]);

const text = (f: (t: string, r: Rng) => string): Mutator => {
  return (b, r) => onText(b, (t) => f(t, r));
};

const BYTES: Mutator[] = [
  (b, r) => bitflips(b, r),
  (b, r) => setBytes(b, r),
  (b, r) => truncate(b, r),
  (b, r) => dropRange(b, r, 64),
  (b, r, o) => splice(b, r, o, { maxLen: 256 }),
];

const TEXT: Mutator[] = [
  text(replaceNumbers),
  text(replaceNumbers),
  text((t, r) => editSeparators(t, r)),
  text((t, r) => editLines(t, r)),
  text((t, r) => longLine(t, r, r() < 0.2 ? 100_000 : 4000)),
  text((t, r) => replaceTokens(t, r, SEPARATORS)),
  (b, r) => bitflips(b, r, 4),
  (b, r) => truncate(b, r),
  (b, r) => dropRange(b, r, 64),
  (b, r, o) => splice(b, r, o, { maxLen: 512 }),
  (b, r, o) => crossover(b, r, o),
  (b, r) => duplicateRange(b, r, { maxLen: 256, times: 4 }),
];

const SNAPSHOT_MAGIC = 'FLAMELENS SNAPSHOT 1\n'.length;

/** A snapshot's parts: magic, header length and JSON header, then the typed arrays. */
function snapshotParts(b: Uint8Array): { head: Uint8Array; arrays: Uint8Array } | null {
  const at = SNAPSHOT_MAGIC;
  if (b.length < at + 4) return null;
  const n = new DataView(b.buffer, b.byteOffset + at, 4).getUint32(0, true);
  if (at + 4 + n > b.length) return null;
  return { head: b.subarray(at + 4, at + 4 + n), arrays: b.subarray(at + 4 + n) };
}

/** A snapshot's JSON header edited as text, its length kept right. */
function snapshotHeader(f: (t: string, r: Rng) => string): Mutator {
  return (b, r) => {
    const p = snapshotParts(b);
    if (!p) return b;
    const head = onText(p.head, (t) => f(t, r));
    const out = concat(concat(b.subarray(0, SNAPSHOT_MAGIC + 4), head), p.arrays);
    new DataView(out.buffer).setUint32(SNAPSHOT_MAGIC, head.length, true);
    return out;
  };
}

/** A byte mutation of a snapshot's typed arrays only (the header left whole). */
function snapshotArrays(m: Mutator): Mutator {
  return (b, r, o) => {
    const p = snapshotParts(b);
    if (!p || p.arrays.length === 0) return m(b, r, o);
    return concat(b.subarray(0, b.length - p.arrays.length), m(p.arrays, r, o));
  };
}

/** Snapshots (an HTML report's profiles): a JSON header, then typed arrays, 8-byte aligned. */
const SNAPSHOT: Mutator[] = [
  (b, r) => bitflips(b, r, 2),
  (b, r) => truncate(b, r),
  (b, r, o) => splice(b, r, o, { maxLen: 256 }),
  snapshotArrays((b, r) => bitflips(b, r, 4)),
  snapshotArrays((b, r) => setBytes(b, r)),
  snapshotArrays((b, r) => setWords(b, r, { size: 4, align: 4, littleEndian: true })),
  snapshotArrays((b, r) => setWords(b, r, { size: 8, align: 8, littleEndian: true })),
  snapshotHeader(replaceNumbers),
  snapshotHeader((t, r) => replaceTokens(t, r, ['true', 'false', 'null', '[]', '{}', '"x"', '-1', '1e999'])),
  snapshotHeader((t, r) => editSeparators(t, r)),
  // names: any text (quotes escaped) where the profile had a string
  snapshotHeader((t, r) =>
    t.replace(/"([a-z_]+)"/i, (_m, w: string) => JSON.stringify(pick(r, ['', '<', '\u0000', w.repeat(50)]))),
  ),
];

/** A snapshot seed: the parsed profile of a fixture, as writeSnapshot writes it (gunzipped). */
const snapshotOf = (rel: string): Seed => {
  const s = load(rel);
  return { name: `${rel} (snapshot)`, bytes: gunzipSync(writeSnapshot(parse(s.bytes, rel).raw)) };
};

/** Bundle seeds: the tiny profile with its binary, as `flamelens bundle` writes it, stored and tarred. */
function bundleSeeds(): Seed[] {
  const prof = load('gperf/tiny.prof').bytes;
  const bin = load('gperf/bin/tiny').bytes;
  const written = writeBundle({
    profiles: [{ name: 'tiny.prof', bytes: prof }],
    files: [{ path: '/opt/flamelens-corpus/bin/tiny', bytes: bin, buildId: 'ab'.repeat(20) }],
    missing: [{ path: '/usr/lib/x86_64-linux-gnu/libc.so.6', why: 'not found' }],
    created: '2026-11-24T00:00:00Z',
  });
  // Stored (not deflated): mutations reach the members' bytes, not only their CRC.
  const stored = zipSync(
    { 'profiles/tiny.prof': prof, 'files/opt/flamelens-corpus/bin/tiny': bin },
    { level: 0 },
  );
  return [
    { name: 'tiny.flamelens.zip', bytes: written },
    { name: 'stored.zip', bytes: stored },
    {
      name: 'tiny.tar',
      bytes: tarOf({ 'profiles/tiny.prof': prof, 'files/opt/flamelens-corpus/bin/tiny': bin }),
    },
  ];
}

/** Values a manifest field may be given instead of its own: every JSON type, and paths of tricks. */
const MANIFEST_VALUES: unknown[] = [
  null,
  0,
  -1,
  42,
  1.5,
  2 ** 53 + 2,
  '',
  'x',
  '../../etc/passwd',
  '/proc/self/exe',
  'files/../x',
  'zz'.repeat(30),
  '\u0000\u001b[2J',
  true,
  [],
  [null],
  {},
  { path: 1 },
];

/** Every place in a JSON value (as paths of keys and indexes). */
function jsonPlaces(
  v: unknown,
  at: (string | number)[] = [],
  out: (string | number)[][] = [],
): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) jsonPlaces(v[i], [...at, i], out);
  } else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) jsonPlaces(x, [...at, k], out);
  return out;
}

/**
 * A bundle whose manifest is edited as JSON (a field given another value or type, removed, an
 * entry repeated, members renamed) and zipped again, stored: manifests of every wrong shape.
 */
const manifestEdit: Mutator = (b, r) => {
  let members: { name: string; bytes: Uint8Array }[];
  try {
    members = readZip(b, 'm.zip').members.map((m) => ({ name: m.name, bytes: m.bytes }));
  } catch {
    return b;
  }
  const man = members.find((m) => m.name === MANIFEST);
  if (!man) return b;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(man.bytes));
  } catch {
    return b;
  }
  for (let k = 1 + int(r, 3); k > 0; k--) {
    const places = jsonPlaces(json).filter((p) => p.length > 0);
    if (places.length === 0) break;
    const place = pick(r, places);
    let parent = json as Record<string | number, unknown>;
    for (const key of place.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    const last = place[place.length - 1];
    const what = r();
    if (what < 0.6) parent[last] = structuredClone(pick(r, MANIFEST_VALUES));
    else if (what < 0.8 && Array.isArray(parent)) parent.push(structuredClone(parent[last as number]));
    else delete parent[last];
  }
  const files: Record<string, Uint8Array> = {};
  for (const m of members)
    files[m.name] = m === man ? new TextEncoder().encode(JSON.stringify(json)) : m.bytes;
  if (r() < 0.2) {
    // a member under another name than the manifest says
    const other = pick(
      r,
      members.filter((m) => m !== man),
    );
    if (other) {
      delete files[other.name];
      files[`files/renamed/${other.name.split('/').pop()}`] = other.bytes;
    }
  }
  return zipSync(files, { level: 0 });
};

/** A ustar archive of the files (what `tar -cf` writes, without owners). */
function tarOf(files: Record<string, Uint8Array>): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, data] of Object.entries(files)) {
    const h = new Uint8Array(512);
    const put = (o: number, t: string) => h.set(new TextEncoder().encode(t), o);
    put(0, name);
    put(100, '0000644\0');
    put(124, `${data.length.toString(8).padStart(11, '0')}\0`);
    put(156, '0');
    put(257, 'ustar\0');
    put(263, '00');
    h.fill(32, 148, 156);
    put(
      148,
      `${h
        .reduce((t, x) => t + x, 0)
        .toString(8)
        .padStart(6, '0')}\0 `,
    );
    parts.push(h, data, new Uint8Array((512 - (data.length % 512)) % 512));
  }
  parts.push(new Uint8Array(1024));
  const out = new Uint8Array(parts.reduce((t, p) => t + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** gperftools CPU profiles: words of `ws` bytes in one byte order, then the maps text. */
function gperfMutators(ws: 4 | 8, littleEndian: boolean): Mutator[] {
  return [
    ...BYTES,
    (b, r) => setWords(b, r, { size: ws, littleEndian }),
    (b, r) => setWords(b, r, { size: ws, littleEndian }),
    (b, r) => setWords(b, r, { size: 4, align: ws, littleEndian: r() < 0.5 ? littleEndian : !littleEndian }),
    (b, r) => duplicateRange(b, r, { align: ws, from: 5 * ws, maxLen: 64 * ws, times: 3 }),
    (b, r, o) => splice(b, r, o, { align: ws, maxLen: 64 * ws }),
    (b, r) => dropRange(b, r, 8 * ws),
    textPart(replaceNumbers),
    textPart((t, r) => editSeparators(t, r)),
    textPart((t, r) => editLines(t, r)),
    textPart((t, r) => longLine(t, r, 4000)),
  ];
}

const DCPI: Mutator[] = [
  ...BYTES,
  (b, r) => setWords(b, r, { size: 4, littleEndian: true }),
  (b, r) => setWords(b, r, { size: 4, align: 1 }),
  (b, r) => setWords(b, r, { size: 8, align: 4 }),
  (b, r) => duplicateRange(b, r, { align: 4, maxLen: 64, times: 3 }),
  textPart(replaceNumbers),
  textPart(replaceNumbers),
  textPart((t, r) => editSeparators(t, r)),
  textPart((t, r) => editLines(t, r)),
  textPart((t, r) => longLine(t, r, r() < 0.2 ? 100_000 : 4000)),
];

const PROTO: Mutator[] = [
  ...BYTES,
  (b, r) => setBytes(b, r),
  (b, r) => insertBytes(b, r, VARINT_RUN),
  (b, r) => setWords(b, r, { size: 8, align: 1 }),
  (b, r) => setWords(b, r, { size: 4, align: 1 }),
  (b, r) => duplicateRange(b, r, { maxLen: 128, times: 4 }),
  (b, r, o) => crossover(b, r, o),
  // .pb.gz as written: later mutations damage the gzip stream (gunzip errors, wrong lengths)
  (b) => gzipSync(b, { level: 1 }),
];

/** `pprof --raw`: a `--- symbol` text section, then a gperftools profile (64- or 32-bit). */
const PPROF_RAW: Mutator[] = [
  ...gperfMutators(8, true).slice(0, BYTES.length + 6),
  (b, r) => setWords(b, r, { size: 4, littleEndian: true }),
  textPart(replaceNumbers),
  textPart(replaceNumbers),
  textPart((t, r) => editSeparators(t, r)),
  textPart((t, r) => editLines(t, r)),
  textPart((t, r) => longLine(t, r, r() < 0.2 ? 100_000 : 4000)),
  textPart((t, r) => replaceTokens(t, r, SEPARATORS)),
];

/** perf.data's records, in the byte order of its magic: offset, size and type of each in the data. */
/** The record types a perf.data holds. */
export function perfRecordTypes(b: Uint8Array): number[] {
  return [...new Set(perfRecords(b).map((x) => x.type))];
}

function perfRecords(b: Uint8Array): { at: number; size: number; type: number }[] {
  if (b.length < 16) return [];
  const le = b[0] === 0x50; // `PERFILE2` little-endian, `2ELIFREP` big-endian
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const u64 = (o: number) => (o + 8 <= b.length ? Number(dv.getBigUint64(o, le)) : 0);
  const pipe = u64(8) === 16;
  let at = pipe ? 16 : u64(40);
  const end = pipe ? b.length : Math.min(b.length, at + u64(48));
  const out: { at: number; size: number; type: number }[] = [];
  while (at + 8 <= end && out.length < 100_000) {
    const size = dv.getUint16(at + 6, le);
    if (size < 8 || at + size > end) break;
    const type = dv.getUint32(at, le);
    out.push({ at, size, type });
    at += size;
    // data after the record: HEADER_TRACING_DATA's (u32 size), AUXTRACE's (u64 size)
    if (type === 66 && size >= 12) at += Math.ceil(dv.getUint32(at - size + 8, le) / 8) * 8;
    if (type === 71 && size >= 16) at += u64(at - size + 8);
  }
  return out;
}

/** Where a perf.data's header ends and its data, then its features, begin (file mode; pipe: 16). */
function perfRegions(b: Uint8Array): { data: number; features: number } {
  const le = b[0] === 0x50;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < 56 || Number(dv.getBigUint64(8, le)) === 16) return { data: 16, features: b.length };
  const data = Math.min(b.length, Number(dv.getBigUint64(40, le)));
  return { data, features: Math.min(b.length, data + Number(dv.getBigUint64(48, le))) };
}

/** A mutation of [from, to) of `b` alone. */
function inPart(b: Uint8Array, from: number, to: number, m: (part: Uint8Array) => Uint8Array): Uint8Array {
  const out = b.slice();
  const part = m(b.subarray(from, to));
  out.set(part.subarray(0, to - from), from);
  return out;
}

/**
 * A mutation of one record of a type the seed has (each type as likely as any other, so rare
 * ones — LOST, FORK, EXIT, COMM, MMAP2, attributes, features — are hit as often as samples).
 */
function perfRecord(m: (rec: Uint8Array, r: Rng, le: boolean) => Uint8Array): Mutator {
  return (b, r) => {
    const records = perfRecords(b);
    if (records.length === 0) return bitflips(b, r);
    const types = [...new Set(records.map((x) => x.type))];
    const type = pick(r, types);
    const rec = pick(
      r,
      records.filter((x) => x.type === type),
    );
    return inPart(b, rec.at, rec.at + rec.size, (part) => m(part, r, b[0] === 0x50));
  };
}

const PERF_RECORD_TYPES = [1, 2, 3, 4, 5, 7, 9, 10, 13, 64, 66, 67, 68, 69, 71, 73, 78, 80, 81, 82, 99];

/**
 * A pipe-mode recording with a record of every type the reader reads that real recordings here
 * lack (perf writes them for lost samples, build-ids in pipe mode, compressed data, tracepoints'
 * tracing data, AUX data), made after perf's layouts: threads.pipe.data, then LOST and
 * LOST_SAMPLES (the trailer of its EXIT record: sample_id_all), a HEADER_BUILD_ID for the program,
 * a COMPRESSED record, and last, as each carries data after its size, HEADER_TRACING_DATA and
 * AUXTRACE.
 */
export function perfDataEveryRecord(): Seed {
  const base = load('perf-data/threads.pipe.data').bytes;
  const exit = perfRecords(base).find((x) => x.type === 4)!;
  const trailer = base.slice(exit.at + 8 + 24, exit.at + exit.size);
  const record = (type: number, body: Uint8Array, after = 0): Uint8Array => {
    const out = new Uint8Array(8 + body.length + after);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, type, true);
    dv.setUint16(6, 8 + body.length, true);
    out.set(body, 8);
    for (let i = 0; i < after; i++) out[8 + body.length + i] = 0x40 + (i % 26);
    return out;
  };
  const words = (...xs: bigint[]) => {
    const b = new Uint8Array(xs.length * 8);
    xs.forEach((x, i) => {
      new DataView(b.buffer).setBigUint64(i * 8, x, true);
    });
    return b;
  };
  const join = (...parts: Uint8Array[]) => {
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  };
  const name = new TextEncoder().encode('/work/wt/perfdata/test/fixtures/perf-data/bin/threads');
  const buildId = new Uint8Array(4 + 24 + Math.ceil((name.length + 1) / 8) * 8);
  new DataView(buildId.buffer).setInt32(0, -1, true);
  buildId.set([0x2a, 0xd9, 0x2d, 0x84, 0x4e, 0xb1, 0x1e, 0x7e, 0x42, 0x21, 0x34, 0x1a], 4);
  buildId[4 + 20] = 20;
  buildId.set(name, 28);
  const tracing = new Uint8Array(8);
  new DataView(tracing.buffer).setUint32(0, 16, true);
  const bytes = join(
    base,
    record(2, join(words(552n, 3n), trailer)),
    record(13, join(words(2n), trailer)),
    record(67, buildId),
    record(81, join(new Uint8Array([0x28, 0xb5, 0x2f, 0xfd]), new Uint8Array(12))),
    record(66, tracing, 16),
    record(71, join(words(8n, 0n, 1n), new Uint8Array(16)), 8),
  );
  return { name: 'perf-data/threads.pipe.data + every other record type', bytes };
}

/** perf.data: the header and attributes, the records (each type), the feature sections. */
const PERF_DATA: Mutator[] = [
  ...BYTES,
  // a record's fields: words of 2, 4 and 8 bytes
  perfRecord((rec, r, le) => setWords(rec, r, { size: 8, align: 8, littleEndian: le, max: 2 })),
  perfRecord((rec, r, le) => setWords(rec, r, { size: 4, align: 4, littleEndian: le, max: 2 })),
  perfRecord((rec, r, le) => setWords(rec, r, { size: 8, align: 4, littleEndian: le, max: 1 })),
  perfRecord((rec, r) => bitflips(rec, r, 3)),
  // a record's header: its type, its size
  perfRecord((rec, r, le) => {
    const out = rec.slice();
    new DataView(out.buffer).setUint32(0, pick(r, PERF_RECORD_TYPES), le);
    return out;
  }),
  perfRecord((rec, r, le) => {
    const out = rec.slice();
    const size = pick(r, [0, 4, 7, 8, rec.length - 8, rec.length + 8, 0xffff, int(r, 0x10000)]);
    new DataView(out.buffer).setUint16(6, Math.max(0, size), le);
    return out;
  }),
  // a whole record left out, repeated, or the file cut inside one
  (b, r) => {
    const rec = pick(r, perfRecords(b)) ?? { at: 0, size: 0 };
    const out = new Uint8Array(b.length - rec.size);
    out.set(b.subarray(0, rec.at));
    out.set(b.subarray(rec.at + rec.size), rec.at);
    return out;
  },
  (b, r) => {
    const rec = pick(r, perfRecords(b));
    if (!rec) return b;
    const times = 1 + int(r, 3);
    const out = new Uint8Array(b.length + rec.size * times);
    out.set(b.subarray(0, rec.at + rec.size));
    for (let t = 1; t <= times; t++) out.set(b.subarray(rec.at, rec.at + rec.size), rec.at + rec.size * t);
    out.set(b.subarray(rec.at + rec.size), rec.at + rec.size * (times + 1));
    return out;
  },
  (b, r) => {
    const rec = pick(r, perfRecords(b));
    return rec ? b.slice(0, rec.at + int(r, rec.size)) : truncate(b, r);
  },
  // the header, attributes and ids (sample_type and read_format bits decide the samples' layout)
  (b, r) =>
    inPart(b, 0, perfRegions(b).data, (p) => setWords(p, r, { size: 8, littleEndian: b[0] === 0x50 })),
  (b, r) => inPart(b, 0, perfRegions(b).data, (p) => bitflips(p, r, 2)),
  perfRecord((rec, r) => (rec.length > 40 ? inPart(rec, 8 + 24, 8 + 48, (p) => bitflips(p, r, 2)) : rec)),
  // the feature sections and their table
  (b, r) => {
    const { features } = perfRegions(b);
    return inPart(b, features, b.length, (p) => setWords(p, r, { size: 4, littleEndian: b[0] === 0x50 }));
  },
  (b, r) => {
    const { features } = perfRegions(b);
    return inPart(b, features, b.length, (p) => setWords(p, r, { size: 8, littleEndian: b[0] === 0x50 }));
  },
];

/** /proc/kallsyms text: lines `ADDR TYPE NAME[\t[MODULE]]`. */
const KALLSYMS: Mutator[] = [
  ...TEXT,
  text((t, r) =>
    replaceTokens(t, r, [' T ', ' t ', ' W ', ' D ', '\t[', ']', '0000000000000000', 'ffffffffffffffff']),
  ),
];

function elfMutators(seed: Uint8Array): Mutator[] {
  const is64 = seed[4] === 2;
  const le = seed[5] === 1;
  const dv = new DataView(seed.buffer, seed.byteOffset, seed.byteLength);
  const shoff = is64 ? Number(dv.getBigUint64(40, le)) : dv.getUint32(32, le);
  const phoff = is64 ? Number(dv.getBigUint64(32, le)) : dv.getUint32(28, le);
  const hdr = is64 ? 64 : 52;
  const inRegion = (b: Uint8Array, r: Rng, from: number, to: number) => {
    const part = b.subarray(Math.min(from, b.length), Math.min(to, b.length));
    const m = setWords(part, r, { size: r() < 0.5 ? 4 : 8, align: 4, littleEndian: le, max: 2 });
    const out = b.slice();
    out.set(m, Math.min(from, b.length));
    return out;
  };
  return [
    ...BYTES,
    (b, r) => inRegion(b, r, 0, hdr),
    (b, r) => inRegion(b, r, phoff, phoff + 8 * (is64 ? 56 : 32)),
    (b, r) => inRegion(b, r, shoff, b.length),
    (b, r) => inRegion(b, r, shoff, b.length),
    (b, r) => setWords(b, r, { size: 4, align: 4, littleEndian: le }),
    (b, r) => setBytes(b, r, [0, 0xff, 0x7f, 0x80], 16),
  ];
}

const NM: Mutator[] = TEXT;

function formats(): FuzzFormat[] {
  const elfSeeds = [
    load('symbols/bin/libfoo.so'),
    load('symbols/bin/tiny32'),
    load('gperf-own/bin/spin'),
    load('perf/bin/sorter-stripped'),
  ];
  return [
    {
      id: 'gperf-64le',
      target: 'profile',
      seeds: [
        load('gperf/tiny.prof'),
        load('gperf/threads_ptt.prof'),
        load('gperf-own/spin.prof'),
        load('bad/ok_synthetic64.prof'),
        load('bad/maps_edge_cases.prof'),
      ],
      mutators: gperfMutators(8, true),
      weight: 12,
      preview: true,
    },
    {
      id: 'gperf-32le',
      target: 'profile',
      seeds: [load('gperf/tiny32.prof'), load('gperf/deep_recursion32.prof')],
      mutators: gperfMutators(4, true),
      weight: 8,
      preview: true,
    },
    {
      id: 'gperf-64be',
      target: 'profile',
      seeds: [load('bad/ok_synthetic64_be.prof'), load('bad/real_tiny64_be.prof')],
      mutators: gperfMutators(8, false),
      weight: 8,
      preview: true,
    },
    {
      id: 'gperf-32be',
      target: 'profile',
      seeds: [load('bad/ok_synthetic32_be.prof'), load('bad/real_tiny32_be.prof')],
      mutators: gperfMutators(4, false),
      weight: 8,
      preview: true,
    },
    {
      id: 'dcpi',
      target: 'profile',
      seeds: [
        load('dcpi/valid_basic.dcpi'),
        load('dcpi/valid_unknown_lines.dcpi'),
        load('dcpi/valid_no_padding.dcpi'),
        load('dcpi/valid_tabs_and_trailing_ws.dcpi'),
        load('dcpi/valid_long_epoch.dcpi'),
      ],
      mutators: DCPI,
      weight: 8,
    },
    {
      id: 'folded',
      target: 'profile',
      seeds: [
        load('folded/simple.folded'),
        load('folded/recursive.folded'),
        load('xss/evil.folded'),
        load('gperf/expected-fold/tiny.folded'),
        load('gperf/expected-fold/shlib.folded'),
        head('gperf/expected-fold/cxx_demangle32.folded', 3000),
      ],
      mutators: TEXT,
      weight: 8,
    },
    {
      id: 'pprof-raw',
      target: 'profile',
      seeds: [
        load('symbols/oracle/tiny.perl.raw'),
        load('symbols/oracle/tiny32.perl.raw'),
        load('symbols/oracle/threads.perl.raw'),
        load('symbols/oracle/threads_ptt.perl.raw'),
        load('symbols/oracle/shlib.perl.raw'),
      ],
      mutators: PPROF_RAW,
      weight: 8,
    },
    {
      id: 'pprof',
      target: 'profile',
      seeds: [
        load('pprof/corpus/tiny.pb.gz'),
        load('pprof/corpus/shlib.pb.gz'),
        load('pprof/go/cpu.pb.gz'),
        load('pprof/go/heap.pb.gz'),
        load('pprof/addr/threads.pb.gz'),
        load('pprof/bad/ok.pb'),
        load('pprof/bad/ok_sparse_ids.pb'),
      ],
      mutators: PROTO,
      weight: 12,
    },
    {
      id: 'heap',
      target: 'profile',
      seeds: [load('heap/synthetic-v2.heap'), load('heap/allocs.0001.heap'), head('heap/xz.0001.heap', 3000)],
      mutators: TEXT,
      weight: 8,
      chunks: true,
    },
    {
      id: 'perf-script',
      target: 'profile',
      seeds: [
        head('perf/sorter.perf.txt', 3000, '\n\n'),
        head('perf/mixed.perf.txt', 3000, '\n\n'),
        head('perf/sorter-stripped.perf.txt', 3000, '\n\n'),
        head('perf/xz.perf.txt', 3000, '\n\n'),
        // what perf writes besides call graphs: one line per sample (-G, no -g), no ip, side-band
        // records, `(inlined)` frames
        head('perf/shapes/sorter-G.perf.txt', 1500, '\n'),
        head('perf/shapes/sorter-noip.perf.txt', 1000, '\n'),
        head('perf/shapes/sorter-sideband.perf.txt', 3000, '\n\n'),
        head('perf/shapes/inlined-dwarf.perf.txt', 3000, '\n\n'),
      ],
      mutators: TEXT,
      weight: 8,
    },
    {
      id: 'perf-data',
      target: 'profile',
      seeds: [
        load('perf-data/spin.data'),
        load('perf-data/two-events.data'),
        load('perf-data/threads.pipe.data'),
        perfDataEveryRecord(),
        load('perf-data/spin.be.data'),
        load('perf-data/syscalls.data'),
        load('perf-data/procs.data'),
        load('perf-data/dwarf.data.gz'),
        {
          name: 'perf-data/lost.data.gz (first 24 kB)',
          bytes: load('perf-data/lost.data.gz').bytes.slice(0, 24_000),
        },
      ],
      mutators: PERF_DATA,
      weight: 12,
    },
    {
      id: 'elf',
      target: 'elf',
      seeds: elfSeeds,
      mutators: elfSeeds.flatMap((s) => elfMutators(s.bytes)).concat(BYTES),
      weight: 8,
    },
    {
      id: 'snapshot',
      target: 'profile',
      seeds: [
        snapshotOf('gperf/tiny.prof'),
        snapshotOf('pprof/labels/labels.pb.gz'),
        snapshotOf('dcpi/valid_basic.dcpi'),
        snapshotOf('folded/simple.folded'),
        snapshotOf('symbols/oracle/tiny.perl.raw'),
      ],
      mutators: SNAPSHOT,
      weight: 4,
    },
    {
      id: 'bundle',
      target: 'bundle',
      seeds: bundleSeeds(),
      mutators: [
        ...BYTES,
        (b, r) => setWords(b, r, { size: 4, littleEndian: true }),
        (b, r) => setWords(b, r, { size: 4, align: 1, littleEndian: true }),
        manifestEdit,
        manifestEdit,
        manifestEdit,
      ],
      weight: 4,
    },
    {
      id: 'kallsyms',
      target: 'kallsyms',
      seeds: [load('perf-data/kallsyms.txt')],
      mutators: KALLSYMS,
      weight: 3,
    },
    {
      id: 'nm',
      target: 'nm',
      seeds: [
        load('symbols/nm/tiny.nm'),
        load('symbols/nm/tiny32.nm'),
        load('symbols/nm/tiny.S.nm'),
        head('symbols/nm/cxx_demangle.C.nm', 3000),
      ],
      mutators: NM,
      weight: 4,
    },
  ];
}

let cached: FuzzFormat[] | undefined;
/** The formats fuzzed, with their seeds loaded (once). */
export function fuzzFormats(): FuzzFormat[] {
  cached ??= formats();
  return cached;
}

// ─── inputs ─────────────────────────────────────────────────────────────────────────────────

function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function mix(a: number, b: number, c: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) ^ Math.imul(c + 0x27d4eb2f, 0x165667b1);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The random stream of input `index` of format `f` under `seed`. */
export function inputRng(f: FuzzFormat, seed: number, index: number): Rng {
  return prng(mix(seed >>> 0, hash32(f.id), index >>> 0));
}

/** Input `index` of format `f` under `seed`: a seed file with 1..4 stacked mutations. */
export function inputFor(f: FuzzFormat, seed: number, index: number): { bytes: Uint8Array; base: string } {
  const r = inputRng(f, seed, index);
  const base = pick(r, f.seeds);
  let bytes = base.bytes;
  for (let k = 1 + int(r, r() < 0.7 ? 2 : 4); k > 0; k--) {
    bytes = pick(r, f.mutators)(bytes, r, pick(r, f.seeds).bytes);
  }
  return { bytes, base: base.name };
}

// ─── running one input ──────────────────────────────────────────────────────────────────────

export type Outcome = 'result' | 'error';

const TWO32 = 4294967296;

/** Mappings that bind a symbol file named `name` (by basename) at a high address. */
function mappingsFor(name: string): Mapping[] {
  const base = name.replace(/^.*\//, '').replace(/\.nm$/, '');
  return [
    { start: 0x7f0000000000n, end: 0x7f0000400000n, offset: 0n, path: `/usr/lib/${base}` },
    { start: 0x400000n, end: 0x800000n, offset: 0n, path: '/usr/bin/main' },
  ];
}

function lookups(
  sym: { lookup(hi: number, lo: number): string[] | null },
  r: Rng,
  fileOffsets: number[],
): void {
  const start = 0x7f0000000000;
  for (const off of fileOffsets) {
    const a = start + off;
    sym.lookup(Math.floor(a / TWO32), a % TWO32);
  }
  for (let k = 0; k < 4; k++) {
    const a = start + int(r, 0x400000);
    sym.lookup(Math.floor(a / TWO32), a % TWO32);
  }
  sym.lookup(0, 0x400000 + int(r, 0x400000));
}

/** A ProfileError says where: a byte offset inside the file (gunzipped files aside) or a line. */
function checkError(e: ProfileError, bytes: Uint8Array): void {
  const where = e.describe();
  if (e.message.length === 0) throw new Error('a ProfileError without a message');
  if (e.offset !== undefined && !(Number.isInteger(e.offset) && e.offset >= 0)) {
    throw new Error(`a ProfileError at byte ${e.offset}: ${where}`);
  }
  if (e.offset !== undefined && !isGzip(bytes) && e.offset > bytes.length) {
    throw new Error(`a ProfileError past the end of the ${bytes.length}-byte file: ${where}`);
  }
  if (e.line !== undefined && !(Number.isInteger(e.line) && e.line >= 1)) {
    throw new Error(`a ProfileError at line ${e.line}: ${where}`);
  }
}

/** The share of parsed profiles written by every writer and read back (`FUZZ_ROUNDTRIP` in run.ts). */
let roundTripShare = 0.1;
export function setRoundTripShare(share: number): void {
  roundTripShare = share;
}

/** Runs one input through the core; returns what came out, or throws what escaped. */

export function runInput(
  f: FuzzFormat,
  bytes: Uint8Array,
  name: string,
  r: Rng,
  streamShare = 0.25,
): Outcome {
  const fileName = name.replace(/ \(.*$/, '');
  if (f.target === 'bundle') {
    // A bundle opens to a profile and the symbol files it maps (analysis/inputs.ts, as the
    // session and the CLI sort a drop), or is a ProfileError; its members' and its manifest's
    // damage is warnings. The profile then goes through the core like any dropped one.
    let sorted: ReturnType<typeof sortInputs>;
    try {
      sorted = sortInputs([{ name: fileName, bytes }]);
    } catch (e) {
      if (!(e instanceof ProfileError)) throw e;
      checkError(e, bytes);
      return 'error';
    }
    const loaded = sorted.profile?.loaded;
    if (!loaded) return 'result';
    try {
      const symbols = sorted.symbols;
      const s = symbolizerFromFiles(withRecordedBuildIds(loaded.raw.meta.mappings, symbols), symbols);
      if (loaded.raw.samples.stackLocs.length <= MAX_FOLD_LOCS)
        fold(loaded, {
          symbols: {
            symbolizer: s.symbolizer,
            state: { files: [], report: s.report, errors: s.errors, mangled: false },
          },
        });
    } catch (e) {
      if (!(e instanceof ProfileError)) throw e;
      return 'error';
    }
    return 'result';
  }
  if (f.target === 'profile') {
    // A share of the gperftools inputs (a quarter; all of them for the property's own test) are
    // also parsed as the worker parses a large file while reading it, in chunks of random sizes:
    // the same profile, or the same error.
    const streamed =
      (f.preview || f.chunks) && r() < streamShare
        ? f.chunks
          ? heapChunkedParseOf(bytes, r)
          : streamedParse(bytes, r)
        : null;
    let loaded: ReturnType<typeof parse>;
    try {
      loaded = parse(bytes, fileName);
    } catch (e) {
      if (e instanceof ProfileError) {
        checkError(e, bytes);
        if (streamed && streamed.error !== e.message)
          throw new Error(`parsed while read: ${streamed.error ?? 'a profile'}, whole: ${e.message}`);
        return 'error';
      }
      throw e;
    }
    if (streamed) {
      if (streamed.raw === undefined)
        throw new Error(`parsed while read: ${streamed.error}, whole: a profile`);
      const differs = sameRaw(streamed.raw, loaded.raw);
      if (differs)
        throw new Error(`parsed while read, the profile differs from the whole file's: ${differs}`);
    }
    if (loaded.raw.samples.stackLocs.length <= MAX_FOLD_LOCS) {
      const { profile } = fold(loaded);
      if (Number.isNaN(profile.meta.totalSamples)) {
        throw new Error(`fold gave a total of ${profile.meta.totalSamples}`);
      }
      // A quarter are also folded as the worker folds them, over their own stacks.
      if (r() < 0.25) {
        const differs = consumingFoldDiffers(loaded);
        if (differs) throw new Error(`folded over its stacks: ${differs}`);
      }
      // A share are written by every writer and read back: the same folded stacks.
      if (r() < roundTripShare) {
        const differs = roundTripDiffers(loaded, fileName);
        if (differs) throw new Error(`written and read back: ${differs}`);
      }
    }
    if (f.preview && loaded.raw.format === 'gperftools' && r() < 0.25) {
      const fraction = pick(r, [0, 0.01, 1 / 4096]);
      try {
        const p = gperftoolsPreview(scanGperftools(bytes), { fileName, fraction });
        if (Number.isNaN(p.meta.totalSamples)) throw new Error('the preview gave a total of NaN');
      } catch (e) {
        if (!(e instanceof ProfileError)) throw e;
      }
    }
    return 'result';
  }
  if (f.target === 'kallsyms') {
    // read alone: symbols or a KallsymsError; then as a dropped file for the kernel's mapping
    let starts: number[] = [];
    let outcome: Outcome = 'result';
    try {
      const t = parseKallsyms(bytes, fileName).symbols;
      starts = Array.from({ length: Math.min(4, t.count) }, () => int(r, t.count)).map(
        (i) => t.startHi[i] * TWO32 + t.startLo[i],
      );
    } catch (e) {
      if (!(e instanceof KallsymsError)) throw e;
      outcome = 'error';
    }
    const kernel: Mapping = {
      start: 0xffffffff80000000n,
      end: 0xffffffffc0000000n,
      offset: 0xffffffff80000000n,
      path: '[kernel.kallsyms]',
      linkTimeAddresses: true,
    };
    const s = symbolizerFromFiles([kernel], [{ name: fileName, bytes }]);
    for (const a of [...starts, 0xffffffff81000000 + int(r, 0x1000000)]) {
      const hi = Math.floor(a / TWO32);
      s.symbolizer.lookup(hi, (a - hi * TWO32 + int(r, 16)) >>> 0);
    }
    return outcome;
  }
  let outcome: Outcome = 'result';
  const offsets: number[] = [];
  try {
    if (f.target === 'elf') {
      const elf = readElf(bytes, fileName);
      const t = elf.symbols;
      for (let k = 0; k < 4 && t.count > 0; k++) {
        const i = int(r, t.count);
        const vaddr = (BigInt(t.startHi[i]) << 32n) | BigInt(t.startLo[i]);
        const off = vaddrToOffset(elf.loadSegments, vaddr + BigInt(int(r, 16)));
        if (off >= 0) offsets.push(off);
      }
    } else {
      const nm = nmToElfLike(bytes, fileName);
      const t = nm.symbols;
      for (let k = 0; k < 4 && t.count > 0; k++) {
        const i = int(r, t.count);
        offsets.push(t.startHi[i] * TWO32 + t.startLo[i] + int(r, 16));
      }
    }
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    // readElf turns any other exception into an ElfError: that safety net must not catch anything
    if (/: cannot read ELF file: /.test(e.message)) throw new Error(`readElf wrapped ${e.message}`);
    outcome = 'error';
  }
  // symbolizerFromFiles never throws for a bad file: it reports it.
  const s = symbolizerFromFiles(mappingsFor(fileName), [{ name: fileName, bytes }]);
  if (f.target === 'elf' && outcome === 'result' && s.errors.length > 0) {
    throw new Error(`the file read alone but symbolizerFromFiles refused it: ${s.errors[0].message}`);
  }
  lookups(s.symbolizer, r, offsets);
  return outcome;
}

// ─── running many ───────────────────────────────────────────────────────────────────────────

export interface FormatStats {
  format: string;
  inputs: number;
  results: number;
  errors: number;
  slowestMs: number;
  slowestIndex: number;
  totalMs: number;
}

export interface Failure {
  format: string;
  seed: number;
  index: number;
  base: string;
  message: string;
  /** The share of inputs parsed while read too, when not the default (FUZZ_STREAM to reproduce). */
  streamShare?: number;
  /** Where the input bytes were written. */
  file?: string;
}

export interface RunOptions {
  seed: number;
  /** Inputs for this format. */
  n: number;
  /** The index of the first input (default 0): inputs `from` … `from + n − 1`. */
  from?: number;
  /** Where failing inputs are written; default test-results/fuzz-failures. */
  failureDir?: string | null;
  /** Stop after this many failures (default 10). */
  maxFailures?: number;
  /** The share of gperftools inputs also parsed while read, in chunks (default a quarter). */
  streamShare?: number;
}

export const DEFAULT_FAILURE_DIR = new URL('../../test-results/fuzz-failures/', import.meta.url);

function describeError(e: unknown): string {
  if (e instanceof Error)
    return `${e.name}: ${e.message}\n${(e.stack ?? '').split('\n').slice(1, 6).join('\n')}`;
  return String(e);
}

export function writeFailure(dir: string | URL, fl: Failure, bytes: Uint8Array): string | undefined {
  try {
    mkdirSync(dir, { recursive: true });
    const stem = `${fl.format}-seed${fl.seed}-i${fl.index}`;
    const file = new URL(`${stem}.bin`, dir instanceof URL ? dir : `file://${dir.replace(/\/?$/, '/')}`);
    writeFileSync(file, bytes);
    writeFileSync(new URL(`${stem}.txt`, file), `${JSON.stringify({ ...fl, file: undefined }, null, 2)}\n`);
    return file.pathname;
  } catch {
    return undefined;
  }
}

/** Runs one input by its coordinates; the outcome, its time, and the failure if it failed. */
export function runIndex(
  f: FuzzFormat,
  seed: number,
  index: number,
  streamShare?: number,
): { outcome?: Outcome; ms: number; failure?: Failure; bytes: Uint8Array } {
  const { bytes, base } = inputFor(f, seed, index);
  const r = prng(mix(seed, index, 0x10c4));
  const t0 = performance.now();
  let outcome: Outcome | undefined;
  let failure: Failure | undefined;
  try {
    outcome = runInput(f, bytes, base, r, streamShare);
  } catch (e) {
    failure = {
      format: f.id,
      seed,
      index,
      base,
      message: describeError(e),
      ...(streamShare !== undefined && { streamShare }),
    };
  }
  let ms = performance.now() - t0;
  if (!failure && ms > MAX_INPUT_MS) {
    // Once more before calling it slow: a GC pause or a busy shared machine does not repeat.
    const t1 = performance.now();
    runInput(f, bytes, base, prng(mix(seed, index, 0x10c4)), streamShare);
    ms = Math.min(ms, performance.now() - t1);
  }
  if (!failure && ms > MAX_INPUT_MS) {
    failure = {
      format: f.id,
      seed,
      index,
      base,
      message: `took ${ms.toFixed(0)} ms (limit ${MAX_INPUT_MS})`,
    };
  }
  return { outcome, ms, failure, bytes };
}

/** Fuzzes one format with `n` inputs; failures are collected (and their inputs written out). */
export function fuzzFormat(f: FuzzFormat, opts: RunOptions): { stats: FormatStats; failures: Failure[] } {
  const stats: FormatStats = {
    format: f.id,
    inputs: 0,
    results: 0,
    errors: 0,
    slowestMs: 0,
    slowestIndex: -1,
    totalMs: 0,
  };
  const failures: Failure[] = [];
  const dir = opts.failureDir === undefined ? DEFAULT_FAILURE_DIR : opts.failureDir;
  const t0 = performance.now();
  const from = opts.from ?? 0;
  for (let i = from; i < from + opts.n && failures.length < (opts.maxFailures ?? 10); i++) {
    const { outcome, ms, failure, bytes } = runIndex(f, opts.seed, i, opts.streamShare);
    stats.inputs++;
    if (ms > stats.slowestMs) {
      stats.slowestMs = ms;
      stats.slowestIndex = i;
    }
    if (failure) {
      if (dir !== null) failure.file = writeFailure(dir, failure, bytes);
      failures.push(failure);
    } else if (outcome === 'result') stats.results++;
    else stats.errors++;
  }
  stats.totalMs = performance.now() - t0;
  return { stats, failures };
}

/** Splits `total` inputs over the formats by weight. */
export function budget(total: number, list: readonly FuzzFormat[] = fuzzFormats()): Map<FuzzFormat, number> {
  const w = list.reduce((s, f) => s + f.weight, 0);
  const out = new Map<FuzzFormat, number>();
  let left = total;
  list.forEach((f, k) => {
    const n = k === list.length - 1 ? left : Math.round((total * f.weight) / w);
    out.set(f, n);
    left -= n;
  });
  return out;
}

export function formatStats(s: FormatStats): string {
  const rate = s.totalMs > 0 ? Math.round((s.inputs * 1000) / s.totalMs) : 0;
  return (
    `${s.format.padEnd(12)} ${String(s.inputs).padStart(8)} inputs  ${String(s.results).padStart(7)} results  ` +
    `${String(s.errors).padStart(7)} ProfileErrors  slowest ${s.slowestMs.toFixed(1)} ms (#${s.slowestIndex})  ` +
    `${rate}/s`
  );
}

export function formatFailure(fl: Failure): string {
  return (
    `${fl.format} seed ${fl.seed} input ${fl.index} (from ${fl.base}): ${fl.message}` +
    `${fl.file ? `\n  input written to ${fl.file}` : ''}\n  reproduce: ` +
    `${fl.streamShare !== undefined ? `FUZZ_STREAM=${fl.streamShare} ` : ''}FUZZ_REPRO=${fl.format}:${fl.seed}:${fl.index} npm run fuzz`
  );
}

/** The bytes parsed as the worker parses a large file while reading it, in random chunks. */
function streamedParse(file: Uint8Array, r: () => number): { raw?: RawProfile; error?: string } | null {
  if (r() < 0.5) return chunkedParseOf(file, r);
  const buffer = new Uint8Array(file.length);
  let stream: ReturnType<typeof streamingParse> = null;
  for (let at = 0; at < file.length; ) {
    const n = Math.min(file.length - at, 1 + int(r, 1 << int(r, 14)));
    buffer.set(file.subarray(at, at + n), at);
    at += n;
    if (stream === null && at >= Math.min(file.length, 64)) stream = streamingParse(buffer, at);
    stream?.advance(at, r() < 0.5 ? 0 : Number.POSITIVE_INFINITY);
  }
  try {
    return { raw: parseProfile(buffer, { stream: stream ?? undefined }) };
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    return { error: e.message };
  }
}

/**
 * The parse from chunks (GperftoolsChunkStream: no buffer of the file's size), in chunks of whole
 * slots and random budgets; null when declined (the worker reads the file whole then). Short
 * records are taken too (the worker's declines a first chunk of them).
 */
function chunkedParseOf(file: Uint8Array, r: () => number): { raw?: RawProfile; error?: string } | null {
  const slots = (n: number) => 8 * Math.ceil(n / 8); // chunks of whole slots, as the worker reads
  const first = Math.min(file.length, slots(64 + int(r, 1 << int(r, 14))));
  const head = file.slice(0, first);
  // As chunkedParse: only what is sniffed as gperftools (the whole file parsed as it is then).
  if (isGzip(head) || detectFormat(head) !== 'gperftools' || detectFormat(file) !== 'gperftools') return null;
  const stream = GperftoolsChunkStream.open(head, file.length, 0);
  if (stream === null) return null;
  for (let at = first; at < file.length; ) {
    const part = file.slice(at, at + Math.min(file.length - at, slots(1 + int(r, 1 << int(r, 14)))));
    stream.push(part, r() < 0.5 ? 0 : Number.POSITIVE_INFINITY);
    at += part.length;
  }
  try {
    // As the worker's: its chunked parse is finished by parseProfile, which checks the profile.
    return { raw: checkedProfile(stream.finish(stream.finishScan())) };
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    return { error: e.message };
  }
}

/**
 * A heap profile parsed from chunks of random sizes (HeapChunkStream: a line may run on into the
 * next chunk), as the worker parses one past 256 MB; null when the file is no heap profile (the
 * worker parses such a file whole).
 */
function heapChunkedParseOf(file: Uint8Array, r: () => number): { raw?: RawProfile; error?: string } | null {
  if (file.length === 0 || isGzip(file) || detectFormat(file) !== 'heap') return null;
  try {
    const first = Math.min(file.length, 1 + int(r, 1 << int(r, 14)));
    const stream = chunkHeap(file.slice(0, first), file.length);
    if (stream === null) return null;
    for (let at = first; at < file.length; ) {
      const part = file.slice(at, at + Math.min(file.length - at, 1 + int(r, 1 << int(r, 14))));
      stream.push(part);
      at += part.length;
    }
    // As the worker's: its chunked parse is finished by parseProfile, which checks the profile.
    return { raw: checkedProfile(stream.finish({})) };
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    return { error: e.message };
  }
}

/** What differs between two parsed profiles (their columns, metadata and warnings), or ''. */
function sameRaw(a: RawProfile, b: RawProfile): string {
  const eq = (x: ArrayLike<number>, y: ArrayLike<number>) =>
    x.length === y.length && Array.from(x).every((v, i) => v === y[i]);
  if (!eq(a.samples.stackStart, b.samples.stackStart)) return 'stackStart';
  if (!eq(a.samples.stackLocs, b.samples.stackLocs)) return 'stackLocs';
  if (!eq(a.samples.weight, b.samples.weight)) return 'weight';
  if (!eq(a.locations.addrHi, b.locations.addrHi) || !eq(a.locations.addrLo, b.locations.addrLo))
    return 'locations';
  if (JSON.stringify(a.warnings) !== JSON.stringify(b.warnings)) return 'warnings';
  const meta = (m: RawProfile['meta']) =>
    JSON.stringify(m, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
  if (meta(a.meta) !== meta(b.meta)) return 'meta';
  return '';
}

/**
 * What differs between the usual fold (per address) and the one written over the parsed stacks
 * (FoldSpec.consume), or in the parsed stacks once read again after it; null when nothing does.
 */
function consumingFoldDiffers(loaded: Loaded): string | null {
  const parsed = loaded.raw.samples.stackLocs.slice();
  const want = toFoldedText(fold(loaded, { granularity: 'addresses' }).profile);
  const got = toFoldedText(fold(loaded, { granularity: 'addresses', consume: true }).profile);
  if (got !== want) return 'the folded stacks differ';
  const again = loaded.raw.samples.stackLocs;
  if (again.length !== parsed.length || again.some((v, i) => v !== parsed[i]))
    return 'the parsed stacks read back differ';
  return null;
}

/**
 * What differs when the profile is written by each writer and read back (folded text, a pprof
 * profile.proto, a snapshot, an HTML report's data): the folded stacks, at function granularity
 * as written, or '' — each must read back to what it wrote.
 */
function roundTripDiffers(loaded: Loaded, fileName: string): string {
  const { profile } = fold(loaded, { granularity: 'addresses' });
  const want = toFoldedText(profile);
  const again = (bytes: Uint8Array, name: string) =>
    toFoldedText(fold(parse(bytes, name), { granularity: 'addresses' }).profile);
  // folded text: what we write, read back by the folded reader, writes the same text (read by
  // sniffing, a name that holds a whole `perf script` header can make it look like that format)
  if (want !== '') {
    const text = new TextEncoder().encode(want);
    const got = toFoldedText(
      fold({ raw: parseFolded(text), parseMs: 0, fileName: 'x.folded' }, { granularity: 'addresses' })
        .profile,
    );
    if (got !== want) return `folded text differs (${firstDiff(want, got)})`;
  }
  // a snapshot (and the same through an HTML report's data element)
  const snap = writeSnapshot(loaded.raw);
  const fromSnap = again(snap, fileName);
  if (fromSnap !== want) return `the snapshot differs (${firstDiff(want, fromSnap)})`;
  const html = reportHtml('<html><body></body></html>', {
    title: fileName,
    created: '2026-11-27T00:00:00Z',
    hash: '',
    profiles: [{ slot: 'main', name: fileName, data: snap }],
  }).join('');
  const json = /<script type="application\/json" id="[^"]+">([\s\S]*)<\/script>/.exec(html);
  if (!json) return 'the report has no data element';
  const report = parseReport(json[1]);
  if (again(report.profiles[0].data, fileName) !== want) return 'the report’s profile differs';
  // pprof: the folded profile as profile.proto, read back (its values are int64s: a profile with
  // fractional weights is written rounded, and sums past 2^53 are not exact in a double)
  if (profile.stacks.count > 0 && profile.stacks.weight.every((w) => Number.isSafeInteger(w))) {
    // (its first sample type is the folded one: a gperftools CPU profile's counts have pprof's
    // cpu/nanoseconds beside them, the default)
    const pb = writePprof(profile, { gzip: false });
    const fromPb = toFoldedText(
      fold(parse(pb, 'x.pb'), { granularity: 'addresses', sampleType: '0' }).profile,
    );
    if (fromPb !== want) return `the pprof profile differs (${firstDiff(want, fromPb)})`;
  }
  return '';
}

function firstDiff(a: string, b: string): string {
  const la = a.split('\n');
  const lb = b.split('\n');
  for (let i = 0; i < Math.max(la.length, lb.length); i++)
    if (la[i] !== lb[i])
      return `line ${i + 1}: ${JSON.stringify(la[i]?.slice(0, 80))} → ${JSON.stringify(lb[i]?.slice(0, 80))}`;
  return 'same lines';
}
