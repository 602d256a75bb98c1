// perf.data records: the data section of a file (or all of a pipe), one perf_event_header after the
// other. SAMPLE records become samples (their call chain as a stack of addresses, leaf first, the
// PERF_CONTEXT_* markers dropped); MMAP/MMAP2, COMM, FORK and EXIT records give the processes'
// mappings and the threads' names; LOST records are counted. In pipe mode the attributes and the
// header's features come as records too (HEADER_ATTR, HEADER_FEATURE, HEADER_BUILD_ID). Records
// of types not read are skipped by their size; a record cut by the end of the file ends the read
// with a warning, everything before it kept.

import { AddrTable, F64Builder, U32Builder } from '../../address.ts';
import {
  attrSize,
  idKey,
  type PerfAttr,
  type PerfBytes,
  type PerfFeatures,
  RF,
  readAttr,
  readBuildIds,
  readFeature,
  S,
} from './header.ts';
import { type MapEvent, PerfMaps } from './maps.ts';

/** perf_event_header.type values read or recognised here. */
const R = {
  MMAP: 1,
  LOST: 2,
  COMM: 3,
  EXIT: 4,
  FORK: 7,
  SAMPLE: 9,
  MMAP2: 10,
  LOST_SAMPLES: 13,
  HEADER_ATTR: 64,
  HEADER_TRACING_DATA: 66,
  HEADER_BUILD_ID: 67,
  AUXTRACE: 71,
  EVENT_UPDATE: 78,
  HEADER_FEATURE: 80,
  COMPRESSED: 81,
} as const;
/** The record types this reader reads (the others it skips by their size). */
export const READ_RECORD_TYPES: readonly number[] = Object.values(R);

/**
 * Types known and not needed: kernel side-band (throttling, reads, AUX, context switches,
 * namespaces, BPF and kernel symbols, cgroups, text pokes) and perf's own (event types, rounds,
 * id index, thread and CPU maps, stat, time conversion, end of init).
 */
const IGNORED = new Set([
  5, 6, 8, 11, 12, 14, 15, 16, 17, 18, 19, 20, 21, 65, 68, 69, 70, 72, 73, 74, 75, 76, 77, 79, 82,
]);

const MISC_CPUMODE = 7;
const MISC_KERNEL = 1;
const MISC_GUEST_KERNEL = 4;
const MISC_MMAP_DATA = 1 << 13;
const MISC_COMM_EXEC = 1 << 13;
const MISC_MMAP_BUILD_ID = 1 << 14;
/** EVENT_UPDATE's PERF_EVENT_UPDATE__NAME. */
const UPDATE_NAME = 2;
/** Callchain entries at or above (u64)−4095 are PERF_CONTEXT_* markers: high word all ones, low word ≥ this. */
const CONTEXT_MIN_LO = 0xfffff001;
/** The kernel's mapping, as the reader names it (perf's `[kernel.kallsyms]_text`, cut). */
const KERNEL_PATH = '[kernel.kallsyms]';
/** PERF_CONTEXT_KERNEL's low word: the entries after it are the kernel's. */
const CONTEXT_KERNEL_LO = 0xffffff80;
const MAX_DAMAGE_WARNINGS = 10;

/** Where a sample's fields lie, for one attribute's sample_type (offsets from the record's start; −1: absent). */
interface Layout {
  ip: number;
  tid: number;
  time: number;
  cpu: number;
  period: number;
  /** Where the variable part (READ, CALLCHAIN, …) begins. */
  fixedEnd: number;
  read: boolean;
  callchain: boolean;
  /** Bytes of the sample_id trailer of other records (sample_id_all), and the time's distance from the end. */
  trailer: number;
  trailerTime: number;
}

function layoutOf(a: PerfAttr): Layout {
  const t = a.sampleType;
  let o = 8;
  const take = (bit: number) => {
    if (!(t & bit)) return -1;
    o += 8;
    return o - 8;
  };
  take(S.IDENTIFIER);
  const ip = take(S.IP);
  const tid = take(S.TID);
  const time = take(S.TIME);
  take(S.ADDR);
  take(S.ID);
  take(S.STREAM_ID);
  const cpu = take(S.CPU);
  const period = take(S.PERIOD);
  let trailer = 0;
  let trailerTime = -1;
  if (a.sampleIdAll) {
    // sample_id: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER, at the record's end
    for (const bit of [S.IDENTIFIER, S.CPU, S.STREAM_ID, S.ID, S.TIME, S.TID]) {
      if (!(t & bit)) continue;
      trailer += 8;
      if (bit === S.TIME) trailerTime = trailer;
    }
  }
  return {
    ip,
    tid,
    time,
    cpu,
    period,
    fixedEnd: o,
    read: (t & S.READ) !== 0,
    callchain: (t & S.CALLCHAIN) !== 0,
    trailer,
    trailerTime,
  };
}

/** What the records gave, in columns (one entry per sample kept). */
export interface PerfRecords {
  addrs: AddrTable;
  stackStart: U32Builder;
  stackLocs: U32Builder;
  /** Index into `attrs` of each sample's event. */
  event: U32Builder;
  period: F64Builder;
  pid: U32Builder;
  tid: U32Builder;
  /** 0xffffffff where the sample has no CPU. */
  cpu: U32Builder;
  /** The sample's time stamp (ns, u64 halves); without time stamps (`timed` false) its record number. */
  timeHi: U32Builder;
  timeLo: U32Builder;
  /** True when every event samples TIME and side-band records carry it (thread names follow time). */
  timed: boolean;
  hasTid: boolean;
  hasCpu: boolean;
  /** Thread names over time: COMM (name) and FORK (from the parent) events, in file order. */
  threadEvents: ThreadEvent[];
  /** What changed the processes' mappings (MMAP, FORK, exec), in file order. */
  mapEvents: MapEvent[];
  attrs: PerfAttr[];
  /** Event names from EVENT_UPDATE records, by attribute index. */
  updatedNames: (string | undefined)[];
  maps: PerfMaps;
  /**
   * The kernel's call-chain entries at or past its mapping's end (`[kernel.kallsyms]`'s MMAP ends at
   * `_etext`; `start_kernel` and the rest of the init text lie after it, at the root of every idle
   * task's stack), as `hi:lo` keys of their u64 halves: the mapping is extended over them after the
   * read (PerfMaps.coverKernel).
   */
  pastKernel: Map<string, [number, number]>;
  records: number;
  /** SAMPLE records met, read or not (with readRecords' `every` > 1, one in `every` is read). */
  sampleRecords: number;
  /**
   * SAMPLE records not read (a sample of the file: readRecords' `every`), by event: each event
   * with samples in the file has its value column in a sample of it too.
   */
  skippedPerEvent: number[];
  /** Samples with neither a call chain nor an IP (nothing to draw), left out. */
  withoutFrames: number;
  /** Samples whose event id names no attribute, left out. */
  unknownEvent: number;
  lost: number;
  lostRecords: number;
  lostSamples: number;
  compressed: number;
  skipped: Map<number, number>;
  /** Where a record cut by the end of the data was (the read stopped there). */
  cutAt?: number;
  warnings: { message: string; offset?: number }[];
}

export interface ThreadEvent {
  kind: 'comm' | 'fork';
  tid: number;
  /** comm: the name; fork: the parent thread's id. */
  comm: string;
  parent: number;
  /** The record's time stamp (0 when it has none) and its number in the file. */
  timeHi: number;
  timeLo: number;
  seq: number;
}

/**
 * Reads the records in [start, end) of a file whose attributes (file mode) are `attrs`. With
 * `every` > 1, only the first SAMPLE record and each `every`-th after it are read (a preview's
 * sample of the file): every other record is read as always.
 */
export function readRecords(
  b: PerfBytes,
  start: number,
  end: number,
  attrs: PerfAttr[],
  pipe: boolean,
  features: PerfFeatures,
  every = 1,
): PerfRecords {
  const r = new RecordReader(b, attrs, pipe, features, every);
  r.run(start, end);
  const out = r.out;
  // addresses in mappings moved apart (processes whose mappings overlap): where their processes had them
  const events = out.timed ? out.mapEvents : out.mapEvents.map((e) => ({ ...e, timeHi: 0, timeLo: e.seq }));
  out.maps.coverKernel(out.pastKernel.values());
  out.maps.moveSamples(
    events,
    {
      count: out.event.length,
      pid: out.pid.data,
      keyHi: out.timeHi.data,
      keyLo: out.timeLo.data,
      stackStart: out.stackStart.data,
      stackLocs: out.stackLocs.data,
    },
    out.addrs,
  );
  return out;
}

/**
 * About how many SAMPLE records lie in [start, end): those among the first `head` bytes of records
 * (walked over their headers as `run` steps from one to the next), and the rest of the bytes taken
 * as samples of their average size; exact when the records end within `head`.
 */
export function estimateSampleRecords(b: PerfBytes, start: number, end: number, head = 1 << 20): number {
  let n = 0;
  let sampleBytes = 0;
  let at = start;
  const stop = Math.min(end, start + head);
  while (at + 8 <= stop) {
    const type = b.u32(at);
    const size = b.u16(at + 6);
    if (size < 8 || at + size > end) return n;
    if (type === R.SAMPLE) {
      n++;
      sampleBytes += size;
    }
    at += size + dataAfter(b, at, type, size);
  }
  if (at >= end || n === 0) return n;
  return n + Math.round((end - at) / (sampleBytes / n));
}

/** The bytes that follow a record outside its size: the tracing data, the AUX trace data. */
function dataAfter(b: PerfBytes, at: number, type: number, size: number): number {
  if (type === R.HEADER_TRACING_DATA && size >= 12) return b.u32(at + 8);
  if (type === R.AUXTRACE && size >= 16) return b.u64(at + 8);
  return 0;
}

class RecordReader {
  readonly out: PerfRecords;
  private layouts: Layout[] = [];
  private byId = new Map<number, number>();
  /** Offset of the event id in SAMPLE records, or −1 (one event: none needed; else ambiguous). */
  private sampleIdAt = -1;
  /** Offset of the event id before the end of other records, or −1. */
  private trailerIdAt = -1;
  private ambiguous = false;
  private timedKnown = false;
  private damaged = 0;
  private seq = 0;
  /** The end of the kernel's mapping (u64 halves; none yet: the top, so no entry is past it). */
  private kernelEndHi = 0xffffffff;
  private kernelEndLo = 0xffffffff;

  constructor(
    private readonly b: PerfBytes,
    attrs: PerfAttr[],
    private readonly pipe: boolean,
    private readonly features: PerfFeatures,
    private readonly every: number,
  ) {
    this.out = {
      addrs: new AddrTable(),
      stackStart: new U32Builder(4096),
      stackLocs: new U32Builder(32768),
      event: new U32Builder(4096),
      period: new F64Builder(4096),
      pid: new U32Builder(4096),
      tid: new U32Builder(4096),
      cpu: new U32Builder(4096),
      timeHi: new U32Builder(4096),
      timeLo: new U32Builder(4096),
      timed: false,
      hasTid: false,
      hasCpu: false,
      threadEvents: [],
      mapEvents: [],
      attrs: [],
      updatedNames: [],
      maps: new PerfMaps(),
      pastKernel: new Map(),
      records: 0,
      sampleRecords: 0,
      skippedPerEvent: [],
      withoutFrames: 0,
      unknownEvent: 0,
      lost: 0,
      lostRecords: 0,
      lostSamples: 0,
      compressed: 0,
      skipped: new Map(),
      warnings: [],
    };
    this.out.stackStart.push(0);
    for (const a of attrs) this.addAttr(a);
  }

  private warn(message: string, offset?: number): void {
    this.out.warnings.push(offset === undefined ? { message } : { message, offset });
  }

  private damage(what: string, at: number): void {
    if (++this.damaged <= MAX_DAMAGE_WARNINGS) this.warn(`${what}: record skipped`, at);
  }

  private addAttr(a: PerfAttr): void {
    const index = this.out.attrs.length;
    this.out.attrs.push(a);
    this.out.updatedNames.push(undefined);
    this.layouts.push(layoutOf(a));
    for (const id of a.ids) this.byId.set(id, index);
    this.findIdPositions();
  }

  /** Where SAMPLE and other records say which event they belong to (perf's id_pos / is_pos). */
  private findIdPositions(): void {
    const attrs = this.out.attrs;
    this.sampleIdAt = -1;
    this.trailerIdAt = -1;
    this.ambiguous = false;
    if (attrs.length < 2) return;
    const all = (bit: number) => attrs.every((a) => (a.sampleType & bit) !== 0);
    if (all(S.IDENTIFIER)) {
      this.sampleIdAt = 8;
      this.trailerIdAt = 8;
      return;
    }
    if (all(S.ID)) {
      const at = (a: PerfAttr) => {
        let o = 8;
        for (const bit of [S.IP, S.TID, S.TIME, S.ADDR]) if (a.sampleType & bit) o += 8;
        return o;
      };
      const first = at(attrs[0]);
      if (attrs.every((a) => at(a) === first)) this.sampleIdAt = first;
      const t = attrs[0].sampleType;
      let fromEnd = 8;
      for (const bit of [S.STREAM_ID, S.CPU]) if (t & bit) fromEnd += 8;
      this.trailerIdAt = fromEnd;
    }
    this.ambiguous = this.sampleIdAt < 0;
  }

  /** The attribute index of the event whose id is at `o`, or −1. */
  private attrOfId(o: number): number {
    return this.byId.get(idKey(this.b, o)) ?? -1;
  }

  run(start: number, end: number): void {
    const b = this.b;
    const out = this.out;
    let at = start;
    while (at < end) {
      if (at + 8 > end) {
        this.cut(at, end);
        return;
      }
      const type = b.u32(at);
      const misc = b.u16(at + 4);
      const size = b.u16(at + 6);
      if (size < 8) {
        this.warn(
          `a record of ${size} bytes (type ${type}): the records after it cannot be found, ${out.records} records before it kept`,
          at,
        );
        return;
      }
      if (at + size > end) {
        this.cut(at, end);
        return;
      }
      out.records++;
      this.seq++;
      let next = at + size;
      switch (type) {
        case R.SAMPLE:
          if (out.sampleRecords++ % this.every === 0) this.sample(at, size);
          else this.skipSample(at, size);
          break;
        case R.MMAP:
        case R.MMAP2:
          this.mmap(at, size, misc, type === R.MMAP2);
          break;
        case R.COMM:
          this.comm(at, size, misc);
          break;
        case R.FORK:
          this.fork(at, size);
          break;
        case R.EXIT:
          break;
        case R.LOST:
          if (size >= 24) {
            out.lost += b.u64(at + 16);
            out.lostRecords++;
          }
          break;
        case R.LOST_SAMPLES:
          if (size >= 16) out.lostSamples += b.u64(at + 8);
          break;
        case R.HEADER_ATTR:
          this.headerAttr(at, size);
          break;
        case R.EVENT_UPDATE:
          this.eventUpdate(at, size);
          break;
        case R.HEADER_FEATURE:
          if (size >= 16) {
            const feat = b.u64(at + 8);
            if (feat < 256)
              readFeature(b, feat, at + 16, size - 16, this.features, (m, o) => this.warn(m, o));
          }
          break;
        case R.HEADER_BUILD_ID:
          readBuildIds(b, at, at + size, this.features.buildIds, (m, o) => this.warn(m, o));
          break;
        case R.HEADER_TRACING_DATA:
        case R.AUXTRACE:
          next += dataAfter(b, at, type, size);
          break;
        case R.COMPRESSED:
          out.compressed++;
          break;
        default:
          if (!IGNORED.has(type)) out.skipped.set(type, (out.skipped.get(type) ?? 0) + 1);
      }
      if (next > end) {
        this.cut(at, end);
        return;
      }
      at = next;
    }
  }

  private cut(at: number, end: number): void {
    this.out.cutAt = at;
    this.warn(
      `the file ends inside a record at byte ${at} (truncated?): the ${this.out.records} records before it are kept, ${end - at} bytes after it ignored`,
      at,
    );
  }

  /** The time stamp (as halves) of a side-band record from its sample_id trailer, or 0 when it has none. */
  private trailerTime(at: number, size: number): [number, number] {
    let a = 0;
    if (this.trailerIdAt > 0 && size >= this.trailerIdAt + 8)
      a = Math.max(0, this.attrOfId(at + size - this.trailerIdAt));
    const l = this.layouts[a];
    if (l === undefined || l.trailerTime < 0 || size < 8 + l.trailer) return [0, 0];
    const o = at + size - l.trailerTime;
    return [this.b.hi(o), this.b.lo(o)];
  }

  /** Bytes of a side-band record's sample_id trailer (the first event's layout). */
  private trailerSize(at: number, size: number): number {
    let a = 0;
    if (this.trailerIdAt > 0 && size >= this.trailerIdAt + 8)
      a = Math.max(0, this.attrOfId(at + size - this.trailerIdAt));
    return this.layouts[a]?.trailer ?? 0;
  }

  /** Decides, at the first sample, whether thread names can be ordered by time. */
  private decideTimed(): void {
    this.timedKnown = true;
    const attrs = this.out.attrs;
    this.out.timed = attrs.length > 0 && attrs.every((a) => (a.sampleType & S.TIME) !== 0 && a.sampleIdAll);
    if (this.ambiguous) {
      this.warn(
        'the events do not say which event a sample belongs to (no PERF_SAMPLE_ID or IDENTIFIER in all of them): every sample is counted as the first event',
      );
    }
  }

  /** A SAMPLE record not read (with `every` > 1): only its event is counted. */
  private skipSample(at: number, size: number): void {
    let a = 0;
    if (this.sampleIdAt > 0) {
      if (size < this.sampleIdAt + 8) return;
      a = this.attrOfId(at + this.sampleIdAt);
      if (a < 0) return;
    }
    const n = this.out.skippedPerEvent;
    while (n.length <= a) n.push(0);
    n[a]++;
  }

  private sample(at: number, size: number): void {
    const out = this.out;
    const b = this.b;
    if (!this.timedKnown) this.decideTimed();
    let a = 0;
    if (this.sampleIdAt > 0) {
      if (size < this.sampleIdAt + 8) {
        this.damage('a sample too short for its event id', at);
        return;
      }
      a = this.attrOfId(at + this.sampleIdAt);
      if (a < 0) {
        out.unknownEvent++;
        return;
      }
    } else if (out.attrs.length === 0) {
      this.damage('a sample before any event attributes', at);
      return;
    }
    const l = this.layouts[a];
    const end = at + size;
    if (l.fixedEnd > size) {
      this.damage('a sample shorter than its fields', at);
      return;
    }
    let p = at + l.fixedEnd;
    if (l.read) {
      const rf = out.attrs[a].readFormat;
      const per = 8 * (1 + (rf & RF.ID ? 1 : 0) + (rf & RF.LOST ? 1 : 0));
      const times = 8 * ((rf & RF.TOTAL_TIME_ENABLED ? 1 : 0) + (rf & RF.TOTAL_TIME_RUNNING ? 1 : 0));
      if (rf & RF.GROUP) {
        if (p + 8 > end) {
          this.damage('a sample cut inside its counter values', at);
          return;
        }
        const nr = b.u64(p);
        if (nr > (end - p) / per) {
          this.damage('a sample cut inside its counter values', at);
          return;
        }
        p += 8 + times + nr * per;
      } else p += times + per;
      if (p > end) {
        this.damage('a sample cut inside its counter values', at);
        return;
      }
    }
    const locs = out.stackLocs;
    const first = locs.length;
    if (l.callchain) {
      if (p + 8 > end) {
        this.damage('a sample cut inside its call chain', at);
        return;
      }
      const nr = b.u64(p);
      p += 8;
      if (nr > (end - p) / 8) {
        this.damage(`a sample whose call chain of ${nr} entries overruns it`, at);
        return;
      }
      this.chain(p, nr);
    }
    if (locs.length === first && l.ip >= 0) locs.push(out.addrs.intern(b.hi(at + l.ip), b.lo(at + l.ip)));
    if (locs.length === first) {
      out.withoutFrames++;
      return;
    }
    out.stackStart.push(locs.length);
    out.event.push(a);
    out.period.push(l.period >= 0 ? b.u64(at + l.period) : out.attrs[a].freq ? 1 : out.attrs[a].period || 1);
    out.pid.push(l.tid >= 0 ? b.u32(at + l.tid) : 0xffffffff);
    out.tid.push(l.tid >= 0 ? b.u32(at + l.tid + 4) : 0xffffffff);
    out.cpu.push(l.cpu >= 0 ? b.u32(at + l.cpu) : 0xffffffff);
    if (l.tid >= 0) out.hasTid = true;
    if (l.cpu >= 0) out.hasCpu = true;
    if (out.timed && l.time >= 0) {
      out.timeHi.push(b.hi(at + l.time));
      out.timeLo.push(b.lo(at + l.time));
    } else {
      out.timeHi.push(0);
      out.timeLo.push(this.seq);
    }
  }

  /**
   * The call chain's `nr` entries at `p`, leaf first, without the PERF_CONTEXT_* markers, each as
   * the address to look up: the first entry of each context (the sampled IP in the kernel; the
   * user IP where the kernel was entered: the interrupted or faulting instruction, or the one after
   * a system call) as it is, the return addresses after it at PC − 1 (the call instruction).
   */
  private chain(p: number, nr: number): void {
    const b = this.b;
    const locs = this.out.stackLocs;
    const addrs = this.out.addrs;
    const hiAt = b.le ? 4 : 0;
    const loAt = b.le ? 0 : 4;
    const view = b.view;
    const le = b.le;
    const endHi = this.kernelEndHi;
    const endLo = this.kernelEndLo;
    let first = true;
    let kernel = false;
    for (let i = 0; i < nr; i++, p += 8) {
      const hi = view.getUint32(p + hiAt, le);
      const lo = view.getUint32(p + loAt, le);
      if (hi === 0xffffffff && lo >= CONTEXT_MIN_LO) {
        first = true;
        kernel = lo === CONTEXT_KERNEL_LO;
        continue;
      }
      if (kernel && (hi > endHi || (hi === endHi && lo >= endLo))) {
        const key = `${hi}:${lo}`;
        if (!this.out.pastKernel.has(key)) this.out.pastKernel.set(key, [hi, lo]);
      }
      if (first) {
        locs.push(addrs.intern(hi, lo));
        first = false;
      } else if (lo > 0) locs.push(addrs.intern(hi, lo - 1));
      else locs.push(addrs.intern(hi === 0 ? 0xffffffff : hi - 1, 0xffffffff));
    }
  }

  private mmap(at: number, size: number, misc: number, v2: boolean): void {
    const b = this.b;
    const nameAt = v2 ? 72 : 40;
    if (size < nameAt) {
      this.damage(`an MMAP${v2 ? '2' : ''} record of ${size} bytes`, at);
      return;
    }
    if (misc & MISC_MMAP_DATA) return; // data, not code
    const pid = b.i32(at + 8);
    const cpumode = misc & MISC_CPUMODE;
    const kernel = pid === -1 || cpumode === MISC_KERNEL || cpumode === MISC_GUEST_KERNEL;
    let path = b.cstr(at + nameAt, at + size - this.trailerSize(at, size));
    // perf names the kernel's mapping after its relocation symbol: [kernel.kallsyms]_text
    const k = path.indexOf('.kallsyms]');
    if (kernel && k >= 0) path = path.slice(0, k + '.kallsyms]'.length);
    let buildId: string | undefined;
    if (v2 && misc & MISC_MMAP_BUILD_ID) {
      const n = Math.min(20, b.bytes[at + 40]);
      let hex = '';
      for (let i = 0; i < n; i++) hex += b.bytes[at + 44 + i].toString(16).padStart(2, '0');
      if (/[^0]/.test(hex)) buildId = hex;
    }
    const id = this.out.maps.add(b.big(at + 16), b.big(at + 24), b.big(at + 32), path, kernel, buildId);
    if (id >= 0 && kernel && path === KERNEL_PATH) {
      const end = this.out.maps.mappings[id].end;
      this.kernelEndHi = Number(end >> 32n);
      this.kernelEndLo = Number(end & 0xffffffffn);
    }
    if (id >= 0 && !kernel) {
      const [timeHi, timeLo] = this.trailerTime(at, size);
      this.out.mapEvents.push({ kind: 'mmap', pid, arg: id, timeHi, timeLo, seq: this.seq });
    }
  }

  private comm(at: number, size: number, misc: number): void {
    if (size < 16) {
      this.damage(`a COMM record of ${size} bytes`, at);
      return;
    }
    const b = this.b;
    const pid = b.u32(at + 8);
    const tid = b.u32(at + 12);
    const [timeHi, timeLo] = this.trailerTime(at, size);
    if (misc & MISC_COMM_EXEC)
      this.out.mapEvents.push({ kind: 'exec', pid, arg: 0, timeHi, timeLo, seq: this.seq });
    const comm = b.cstr(at + 16, at + size - this.trailerSize(at, size));
    this.out.threadEvents.push({ kind: 'comm', tid, comm, parent: 0, timeHi, timeLo, seq: this.seq });
  }

  private fork(at: number, size: number): void {
    if (size < 32) {
      this.damage(`a FORK record of ${size} bytes`, at);
      return;
    }
    const b = this.b;
    const pid = b.u32(at + 8);
    const ppid = b.u32(at + 12);
    const tid = b.u32(at + 16);
    const ptid = b.u32(at + 20);
    const timeHi = b.hi(at + 24);
    const timeLo = b.lo(at + 24);
    this.out.mapEvents.push({ kind: 'fork', pid, arg: ppid, timeHi, timeLo, seq: this.seq });
    // the record's own time (the trailer's, when it has one, is the same)
    this.out.threadEvents.push({ kind: 'fork', tid, comm: '', parent: ptid, timeHi, timeLo, seq: this.seq });
  }

  private headerAttr(at: number, size: number): void {
    if (!this.pipe) return; // file mode: the header's attributes are the ones
    const b = this.b;
    if (size < 8 + 64) {
      this.damage(`an event attribute record of ${size} bytes`, at);
      return;
    }
    const n = attrSize(this.b, at + 8);
    if (n < 64 || 8 + n > size) {
      this.damage(`an event attribute record of ${size} bytes`, at);
      return;
    }
    const attr = readAttr(b, at + 8, n, `event ${this.out.attrs.length + 1}`);
    for (let o = at + 8 + n; o + 8 <= at + size; o += 8) attr.ids.push(idKey(b, o));
    this.addAttr(attr);
  }

  private eventUpdate(at: number, size: number): void {
    if (size < 24 || this.b.u64(at + 8) !== UPDATE_NAME) return;
    const a = this.attrOfId(at + 16);
    const index = a >= 0 ? a : this.out.attrs.length === 1 ? 0 : -1;
    if (index >= 0) this.out.updatedNames[index] = this.b.cstr(at + 24, at + size);
  }
}
