// perf.data: the file header, the event attributes (perf_event_attr) and the feature sections, in
// either byte order. The layouts are Linux's tools/perf/Documentation/perf.data-file-format.txt and
// include/uapi/linux/perf_event.h; docs/formats/perf-data.md says what is read and what is not.

import { ProfileError } from '../../types.ts';

export const FORMAT = 'perf-data' as const;

/** `PERFILE2` as the little-endian u64 perf writes (0x32454c4946524550). */
const MAGIC = [0x50, 0x45, 0x52, 0x46, 0x49, 0x4c, 0x45, 0x32];
/** perf.data version 1 (`PERFFILE`), from perf before 2.6.37: recognised, not read. */
const MAGIC_V1 = [0x50, 0x45, 0x52, 0x46, 0x46, 0x49, 0x4c, 0x45];

const TWO32 = 4294967296;

export function fail(message: string, offset?: number): never {
  throw new ProfileError(message, FORMAT, offset === undefined ? {} : { offset });
}

/** The file's byte order from its magic: 'little', 'big', 'v1' (PERFFILE) or null (not perf.data). */
export function perfMagic(b: Uint8Array): 'little' | 'big' | 'v1' | null {
  if (b.length < 8) return null;
  let le = true;
  let be = true;
  let v1 = true;
  for (let i = 0; i < 8; i++) {
    if (b[i] !== MAGIC[i]) le = false;
    if (b[i] !== MAGIC[7 - i]) be = false;
    if (b[i] !== MAGIC_V1[i]) v1 = false;
  }
  return le ? 'little' : be ? 'big' : v1 ? 'v1' : null;
}

/** Fixed-size reads in the file's byte order. Bounds are the caller's to check. */
export class PerfBytes {
  readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly le: boolean,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get length(): number {
    return this.bytes.length;
  }
  u16(o: number): number {
    return this.view.getUint16(o, this.le);
  }
  u32(o: number): number {
    return this.view.getUint32(o, this.le);
  }
  i32(o: number): number {
    return this.view.getInt32(o, this.le);
  }
  /** The high and low halves of the u64 at `o`. */
  hi(o: number): number {
    return this.view.getUint32(this.le ? o + 4 : o, this.le);
  }
  lo(o: number): number {
    return this.view.getUint32(this.le ? o : o + 4, this.le);
  }
  /**
   * The u64 at `o` as a number: exact below 2^53, and above it still larger than any size, offset
   * or count that fits a file (so a bounds check rejects it). Never an address.
   */
  u64(o: number): number {
    return this.hi(o) * TWO32 + this.lo(o);
  }
  big(o: number): bigint {
    return (BigInt(this.hi(o)) << 32n) | BigInt(this.lo(o));
  }
  /** The NUL-terminated string in [o, end) (all of it without a NUL), as UTF-8. */
  cstr(o: number, end: number): string {
    let e = o;
    while (e < end && this.bytes[e] !== 0) e++;
    return new TextDecoder('utf-8').decode(this.bytes.subarray(o, e));
  }
}

// ─── perf_event_attr ────────────────────────────────────────────────────────────────────────

/** perf_event_attr.sample_type bits (PERF_SAMPLE_*). */
export const S = {
  IP: 1 << 0,
  TID: 1 << 1,
  TIME: 1 << 2,
  ADDR: 1 << 3,
  READ: 1 << 4,
  CALLCHAIN: 1 << 5,
  ID: 1 << 6,
  CPU: 1 << 7,
  PERIOD: 1 << 8,
  STREAM_ID: 1 << 9,
  RAW: 1 << 10,
  BRANCH_STACK: 1 << 11,
  REGS_USER: 1 << 12,
  STACK_USER: 1 << 13,
  WEIGHT: 1 << 14,
  DATA_SRC: 1 << 15,
  IDENTIFIER: 1 << 16,
  TRANSACTION: 1 << 17,
  REGS_INTR: 1 << 18,
  PHYS_ADDR: 1 << 19,
  AUX: 1 << 20,
  CGROUP: 1 << 21,
  DATA_PAGE_SIZE: 1 << 22,
  CODE_PAGE_SIZE: 1 << 23,
  WEIGHT_STRUCT: 1 << 24,
} as const;
/**
 * The bits known here. A later kernel's fields come after all of these in a sample (the layout is in
 * bit order), and never in the sample_id trailer, so a sample with unknown bits is read the same.
 */
const KNOWN_SAMPLE_BITS = (1 << 25) - 1;
const SAMPLE_BIT_NAMES = Object.keys(S);

/** perf_event_attr.read_format bits (PERF_FORMAT_*). */
export const RF = { TOTAL_TIME_ENABLED: 1, TOTAL_TIME_RUNNING: 2, ID: 4, GROUP: 8, LOST: 16 } as const;

/** The perf_event_attr bit-field flags read here (their bit numbers). */
const FLAG = { freq: 10, sampleIdAll: 18, excludeCallchainUser: 22 } as const;

/** PERF_SAMPLE_BRANCH_HW_INDEX: branch stacks carry an hw_idx word. */
const BRANCH_HW_INDEX = 1 << 17;

export interface PerfAttr {
  /** perf_type_id: 0 hardware, 1 software, 2 tracepoint, 3 hw cache, 4 raw, 5 breakpoint, ≥ 6 a PMU's. */
  type: number;
  configHi: number;
  configLo: number;
  /** sample_period, or sample_freq when `freq`. */
  period: number;
  freq: boolean;
  /** The known PERF_SAMPLE_* bits (they fit 32 bits). */
  sampleType: number;
  /** sample_type bits not known here (hex), when there are some: their fields come last, unread. */
  unknownSampleBits?: string;
  readFormat: number;
  sampleIdAll: boolean;
  excludeCallchainUser: boolean;
  /** How many registers PERF_SAMPLE_REGS_USER / _INTR copy (bits set in their masks). */
  regsUser: number;
  regsIntr: number;
  branchHwIndex: boolean;
  /** The event ids (perf_event ids, u64 as numbers: the kernel counts them from 0). */
  ids: number[];
  /** The event's name: from EVENT_DESC or an EVENT_UPDATE record, else made from type and config. */
  name: string;
}

/** A u64 of `PerfBytes` at `o` as a map key: the id's value where exact (ids are small counters). */
export function idKey(b: PerfBytes, o: number): number {
  return b.hi(o) * TWO32 + b.lo(o);
}

function popcount64(b: PerfBytes, o: number): number {
  let n = 0;
  for (let w of [b.hi(o), b.lo(o)]) {
    while (w !== 0) {
      w &= w - 1;
      n++;
    }
  }
  return n;
}

/**
 * Bit `k` of perf_event_attr's bit-field word at `o`. Bit-fields are allocated from the least
 * significant bit on little-endian machines and from the most significant one on big-endian ones,
 * so in a big-endian file flag k is bit 63 − k of the u64 (perf's swap_bitfield).
 */
function flag(b: PerfBytes, o: number, k: number): boolean {
  const bit = b.le ? k : 63 - k;
  const word = bit >= 32 ? b.hi(o) : b.lo(o);
  return ((word >>> (bit & 31)) & 1) === 1;
}

/**
 * The perf_event_attr at `o`, of at most `room` bytes (its own `size` field says how much of it is
 * there: fields past it are 0, as the kernel reads them). `where` names it in errors.
 */
export function readAttr(b: PerfBytes, o: number, room: number, where: string): PerfAttr {
  if (room < 64 || o + 64 > b.length) fail(`${where}: event attributes cut short`, o);
  let size = b.u32(o + 4);
  if (size === 0) size = 64; // PERF_ATTR_SIZE_VER0: perf writes 0 for it
  if (size < 64) fail(`${where}: event attributes of ${size} bytes (at least 64 expected)`, o + 4);
  size = Math.min(size, room);
  const has = (field: number, width: number) => field + width <= size;
  const unknown = b.big(o + 24) & ~BigInt(KNOWN_SAMPLE_BITS);
  const attr: PerfAttr = {
    type: b.u32(o),
    configHi: b.hi(o + 8),
    configLo: b.lo(o + 8),
    period: b.u64(o + 16),
    freq: flag(b, o + 40, FLAG.freq),
    sampleType: b.lo(o + 24) & KNOWN_SAMPLE_BITS,
    readFormat: b.lo(o + 32),
    sampleIdAll: flag(b, o + 40, FLAG.sampleIdAll),
    excludeCallchainUser: flag(b, o + 40, FLAG.excludeCallchainUser),
    branchHwIndex: has(72, 8) && (b.lo(o + 72) & BRANCH_HW_INDEX) !== 0,
    regsUser: has(80, 8) ? popcount64(b, o + 80) : 0,
    regsIntr: has(96, 8) ? popcount64(b, o + 96) : 0,
    ids: [],
    name: '',
  };
  if (unknown !== 0n) attr.unknownSampleBits = `0x${unknown.toString(16)}`;
  return attr;
}

/** The size perf_event_attr says it has (0 means the first version's 64 bytes). */
export function attrSize(b: PerfBytes, o: number): number {
  const size = b.u32(o + 4);
  return size === 0 ? 64 : size;
}

/** `IP|TID|TIME|…` for a sample_type. */
export function sampleTypeNames(t: number): string {
  return SAMPLE_BIT_NAMES.filter((_, i) => (t >>> i) & 1).join('|');
}

const HARDWARE = [
  'cycles',
  'instructions',
  'cache-references',
  'cache-misses',
  'branches',
  'branch-misses',
  'bus-cycles',
  'stalled-cycles-frontend',
  'stalled-cycles-backend',
  'ref-cycles',
];
const SOFTWARE = [
  'cpu-clock',
  'task-clock',
  'page-faults',
  'context-switches',
  'cpu-migrations',
  'minor-faults',
  'major-faults',
  'alignment-faults',
  'emulation-faults',
  'dummy',
  'bpf-output',
  'cgroup-switches',
];

/** A name for an event perf did not name in the file: perf's own for the generic events. */
export function defaultEventName(a: PerfAttr): string {
  const small = a.configHi === 0 ? a.configLo : -1;
  if (a.type === 0 && small >= 0 && small < HARDWARE.length) return HARDWARE[small];
  if (a.type === 1 && small >= 0 && small < SOFTWARE.length) return SOFTWARE[small];
  const config =
    a.configHi === 0
      ? a.configLo.toString(16)
      : a.configHi.toString(16) + a.configLo.toString(16).padStart(8, '0');
  const kind =
    ['hardware', 'software', 'tracepoint', 'hw-cache', 'raw', 'breakpoint'][a.type] ?? `pmu${a.type}`;
  return `${kind}:0x${config}`;
}

/** Whether the event's period counts nanoseconds (cpu-clock and task-clock: software 0 and 1). */
export function periodIsTime(a: PerfAttr): boolean {
  return a.type === 1 && a.configHi === 0 && (a.configLo === 0 || a.configLo === 1);
}

// ─── the file header ────────────────────────────────────────────────────────────────────────

export interface Section {
  offset: number;
  size: number;
}

export interface FileHeader {
  pipe: boolean;
  /** Where the records start. */
  dataOffset: number;
  /** Where they end (the data section's end, or the file's in pipe mode). */
  dataEnd: number;
  /** File mode: the attributes (with their ids). */
  attrs: PerfAttr[];
  /** File mode: the feature sections present, by feature number. */
  features: { feat: number; section: Section }[];
  /** File mode: where the data section should end, when the file ends before. */
  truncatedAt?: number;
  warnings: { message: string; offset?: number }[];
}

/** Header sizes perf accepts: the pipe header, and the file header without and with the feature bits. */
const PIPE_HEADER = 16;
const FILE_HEADER_NO_FEATURES = 72;
const FILE_HEADER = 104;

/** Reads the file (or pipe) header and, in file mode, the attributes and the feature table. */
export function readFileHeader(b: PerfBytes): FileHeader {
  const n = b.length;
  if (n < 16) fail('perf.data header cut short', 0);
  const size = b.u64(8);
  const warnings: FileHeader['warnings'] = [];
  if (size === PIPE_HEADER) {
    return { pipe: true, dataOffset: PIPE_HEADER, dataEnd: n, attrs: [], features: [], warnings };
  }
  if (size !== FILE_HEADER && size !== FILE_HEADER_NO_FEATURES) {
    fail(`perf.data header of ${size} bytes (expected ${FILE_HEADER}, or ${PIPE_HEADER} in pipe mode)`, 8);
  }
  if (n < size) fail('perf.data header cut short', n);
  const attrSizeAll = b.u64(16);
  const attrs = section(b, 24);
  const data = section(b, 40);
  if (attrSizeAll < 64 + 16 || attrSizeAll > 1 << 16) {
    fail(`perf.data header: attribute entries of ${attrSizeAll} bytes`, 16);
  }
  if (attrs.offset + attrs.size > n) fail('the file ends inside its event attributes (truncated?)', n);
  const count = Math.floor(attrs.size / attrSizeAll);
  if (count === 0) fail('perf.data has no event attributes', 24);
  const out: PerfAttr[] = [];
  for (let i = 0; i < count; i++) {
    const at = attrs.offset + i * attrSizeAll;
    const attr = readAttr(b, at, attrSizeAll - 16, `event ${i + 1}`);
    const ids = section(b, at + attrSizeAll - 16);
    if (ids.offset + ids.size > n) {
      warnings.push({ message: `event ${i + 1}: its ids lie past the end of the file`, offset: at });
    } else {
      for (let k = 0; k + 8 <= ids.size; k += 8) attr.ids.push(idKey(b, ids.offset + k));
    }
    out.push(attr);
  }

  let dataEnd = data.offset + data.size;
  if (data.offset < size || data.offset > n)
    fail(`the data section starts at byte ${data.offset}, outside the file`, 40);
  if (data.size === 0 && n > data.offset) {
    // perf record stopped before it wrote its header back (killed): the records run to the end.
    dataEnd = n;
    warnings.push({
      message:
        'the header gives no data size (perf record did not finish?): records are read to the end of the file',
      offset: 48,
    });
  }
  const features: FileHeader['features'] = [];
  if (size === FILE_HEADER && data.size > 0) {
    const feats: number[] = [];
    for (let w = 0; w < 4; w++) {
      const hi = b.hi(72 + 8 * w);
      const lo = b.lo(72 + 8 * w);
      for (let k = 0; k < 64; k++)
        if (((k < 32 ? lo >>> k : hi >>> (k - 32)) & 1) === 1) feats.push(64 * w + k);
    }
    const table = dataEnd;
    if (feats.length > 0 && table + 16 * feats.length > n) {
      warnings.push({
        message: `the feature sections (host, OS, command line, event names, build-ids) are missing: the file ends at byte ${n}, before them (truncated?)`,
        offset: n,
      });
    } else {
      feats.forEach((feat, i) => {
        const s = section(b, table + 16 * i);
        if (s.offset + s.size > n || s.offset < 0) {
          warnings.push({
            message: `feature ${featureName(feat)}: its section lies past the end of the file`,
            offset: table + 16 * i,
          });
        } else features.push({ feat, section: s });
      });
    }
  }
  const header: FileHeader = {
    pipe: false,
    dataOffset: data.offset,
    dataEnd,
    attrs: out,
    features,
    warnings,
  };
  if (dataEnd > n) {
    header.truncatedAt = dataEnd;
    header.dataEnd = n;
  }
  return header;
}

function section(b: PerfBytes, o: number): Section {
  return { offset: b.u64(o), size: b.u64(o + 8) };
}

// ─── feature sections ───────────────────────────────────────────────────────────────────────

/** HEADER_* feature numbers. */
export const FEAT = {
  TRACING_DATA: 1,
  BUILD_ID: 2,
  HOSTNAME: 3,
  OSRELEASE: 4,
  VERSION: 5,
  ARCH: 6,
  NRCPUS: 7,
  CPUDESC: 8,
  CPUID: 9,
  TOTAL_MEM: 10,
  CMDLINE: 11,
  EVENT_DESC: 12,
  SAMPLE_TIME: 21,
  CLOCKID: 23,
  DIR_FORMAT: 24,
  COMPRESSED: 27,
} as const;

const FEATURE_NAMES: Record<number, string> = {
  1: 'TRACING_DATA',
  2: 'BUILD_ID',
  3: 'HOSTNAME',
  4: 'OSRELEASE',
  5: 'VERSION',
  6: 'ARCH',
  7: 'NRCPUS',
  8: 'CPUDESC',
  9: 'CPUID',
  10: 'TOTAL_MEM',
  11: 'CMDLINE',
  12: 'EVENT_DESC',
  13: 'CPU_TOPOLOGY',
  14: 'NUMA_TOPOLOGY',
  15: 'BRANCH_STACK',
  16: 'PMU_MAPPINGS',
  17: 'GROUP_DESC',
  18: 'AUXTRACE',
  19: 'STAT',
  20: 'CACHE',
  21: 'SAMPLE_TIME',
  22: 'MEM_TOPOLOGY',
  23: 'CLOCKID',
  24: 'DIR_FORMAT',
  25: 'BPF_PROG_INFO',
  26: 'BPF_BTF',
  27: 'COMPRESSED',
  28: 'CPU_PMU_CAPS',
  29: 'CLOCK_DATA',
  30: 'HYBRID_TOPOLOGY',
  31: 'PMU_CAPS',
};

export function featureName(feat: number): string {
  return FEATURE_NAMES[feat] ?? `#${feat}`;
}

export interface BuildIdEntry {
  pid: number;
  buildId: string;
  path: string;
}

/** What the feature sections (file mode) or HEADER_FEATURE records (pipe mode) said. */
export interface PerfFeatures {
  hostname?: string;
  osRelease?: string;
  version?: string;
  arch?: string;
  cpuDesc?: string;
  cpuId?: string;
  nrCpusOnline?: number;
  nrCpusAvailable?: number;
  totalMemKb?: number;
  cmdline?: string[];
  /** EVENT_DESC: each event's name and ids, in attribute order. */
  events?: { name: string; ids: number[] }[];
  buildIds: BuildIdEntry[];
  /** SAMPLE_TIME: the first and last sample's time stamps (ns, as numbers). */
  sampleTime?: [number, number];
  clockId?: number;
  /** DIR_FORMAT: the data is spread over the files of a directory (perf record --threads). */
  dirFormat?: boolean;
  compressed?: boolean;
}

/**
 * Reads one feature's data in [o, o + size) into `into`. A damaged feature is left out with a
 * warning (its byte offset): features only describe the recording.
 */
export function readFeature(
  b: PerfBytes,
  feat: number,
  o: number,
  size: number,
  into: PerfFeatures,
  warn: (message: string, offset: number) => void,
): void {
  const end = o + size;
  const need = (at: number, n: number) => {
    if (at + n > end) throw new FeatureDamage(at);
  };
  /** perf_header_string: u32 len, then len bytes (NUL-padded). Returns the string and the end. */
  const str = (at: number): [string, number] => {
    need(at, 4);
    const len = b.u32(at);
    need(at + 4, len);
    return [b.cstr(at + 4, at + 4 + len), at + 4 + len];
  };
  try {
    switch (feat) {
      case FEAT.HOSTNAME:
        into.hostname = str(o)[0];
        break;
      case FEAT.OSRELEASE:
        into.osRelease = str(o)[0];
        break;
      case FEAT.VERSION:
        into.version = str(o)[0];
        break;
      case FEAT.ARCH:
        into.arch = str(o)[0];
        break;
      case FEAT.CPUDESC:
        into.cpuDesc = str(o)[0];
        break;
      case FEAT.CPUID:
        into.cpuId = str(o)[0];
        break;
      case FEAT.NRCPUS:
        // perf writes the CPUs present first, then those online
        need(o, 8);
        into.nrCpusAvailable = b.u32(o);
        into.nrCpusOnline = b.u32(o + 4);
        break;
      case FEAT.TOTAL_MEM:
        need(o, 8);
        into.totalMemKb = b.u64(o);
        break;
      case FEAT.CMDLINE: {
        need(o, 4);
        const nr = b.u32(o);
        const args: string[] = [];
        let at = o + 4;
        for (let i = 0; i < nr; i++) {
          const [s, next] = str(at);
          args.push(s);
          at = next;
        }
        into.cmdline = args;
        break;
      }
      case FEAT.EVENT_DESC: {
        need(o, 8);
        const nr = b.u32(o);
        const sz = b.u32(o + 4);
        let at = o + 8;
        const events: { name: string; ids: number[] }[] = [];
        for (let i = 0; i < nr; i++) {
          need(at, sz + 4);
          const nrIds = b.u32(at + sz);
          const [name, next] = str(at + sz + 4);
          need(next, nrIds * 8);
          const ids: number[] = [];
          for (let k = 0; k < nrIds; k++) ids.push(idKey(b, next + 8 * k));
          events.push({ name, ids });
          at = next + nrIds * 8;
        }
        into.events = events;
        break;
      }
      case FEAT.BUILD_ID:
        readBuildIds(b, o, end, into.buildIds, warn);
        break;
      case FEAT.SAMPLE_TIME:
        need(o, 16);
        into.sampleTime = [b.u64(o), b.u64(o + 8)];
        break;
      case FEAT.CLOCKID:
        need(o, 8);
        into.clockId = b.u64(o);
        break;
      case FEAT.DIR_FORMAT:
        into.dirFormat = true;
        break;
      case FEAT.COMPRESSED:
        into.compressed = true;
        break;
      default:
        break; // topology, caches, PMUs, BPF…: not shown
    }
  } catch (e) {
    if (!(e instanceof FeatureDamage)) throw e;
    warn(`feature ${featureName(feat)} is damaged: left out`, e.offset);
  }
}

class FeatureDamage extends Error {
  constructor(readonly offset: number) {
    super('feature damaged');
  }
}

/** PERF_RECORD_MISC_BUILD_ID_SIZE: the build-id's length is in the byte after its 20. */
const MISC_BUILD_ID_SIZE = 1 << 15;

/**
 * build_id_event records, as in the BUILD_ID feature and HEADER_BUILD_ID records: header, pid,
 * build_id[24] (20 bytes, or `size` of them with MISC_BUILD_ID_SIZE), the file name.
 */
export function readBuildIds(
  b: PerfBytes,
  o: number,
  end: number,
  into: BuildIdEntry[],
  warn: (message: string, offset: number) => void,
): void {
  let at = o;
  while (at + 8 <= end) {
    const size = b.u16(at + 6);
    if (size < 36 || at + size > end) {
      warn(`a build-id entry of ${size} bytes does not fit: the build-ids after it are left out`, at);
      return;
    }
    const misc = b.u16(at + 4);
    let len = 20;
    if (misc & MISC_BUILD_ID_SIZE) len = Math.min(20, b.bytes[at + 32]);
    let hex = '';
    let zero = true;
    for (let i = 0; i < len; i++) {
      const x = b.bytes[at + 12 + i];
      if (x !== 0) zero = false;
      hex += x.toString(16).padStart(2, '0');
    }
    const path = b.cstr(at + 36, at + size);
    if (!zero && path !== '') into.push({ pid: b.i32(at + 8), buildId: hex, path });
    at += size;
  }
}
