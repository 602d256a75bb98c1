// Linux `perf record` output (perf.data), in file mode and in pipe mode (`perf record -o -`), in
// either byte order: the header, attributes and features (perfdata/header.ts), the records
// (perfdata/records.ts) and the processes' mappings (perfdata/maps.ts) become a RawProfile: one
// sample per SAMPLE record, its call chain as a stack of addresses (leaf first, kernel frames then
// user frames, PERF_CONTEXT_* markers dropped), one value column per event (its period: nanoseconds
// for cpu-clock and task-clock) and a sample count, the labels comm, pid, tid, cpu and event, and
// each sample's time. What is read and what is not: docs/formats/perf-data.md.

import { StringInterner } from '../address.ts';
import { periodUsFor } from '../model/sample-types.ts';
import type { ProfileWarning, RawMeta, RawProfile, SampleLabel, SampleType } from '../types.ts';
import {
  defaultEventName,
  fail,
  type PerfAttr,
  PerfBytes,
  type PerfFeatures,
  perfMagic,
  periodIsTime,
  readFeature,
  readFileHeader,
  S,
  sampleTypeNames,
} from './perfdata/header.ts';
import { estimateSampleRecords, type PerfRecords, readRecords } from './perfdata/records.ts';

const TWO32 = 4294967296;

/** perf.data by its magic (`PERFILE2` in either byte order; `PERFFILE` to say it is not read). */
export function looksLikePerfData(bytes: Uint8Array): boolean {
  return perfMagic(bytes) !== null;
}

/** Parses perf.data. Throws ProfileError when nothing usable is found. */
export function parsePerfData(bytes: Uint8Array): RawProfile {
  // read whole: never null
  return readPerfData(bytes, () => 1).raw!;
}

/** A profile of some of a perf.data's samples (sampledPerfData). */
export interface SampledPerfData {
  raw: RawProfile;
  /** One SAMPLE record in this many was read (the first, then each `every`-th). */
  every: number;
  /** The share of the file's SAMPLE records read. */
  share: number;
}

/**
 * A profile of about `budget` of a perf.data's samples, evenly spread over its records (one SAMPLE
 * record in N, N from the average size of the first ones; every other record read as the parse
 * reads it: the same mappings, thread names and events), for a first picture; null when the file
 * seems to hold no more than 2 × `budget` SAMPLE records. Throws ProfileError as parsePerfData does.
 */
export function sampledPerfData(bytes: Uint8Array, budget: number): SampledPerfData | null {
  const { raw, every, sampleRecords } = readPerfData(bytes, (estimate) => {
    const n = estimate();
    return n > 2 * budget ? Math.ceil(n / budget) : 0;
  });
  if (raw === null) return null;
  return { raw, every, share: Math.ceil(sampleRecords / every) / sampleRecords };
}

/**
 * Reads perf.data, one SAMPLE record in `every(estimate)` (`estimate` says about how many there
 * are); null when `every` says 0 (not worth a sample).
 */
function readPerfData(
  bytes: Uint8Array,
  every: (estimate: () => number) => number,
): { raw: RawProfile | null; every: number; sampleRecords: number } {
  const magic = perfMagic(bytes);
  if (magic === null) fail('not a perf.data file (no PERFILE2 magic)', 0);
  if (magic === 'v1') {
    fail('perf.data version 1 (PERFFILE, written by perf before Linux 2.6.37) is not read', 0);
  }
  const b = new PerfBytes(bytes, magic === 'little');
  const header = readFileHeader(b);
  const warnings: ProfileWarning[] = [...header.warnings];
  const features: PerfFeatures = { buildIds: [] };
  const warn = (message: string, offset: number) => warnings.push({ message, offset });
  for (const { feat, section } of header.features)
    readFeature(b, feat, section.offset, section.size, features, warn);
  const step = every(() => estimateSampleRecords(b, header.dataOffset, header.dataEnd));
  if (step < 1) return { raw: null, every: step, sampleRecords: 0 };
  const rec = readRecords(b, header.dataOffset, header.dataEnd, header.attrs, header.pipe, features, step);
  warnings.push(...rec.warnings);
  if (header.truncatedAt !== undefined && rec.cutAt === undefined) {
    warnings.push({
      message: `the file ends at byte ${bytes.length}, before the end of its data section (byte ${header.truncatedAt}): truncated? the ${rec.records} records before it are kept`,
      offset: bytes.length,
    });
  }

  const count = rec.event.length;
  if (count === 0) fail(noSamples(rec, features), header.dataOffset);
  const names = eventNames(rec, features);
  for (const e of features.buildIds) rec.maps.setBuildId(e.path, e.buildId);

  // one value column per event that has samples (its period), then the sample count
  const perEvent = new Int32Array(rec.attrs.length);
  const event = rec.event.data;
  for (let s = 0; s < count; s++) perEvent[event[s]]++;
  const used: number[] = [];
  const column = new Int32Array(rec.attrs.length).fill(-1);
  rec.attrs.forEach((_, i) => {
    if (perEvent[i] > 0 || (rec.skippedPerEvent[i] ?? 0) > 0) column[i] = used.push(i) - 1;
  });
  const values = used.map(() => new Float64Array(count));
  const period = rec.period.data;
  for (let s = 0; s < count; s++) values[column[event[s]]][s] = period[s];
  values.push(new Float64Array(count).fill(1));
  const sampleTypes: SampleType[] = used.map((i) => ({ type: names[i], unit: unitOf(rec.attrs[i]) }));
  sampleTypes.push({ type: 'samples', unit: 'count' });

  const strings = new StringInterner();
  const labels: SampleLabel[] = [{ key: 'comm', kind: 'string', value: threadNames(rec, strings) }];
  // how many processes and threads have samples
  const distinct = { pid: 0, tid: 0 };
  if (rec.hasTid) {
    labels.push(numberLabel('pid', rec.pid.data, count, strings, (n) => (distinct.pid = n)));
    labels.push(numberLabel('tid', rec.tid.data, count, strings, (n) => (distinct.tid = n)));
  }
  if (rec.hasCpu) labels.push(numberLabel('cpu', rec.cpu.data, count, strings));
  const eventIds = names.map((n) => strings.intern(n));
  const eventLabel = new Int32Array(count);
  for (let s = 0; s < count; s++) eventLabel[s] = eventIds[event[s]];
  labels.push({ key: 'event', kind: 'string', value: eventLabel });

  const meta: RawMeta = {
    periodUs: 0,
    mappings: rec.maps.mappings,
    byteOrder: magic,
    extra: {},
  };
  if (features.arch)
    meta.wordSize = /^(i[3-6]86|arm($|v[0-7])|mips$|ppc$|s390$|sparc$)/.test(features.arch) ? 32 : 64;
  const first = rec.attrs[used[0]];
  if (!first.freq && first.period > 0 && (first.sampleType & S.PERIOD) === 0) {
    meta.period = { value: first.period, type: sampleTypes[0] };
  }
  const times = sampleTimes(rec);
  if (times) meta.durationNs = times.durationNs;
  warnings.push(...notes(rec, features, names, count));
  meta.extra = extraOf(rec, features, names, perEvent, count, header.pipe, times, distinct);
  const time = times?.time;

  const addrs = rec.addrs;
  const n = addrs.count;
  const raw: RawProfile = {
    format: 'perf-data',
    meta,
    locations: {
      count: n,
      addrHi: addrs.hi.slice(0, n),
      addrLo: addrs.lo.slice(0, n),
      hasAddr: new Uint8Array(n).fill(1),
      locName: new Int32Array(n).fill(-1),
    },
    strings: strings.strings,
    samples: {
      count,
      stackStart: rec.stackStart.finish(),
      stackLocs: rec.stackLocs.finish(),
      weight: values[0],
      values,
      ...(time && { time }),
    },
    sampleTypes,
    defaultSampleType: 0,
    labels,
    // the reader looked return addresses up at PC − 1 itself (not the first user frame: records.ts)
    adjustCallers: false,
    warnings,
  };
  raw.meta.periodUs = periodUsFor(raw, 0);
  return { raw, every: step, sampleRecords: rec.sampleRecords };
}

function unitOf(a: PerfAttr): string {
  if (periodIsTime(a) && ((a.sampleType & S.PERIOD) !== 0 || !a.freq)) return 'nanoseconds';
  return (a.sampleType & S.PERIOD) !== 0 || !a.freq ? 'events' : 'count';
}

/** Each event's name: EVENT_DESC's (matched by id, else by position), an EVENT_UPDATE's, or perf's default. */
function eventNames(rec: PerfRecords, features: PerfFeatures): string[] {
  const desc = features.events ?? [];
  return rec.attrs.map((a: PerfAttr, i) => {
    const byId = desc.find((d) => d.ids.some((id) => a.ids.includes(id)));
    const d = byId ?? (desc.length === rec.attrs.length ? desc[i] : undefined);
    return d?.name || rec.updatedNames[i] || defaultEventName(a);
  });
}

function noSamples(rec: PerfRecords, features: PerfFeatures): string {
  if (rec.compressed > 0 || features.compressed) {
    return `the records are compressed (perf record -z, zstd: ${rec.compressed} compressed records), which this reader does not read: write an uncompressed copy with \`perf inject -i FILE -o COPY\``;
  }
  if (rec.withoutFrames > 0)
    return `perf.data has ${rec.withoutFrames} samples, none with an IP or a call chain`;
  if (rec.unknownEvent > 0) return `perf.data has ${rec.unknownEvent} samples, none of a known event`;
  if (features.dirFormat) {
    return 'perf.data of a directory (perf record --threads): its samples are in the data files beside it, not in this one';
  }
  return `perf.data has no samples (${rec.records} records)`;
}

/** `comm` per sample: the thread's name at the sample's time (or, without time stamps, in file order), as perf shows it. */
function threadNames(rec: PerfRecords, strings: StringInterner): Int32Array {
  const count = rec.event.length;
  const events = rec.threadEvents.slice();
  const keyHi = (e: (typeof events)[number]) => (rec.timed ? e.timeHi : 0);
  const keyLo = (e: (typeof events)[number]) => (rec.timed ? e.timeLo : e.seq);
  events.sort((x, y) => keyHi(x) - keyHi(y) || keyLo(x) - keyLo(y) || x.seq - y.seq);
  // per thread: the keys from which each name holds
  const lines = new Map<number, { hi: number[]; lo: number[]; comm: number[] }>();
  for (const e of events) {
    let comm: number;
    if (e.kind === 'comm') comm = strings.intern(e.comm);
    else {
      const parent = lines.get(e.parent);
      if (parent === undefined || e.tid === e.parent) continue;
      comm = parent.comm[parent.comm.length - 1];
    }
    let line = lines.get(e.tid);
    if (line === undefined) lines.set(e.tid, (line = { hi: [], lo: [], comm: [] }));
    line.hi.push(keyHi(e));
    line.lo.push(keyLo(e));
    line.comm.push(comm);
  }
  const out = new Int32Array(count);
  const tid = rec.tid.data;
  const th = rec.timeHi.data;
  const tl = rec.timeLo.data;
  const unknown = new Map<number, number>();
  for (let s = 0; s < count; s++) {
    const t = tid[s];
    const line = lines.get(t);
    // the last name set at or before the sample
    let k = -1;
    if (line !== undefined) {
      let a = 0;
      let z = line.hi.length;
      while (a < z) {
        const m = (a + z) >>> 1;
        if (line.hi[m] < th[s] || (line.hi[m] === th[s] && line.lo[m] <= tl[s])) a = m + 1;
        else z = m;
      }
      k = a - 1;
    }
    if (k >= 0) out[s] = line!.comm[k];
    else {
      // perf's name for a thread it knows no name of; the idle task (tid 0, which no COMM record
      // names: samples of `perf record -a` on an idle CPU) is swapper, as perf registers it
      let id = unknown.get(t);
      if (id === undefined) {
        const name = t === 0xffffffff ? '[unknown]' : t === 0 ? 'swapper' : `:${t}`;
        unknown.set(t, (id = strings.intern(name)));
      }
      out[s] = id;
    }
  }
  return out;
}

/** A string label of a number column (0xffffffff: none); `distinct` gets how many values it has. */
function numberLabel(
  key: string,
  col: Uint32Array,
  count: number,
  strings: StringInterner,
  distinct?: (n: number) => void,
): SampleLabel {
  const value = new Int32Array(count);
  const ids = new Map<number, number>();
  for (let s = 0; s < count; s++) {
    const v = col[s];
    if (v === 0xffffffff) {
      value[s] = -1;
      continue;
    }
    let id = ids.get(v);
    if (id === undefined) ids.set(v, (id = strings.intern(String(v))));
    value[s] = id;
  }
  distinct?.(ids.size);
  return { key, kind: 'string', value };
}

interface Times {
  /** Each sample's time in nanoseconds since the earliest sample's. */
  time: Float64Array;
  durationNs: number;
  /** The earliest sample's time stamp, as perf script prints it. */
  first: string;
}

/**
 * Each sample's time in nanoseconds since the earliest sample (exact: perf's u64 time stamps are
 * subtracted as halves), or undefined when the samples have none.
 */
function sampleTimes(rec: PerfRecords): Times | undefined {
  if (!rec.timed) return undefined;
  const count = rec.event.length;
  const hi = rec.timeHi.data;
  const lo = rec.timeLo.data;
  let bh = hi[0];
  let bl = lo[0];
  for (let s = 1; s < count; s++) {
    if (hi[s] < bh || (hi[s] === bh && lo[s] < bl)) {
      bh = hi[s];
      bl = lo[s];
    }
  }
  const time = new Float64Array(count);
  let max = 0;
  for (let s = 0; s < count; s++) {
    const t = (hi[s] - bh) * TWO32 + (lo[s] - bl);
    time[s] = t;
    if (t > max) max = t;
  }
  return { time, durationNs: max, first: secondsOf(bh, bl) };
}

/** perf's time stamp (ns) as `perf script --ns` prints it: seconds with nine decimals. */
function secondsOf(hi: number, lo: number): string {
  const ns = (BigInt(hi) << 32n) | BigInt(lo);
  return `${ns / 1000000000n}.${(ns % 1000000000n).toString().padStart(9, '0')} s`;
}

/** Warnings about what the file holds as a whole: lost samples, DWARF call graphs, compressed records… */
function notes(rec: PerfRecords, features: PerfFeatures, names: string[], count: number): ProfileWarning[] {
  const out: ProfileWarning[] = [];
  const lost = Math.max(rec.lost, rec.lostSamples);
  if (lost > 0) {
    out.push({
      message: `${lost} samples were lost (${rec.lostRecords} LOST records: perf's ring buffer overflowed; record with a larger buffer, -m, or a lower frequency, -F)`,
    });
  }
  const dwarf = rec.attrs
    .map((a, i) => ((a.sampleType & (S.STACK_USER | S.REGS_USER)) !== 0 ? names[i] : ''))
    .filter((n) => n !== '');
  if (dwarf.length > 0) {
    out.push({
      message: `recorded with --call-graph dwarf (${dwarf.join(', ')}): the user stacks are copies of stack memory to unwind, which this reader does not do; each sample shows its leaf frame (and its kernel frames). Record with --call-graph fp, or open \`perf script\`'s text of this file for whole stacks`,
    });
  }
  rec.attrs.forEach((a, i) => {
    if (a.unknownSampleBits === undefined) return;
    out.push({
      message: `${names[i]}: sample_type bits ${a.unknownSampleBits} are unknown here; their fields come after those read, so they are skipped`,
    });
  });
  if (rec.compressed > 0) {
    out.push({
      message: `${rec.compressed} compressed records (perf record -z) were not read: their samples are missing; write an uncompressed copy with \`perf inject -i FILE -o COPY\``,
    });
  }
  if (features.dirFormat) {
    out.push({
      message:
        'perf.data of a directory (perf record --threads): only the samples of this file are read, not those of the data files beside it',
    });
  }
  if (rec.withoutFrames > 0)
    out.push({ message: `${rec.withoutFrames} samples without an IP or a call chain left out` });
  if (rec.unknownEvent > 0) {
    out.push({ message: `${rec.unknownEvent} samples of an event id no attribute names left out` });
  }
  if (rec.maps.moved > 0) {
    out.push({
      message: `${rec.maps.moved} mappings of different processes covered the same addresses: each has addresses of its own in this profile (0x2000…), with the same file offsets`,
    });
  }
  if (count > 0 && rec.attrs.some((a) => (a.sampleType & (S.IP | S.CALLCHAIN)) === 0)) {
    out.push({ message: 'some events sample neither IP nor CALLCHAIN: their samples have no frames' });
  }
  return out;
}

/** The recording's facts, for the metadata panel and `flamelens info`. */
function extraOf(
  rec: PerfRecords,
  f: PerfFeatures,
  names: string[],
  perEvent: Int32Array,
  count: number,
  pipe: boolean,
  times: Times | undefined,
  distinct: { pid: number; tid: number },
): Record<string, string> {
  const x: Record<string, string> = {};
  if (f.hostname) x.hostname = f.hostname;
  if (f.osRelease) x['os release'] = f.osRelease;
  if (f.arch) x.arch = f.arch;
  if (f.cpuDesc) x.cpu = f.cpuId ? `${f.cpuDesc} (${f.cpuId})` : f.cpuDesc;
  if (f.nrCpusOnline !== undefined) x.cpus = `${f.nrCpusOnline} online, ${f.nrCpusAvailable} available`;
  if (f.totalMemKb !== undefined) x.memory = `${f.totalMemKb} kB`;
  if (f.version) x['perf version'] = f.version;
  if (f.cmdline) x['command line'] = f.cmdline.join(' ');
  x.mode = pipe ? 'pipe (perf record -o -)' : 'file';
  x.events = rec.attrs
    .map((a, i) => {
      const rate = a.freq ? `${a.period} Hz` : `period ${a.period}`;
      return `${names[i]} (${rate}, ${sampleTypeNames(a.sampleType)}): ${perEvent[i]} samples`;
    })
    .join('; ');
  x.records = String(rec.records);
  x.samples = String(count);
  if (rec.hasTid) x.threads = `${distinct.tid} in ${distinct.pid} processes`;
  if (times) {
    x['first sample'] = times.first;
    x.duration = `${(times.durationNs / 1e6).toFixed(3)} ms`;
  }
  x.mappings = String(rec.maps.mappings.length);
  if (f.buildIds.length > 0) x['build-ids'] = String(f.buildIds.length);
  const lost = Math.max(rec.lost, rec.lostSamples);
  if (lost > 0) x['lost samples'] = String(lost);
  if (rec.skipped.size > 0) {
    x['records not read'] = [...rec.skipped].map(([t, n]) => `type ${t} × ${n}`).join(', ');
  }
  return x;
}
