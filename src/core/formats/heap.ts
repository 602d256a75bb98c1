// gperftools heap profiles, legacy text (HEAPPROFILE=prefix, tcmalloc's heapz):
//
//   heap profile:   2504:  2092496 [  6512: 31798224] @ heapprofile
//        1:  1048576 [     9:  2093056] @ 0x56386938b1a8 0x56386938b34e …     (leaf first)
//   …
//   MAPPED_LIBRARIES:                                  (or `--- Memory map:`)
//   <the process's /proc/self/maps>
//
// Each line: in-use objects: in-use bytes [allocated objects: allocated bytes] @ return addresses.
// The header's type is `heapprofile` (the heap profiler: every allocation, no scaling), `heap_v2/RATE`
// (tcmalloc sampling, a Poisson process of mean RATE bytes), `heap/2·RATE` (v1), `growth`/`growthz`
// or `fragmentation`. Facts from pprof's profile/legacy_profile.go (parseHeap, parseHeapHeader,
// parseHeapSample, scaleHeapSample, allocRxStr) and perl google-pprof (ReadHeapProfile,
// FixCallerAddresses, RemoveUninterestingFrames); differences are noted where we choose.

import { AddrTable, addressLocations, F64Builder, U32Builder } from '../address.ts';
import type { ProfileWarning, RawMeta, RawProfile, SampleType } from '../types.ts';
import { ProfileError } from '../types.ts';
import { parseMapsText } from './gperftools.ts';
import { joinBytes } from './text-preview.ts';

/**
 * The value columns of a heap profile, in pprof's order (legacy_profile.go parseHeap: allocations,
 * then what is in use), so a sample type's index is pprof's `-sample_index`; the default is in-use
 * bytes (index 3, pprof's default too).
 */
export const HEAP_SAMPLE_TYPES: readonly SampleType[] = [
  { type: 'alloc_objects', unit: 'count' },
  { type: 'alloc_space', unit: 'bytes' },
  { type: 'inuse_objects', unit: 'count' },
  { type: 'inuse_space', unit: 'bytes' },
];
export const HEAP_DEFAULT_SAMPLE_TYPE = 3;

/**
 * pprof's allocRxStr (legacy_profile.go): allocator entry points and internals. The fold drops the
 * first matching frame below the first non-matching one, and everything leafward of it
 * (RawMeta.dropFrames). gperftools' own heap stacks already start at malloc's caller, so this
 * mostly matters for stacks that pass through `operator new`, `realloc` wrappers and the like.
 */
export const ALLOC_DROP_FRAMES = [
  'calloc',
  'cfree',
  'malloc',
  'free',
  'memalign',
  'do_memalign',
  '(__)?posix_memalign',
  'pvalloc',
  'valloc',
  'realloc',
  'tcmalloc::.*',
  'tc_calloc',
  'tc_cfree',
  'tc_malloc',
  'tc_free',
  'tc_memalign',
  'tc_posix_memalign',
  'tc_pvalloc',
  'tc_valloc',
  'tc_realloc',
  'tc_new',
  'tc_delete',
  'tc_newarray',
  'tc_deletearray',
  'tc_new_nothrow',
  'tc_newarray_nothrow',
  'malloc_zone_malloc',
  'malloc_zone_calloc',
  'malloc_zone_valloc',
  'malloc_zone_realloc',
  'malloc_zone_memalign',
  'malloc_zone_free',
  'runtime\\..*',
  'BaseArena::.*',
  '(::)?do_malloc_no_errno',
  '(::)?do_malloc_pages',
  '(::)?do_malloc',
  'DoSampledAllocation',
  'MallocedMemBlock::MallocedMemBlock',
  '_M_allocate',
  '__builtin_(vec_)?delete',
  '__builtin_(vec_)?new',
  '__gnu_cxx::new_allocator::allocate',
  '__libc_malloc',
  '__malloc_alloc_template::allocate',
  'allocate',
  'cpp_alloc',
  'operator new(\\[\\])?',
  'simple_alloc::allocate',
].join('|');

/** pprof's allocSkipRxStr: Go runtime frames kept even though they match ALLOC_DROP_FRAMES. */
export const ALLOC_KEEP_FRAMES = ['runtime\\.panic', 'runtime\\.reflectcall', 'runtime\\.call[0-9]*'].join(
  '|',
);

/**
 * The header line, matched with its trailing blanks trimmed (`headerOf`): a final `\s*$` after the
 * optional type and period backtracked quadratically into the blanks after `@` (a 50 000-blank
 * header took 3.5 s).
 */
const HEADER_RE =
  /^\s*heap profile:\s*(\d+):\s*(\d+)\s*\[\s*(\d+):\s*(\d+)\s*\]\s*@\s*([A-Za-z_][\w]*)?(?:\/(\d*))?$/;
const headerOf = (line: string) => HEADER_RE.exec(line.trimEnd());
const SAMPLE_RE = /^\s*(-?\d+):\s*(-?\d+)\s*\[\s*(\d+):\s*(\d+)\s*\]\s*@((?:\s+0x[0-9a-fA-F]+)*)\s*$/;
const MAPS_SENTINELS = ['MAPPED_LIBRARIES:', '--- Memory map:'];
const MAX_LINE_WARNINGS = 10;
const MAX_HEX_DIGITS = 16;

/** True when the text starts (after blank lines) with a `heap profile:` header pprof accepts. */
export function looksLikeHeap(bytes: Uint8Array): boolean {
  let p = 0;
  while (p < bytes.length && (bytes[p] === 32 || bytes[p] === 9 || bytes[p] === 10 || bytes[p] === 13)) p++;
  const end = Math.min(bytes.length, p + 256);
  let e = p;
  while (e < end && bytes[e] !== 10) e++;
  const line = String.fromCharCode(...bytes.subarray(p, e)).replace(/\r$/, '');
  return headerOf(line) !== null;
}

interface Sampling {
  /** What the header says, for the metadata panel. */
  kind: string;
  /** The Poisson mean of scaleHeapSample, or 0 for no scaling. */
  rate: number;
  description: string;
}

/**
 * The header's sampling, as pprof's parseHeapHeader: `heapprofile` → none (every allocation is
 * recorded); `heap_v2`/`heapz_v2` with RATE → scaled by RATE; `heap` with N → scaled by N/2 (pprof
 * reads v1 as v2 at half the printed period; perl pprof applies its own v1 formula instead);
 * growth, fragmentation and an absent type → none. RATE 0 or 1 means no scaling.
 */
function samplingOf(type: string | undefined, period: string | undefined): Sampling {
  const n = period !== undefined && period !== '' ? Number(period) : 0;
  const t = type ?? '';
  let rate = 0;
  if (t === 'heap_v2' || t === 'heapz_v2') rate = n;
  else if (t === 'heap' || t === 'heapz') rate = Math.floor(n / 2);
  const kind = t === '' ? '(none)' : period !== undefined && period !== '' ? `${t}/${period}` : t;
  if (rate > 1) {
    return {
      kind,
      rate,
      description: `unsampled at rate ${rate} (pprof's formula: × 1/(1 − e^(−avgsize/rate)))`,
    };
  }
  if (t === 'heapprofile')
    return { kind, rate: 0, description: 'every allocation recorded (heap profiler): no scaling' };
  return { kind, rate: 0, description: 'no scaling' };
}

/** pprof's scaleHeapSample: [count, bytes] divided by the probability of being sampled, truncated. */
export function scaleHeapSample(count: number, bytes: number, rate: number): [number, number] {
  if (count === 0 || bytes === 0) return [0, 0];
  if (rate <= 1) return [count, bytes];
  const avg = bytes / count;
  const scale = 1 / (1 - Math.exp(-avg / rate));
  return [Math.trunc(count * scale), Math.trunc(bytes * scale)];
}

/** Decodes a line's bytes (a byte order mark inside the text kept, as a decode of the whole text). */
const lineDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
/** Files from this size on have their columns sized from their first sixteenth. */
const ESTIMATE_FROM = 16 << 20;

/**
 * Parses a gperftools legacy heap profile. Throws ProfileError when nothing usable is found.
 *
 * The bytes are read in place, line by line (HeapLineParser); the same parser reads a large file
 * from its chunks as they are read (heap-chunks.ts), with the same result.
 */
export function parseHeap(bytes: Uint8Array): RawProfile {
  if (bytes.length === 0) throw new ProfileError('empty file', 'heap', { offset: 0 });
  const n = bytes.length;
  const parser = new HeapLineParser(n, bomLength(bytes));
  const pos = parser.lines(bytes, parser.first, n, 0);
  if (parser.inMaps) parser.addMaps(bytes.subarray(pos));
  else if (pos < n || parser.lineCount === 0) parser.lastLine(bytes, pos, n, 0);
  return parser.finish();
}

/** 3 when the bytes start with UTF-8's byte order mark, else 0. */
export function bomLength(bytes: Uint8Array): number {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
}

/**
 * The reader of a heap profile's lines, handed them in the file's order in pieces: `lines` reads
 * the lines of a piece of bytes that end in '\n' (a line that runs on into the next piece is the
 * caller's to join), `lastLine` the file's last line when no '\n' ends it, `addMaps` the bytes after
 * the maps section's sentinel, `finish` makes the profile.
 *
 * A sample line of the usual form (ASCII digits, blanks, `0x` addresses: readSampleLine) is read
 * from its bytes; any other line is decoded and read as text (its regex, its warnings), as the whole
 * file once was. A '\n' or '\r' byte is that character in UTF-8 and never part of another one, so
 * lines are the decoded text's lines.
 */
export class HeapLineParser {
  /** Lines read so far (the last one's number: warnings and errors name lines). */
  lineCount = 0;
  /** Whether the maps section's sentinel was read: the rest of the file is its text (addMaps). */
  inMaps = false;
  private header: RegExpExecArray | null = null;
  private headerLine = 0;
  private sampling: Sampling = { kind: '', rate: 0, description: '' };
  private readonly warnings: ProfileWarning[] = [];
  private readonly addrs = new AddrTable(1024);
  private readonly stackStart = new U32Builder(1024);
  private readonly stackLocs = new U32Builder(4096);
  private readonly cols = [
    new F64Builder(1024),
    new F64Builder(1024),
    new F64Builder(1024),
    new F64Builder(1024),
  ];
  private readonly blockSize = new F64Builder(1024);
  private readonly fast: SampleLineReader;
  private bad = 0;
  private readonly maps: Uint8Array[] = [];
  private lastLineCut = false;
  /**
   * A large file's columns are sized once, from what its first sixteenth holds: doubling them as
   * they fill held the old and the new array at once (a 400 MB file: its 36M-frame stacks in 134 +
   * 268 MB, then the 145 MB copy that finish makes).
   */
  private estimateAt: number;

  /** `size`: the file's bytes; `first`: where its text starts (after a byte order mark). */
  constructor(
    private readonly size: number,
    readonly first: number,
  ) {
    this.stackStart.push(0);
    this.fast = new SampleLineReader(this.addrs, this.stackLocs);
    this.estimateAt = size >= ESTIMATE_FROM ? first + Math.floor(size / 16) : Number.POSITIVE_INFINITY;
  }

  /**
   * Reads the lines of `bytes` that start at `from` or after it and before `until` and end in a
   * '\n' within `bytes` (`base`: the file offset of bytes[0]). Returns the start of the first line
   * not read: `until` or past it, or where the bytes after the last '\n' begin, or (`inMaps`) where
   * the maps section's text begins.
   */
  lines(bytes: Uint8Array, from: number, until: number, base: number): number {
    let pos = from;
    while (pos < until) {
      const nl = bytes.indexOf(10, pos);
      if (nl < 0) return pos;
      const lineStart = pos;
      const lineEnd = nl > pos && bytes[nl - 1] === 13 ? nl - 1 : nl;
      pos = nl + 1;
      if (this.line(bytes, lineStart, lineEnd, base, false)) return pos;
    }
    return pos;
  }

  /** Reads the file's last line, bytes[from, to), which no '\n' ends (a sample's frames may be lost). */
  lastLine(bytes: Uint8Array, from: number, to: number, base: number): void {
    this.line(bytes, from, to > from && bytes[to - 1] === 13 ? to - 1 : to, base, true);
  }

  /**
   * One line, bytes[start, end) without its line end (`last`: the file's last, which no '\n'
   * ends). True when the maps section begins there (see otherLine).
   */
  private line(bytes: Uint8Array, start: number, end: number, base: number, last: boolean): boolean {
    this.lineCount++;
    if (this.header === null) {
      this.headerOf(bytes, start, end);
      return false;
    }
    if (base + start >= this.estimateAt) this.sizeColumns(base + start);
    const fast = this.fast;
    if (fast.read(bytes, start, end)) {
      if (last) this.lastLineCut = true;
      this.addSample(fast.values[0], fast.values[1], fast.values[2], fast.values[3]);
      return false;
    }
    return this.otherLine(bytes, start, end, last);
  }

  /** Bytes of the maps section's text, in order (kept until finish: the caller must not reuse them). */
  addMaps(bytes: Uint8Array): void {
    if (bytes.length > 0) this.maps.push(bytes);
  }

  /** The header, once a non-blank line is read: ProfileError when it is no heap profile's. */
  private headerOf(bytes: Uint8Array, start: number, end: number): void {
    const line = decode(bytes, start, end);
    if (line.trim() === '') return;
    const header = headerOf(line);
    if (header === null) throw notHeap(this.lineCount);
    this.header = header;
    this.headerLine = this.lineCount;
    this.sampling = samplingOf(header[5], header[6]);
  }

  private sizeColumns(lineStart: number): void {
    this.estimateAt = Number.POSITIVE_INFINITY;
    const scale = ((this.size - this.first) / (lineStart - this.first)) * 1.05;
    this.stackLocs.growTo(Math.ceil(this.stackLocs.length * scale));
    this.stackStart.growTo(Math.ceil(this.stackStart.length * scale));
    for (const c of [...this.cols, this.blockSize]) c.growTo(Math.ceil(c.length * scale));
  }

  private addSample(inuseN: number, inuseB: number, allocN: number, allocB: number): void {
    this.stackStart.push(this.stackLocs.length);
    const rate = this.sampling.rate;
    const [n1, b1] = scaleHeapSample(inuseN, inuseB, rate);
    const [n2, b2] = scaleHeapSample(allocN, allocB, rate);
    const cols = this.cols; // HEAP_SAMPLE_TYPES' order: allocations, then in use
    cols[0].push(n2);
    cols[1].push(b2);
    cols[2].push(n1);
    cols[3].push(b1);
    // pprof's `bytes` label: the (unscaled) average block size, from the in-use pair when it has one
    this.blockSize.push(
      inuseN !== 0 ? Math.trunc(inuseB / inuseN) : allocN !== 0 ? Math.trunc(allocB / allocN) : 0,
    );
  }

  /**
   * A line that is no sample line of the usual form, read as text: a comment, the maps section's
   * sentinel (true: the rest of the file is its text), a sample line read by its regex, or a
   * damaged line (a warning). `cut`: no '\n' ends it.
   */
  private otherLine(bytes: Uint8Array, start: number, end: number, cut: boolean): boolean {
    const line = decode(bytes, start, end);
    const t = line.trim();
    if (t === '' || t.startsWith('#')) return false;
    if (MAPS_SENTINELS.some((s) => t.includes(s))) {
      this.inMaps = true;
      return true;
    }
    if (cut) this.lastLineCut = true;
    const m = SAMPLE_RE.exec(line);
    let why = '';
    if (m === null) why = 'not a sample line (`N: BYTES [N: BYTES] @ 0xADDR …`)';
    else if (m[5].trim() === '') why = 'sample without addresses';
    else if (Number(m[1]) === 0 && Number(m[2]) !== 0) why = 'in-use count 0 but bytes not 0';
    else if (Number(m[3]) === 0 && Number(m[4]) !== 0) why = 'allocated count 0 but bytes not 0';
    const hex = m === null || why !== '' ? [] : m[5].trim().split(/\s+/);
    if (hex.some((h) => h.slice(2).replace(/^0+/, '').length > MAX_HEX_DIGITS)) why = 'address above 64 bits';
    if (why !== '' || m === null) {
      if (++this.bad <= MAX_LINE_WARNINGS) {
        const lineNo = this.lineCount;
        this.warnings.push({ message: `line ${lineNo} skipped: ${why}: ${t.slice(0, 80)}`, line: lineNo });
      }
      return false;
    }
    // leaf first in the file and in RawProfile: the order is kept
    for (const h of hex) {
      const digits = h
        .slice(2)
        .replace(/^0+(?=.)/, '')
        .padStart(16, '0');
      const hi = Number.parseInt(digits.slice(0, 8), 16);
      const lo = Number.parseInt(digits.slice(8), 16);
      this.stackLocs.push(this.addrs.intern(hi, lo));
    }
    this.addSample(Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4]));
    return false;
  }

  /** The profile of the lines read. Throws ProfileError when there was no header or no sample. */
  finish(): RawProfile {
    const { header, warnings, bad, cols, sampling } = this;
    const lineNo = this.lineCount;
    if (header === null) throw notHeap(lineNo);
    if (bad > MAX_LINE_WARNINGS)
      warnings.push({ message: `${bad - MAX_LINE_WARNINGS} more damaged lines skipped` });
    const count = cols[0].length;
    const mapsText = this.inMaps ? decodeAll(this.maps) : null;
    if (this.lastLineCut && mapsText === null) {
      warnings.push({
        message: `the file ends inside line ${lineNo} (truncated?): its last sample may have lost frames; no mapped-libraries list`,
        line: lineNo,
      });
    } else if (mapsText === null) {
      warnings.push({ message: 'no MAPPED_LIBRARIES section: addresses stay unsymbolized' });
    }
    if (count === 0 && bad > 0) {
      throw new ProfileError(`heap profile has no readable samples (${bad} damaged lines)`, 'heap', {
        line: this.headerLine + 1,
      });
    }

    const extra: Record<string, string> = {
      'heap profile type': sampling.kind,
      sampling: sampling.description,
      'header in-use': `${header[1]} objects, ${header[2]} bytes`,
      'header allocated': `${header[3]} objects, ${header[4]} bytes`,
      samples: String(count),
    };
    const meta: RawMeta = {
      periodUs: 0,
      mappings: [],
      extra,
      dropFrames: ALLOC_DROP_FRAMES,
      keepFrames: ALLOC_KEEP_FRAMES,
    };
    if (sampling.rate > 1) meta.period = { value: sampling.rate, type: { type: 'space', unit: 'bytes' } };
    if (mapsText !== null) {
      const maps = parseMapsText(mapsText);
      meta.mappings = maps.mappings;
      if (maps.build !== undefined) meta.headerLines = [{ key: 'build', value: maps.build, known: true }];
      extra['mapped-objects lines'] = String(maps.lines);
    }

    const values = cols.map(finished);
    return {
      format: 'heap',
      meta,
      locations: addressLocations(this.addrs),
      strings: [],
      samples: {
        count,
        stackStart: this.stackStart.finish(),
        stackLocs: this.stackLocs.finish(),
        weight: values[HEAP_DEFAULT_SAMPLE_TYPE],
        values,
      },
      sampleTypes: HEAP_SAMPLE_TYPES.map((t) => ({ ...t })),
      defaultSampleType: HEAP_DEFAULT_SAMPLE_TYPE,
      labels: [{ key: 'bytes', kind: 'number', value: finished(this.blockSize), unit: 'bytes' }],
      // Every frame is a return address, the leaf's too (the call to the allocator): looked up at
      // PC − 1, as Go pprof's parseHeap does (perl google-pprof's FixCallerAddresses leaves the leaf
      // as is: at a function's last call the leaf then names the next line, or the next function).
      adjustCallers: true,
      adjustLeaves: true,
      warnings,
    };
  }
}

const decode = (bytes: Uint8Array, start: number, end: number) =>
  lineDecoder.decode(bytes.subarray(start, end));

/**
 * A column's values: a view of its array when that is nearly full (a large file's columns, sized
 * once from its first sixteenth, are: a copy of each made 66 MB more of a 400 MB file's), else a
 * copy of their length.
 */
function finished(c: F64Builder): Float64Array {
  return c.length >= c.data.length * 0.9 ? c.data.subarray(0, c.length) : c.finish();
}

/** Pieces of UTF-8 decoded as one text (a character split between two pieces kept whole). */
function decodeAll(parts: readonly Uint8Array[]): string {
  if (parts.length === 0) return '';
  return lineDecoder.decode(parts.length === 1 ? parts[0] : joinBytes(parts));
}

function notHeap(line: number): ProfileError {
  return new ProfileError(
    'not a gperftools heap profile: the first line is not `heap profile: N: BYTES [N: BYTES] @ TYPE`',
    'heap',
    { line: Math.max(1, line) },
  );
}

const HEX_VALUE = new Int8Array(256).fill(-1);
for (let c = 0; c < 10; c++) HEX_VALUE[48 + c] = c;
for (let c = 0; c < 6; c++) {
  HEX_VALUE[65 + c] = 10 + c;
  HEX_VALUE[97 + c] = 10 + c;
}

/**
 * A sample line read from its bytes, when it has the usual form and nothing to warn about:
 * `N: B [N: B] @ 0xA 0xB …` with blanks (spaces, tabs) where SAMPLE_RE allows white space, at most
 * 15 digits per number (exact as a double, as Number() reads them), at least one address of at
 * most 16 significant hex digits, and counts 0 only with bytes 0. Whatever else (other white
 * space, a longer number, damage) is left to the text path, which reads it as it always did.
 */
class SampleLineReader {
  /** The line's in-use count, bytes, allocated count, bytes. */
  readonly values = new Float64Array(4);

  constructor(
    private readonly addrs: AddrTable,
    private readonly stackLocs: U32Builder,
  ) {}

  /** Reads the line bytes[start, end); true when it was a sample line of the usual form (its frames pushed). */
  read(bytes: Uint8Array, start: number, end: number): boolean {
    const v = this.values;
    let p = start;
    // the four numbers: `N: B [N: B]`, blanks allowed where SAMPLE_RE has \s*
    for (let i = 0; i < 4; i++) {
      while (p < end && (bytes[p] === 32 || bytes[p] === 9)) p++;
      if (i === 2) {
        if (p === end || bytes[p] !== 91 /* [ */) return false;
        p++;
        while (p < end && (bytes[p] === 32 || bytes[p] === 9)) p++;
      }
      const neg = i < 2 && p < end && bytes[p] === 45; /* - */
      if (neg) p++;
      const d0 = p;
      let x = 0;
      while (p < end && bytes[p] >= 48 && bytes[p] <= 57) x = x * 10 + (bytes[p++] - 48);
      if (p === d0 || p - d0 > 15) return false;
      v[i] = neg ? -x : x;
      if (i === 0 || i === 2) {
        if (p === end || bytes[p] !== 58 /* : */) return false;
        p++;
      }
    }
    while (p < end && (bytes[p] === 32 || bytes[p] === 9)) p++;
    if (p === end || bytes[p] !== 93 /* ] */) return false;
    p++;
    while (p < end && (bytes[p] === 32 || bytes[p] === 9)) p++;
    if (p === end || bytes[p] !== 64 /* @ */) return false;
    p++;
    if ((v[0] === 0 && v[1] !== 0) || (v[2] === 0 && v[3] !== 0)) return false;
    const locs = this.stackLocs;
    const addrs = this.addrs;
    const mark = locs.length;
    for (;;) {
      const b = p;
      while (p < end && (bytes[p] === 32 || bytes[p] === 9)) p++;
      if (p === end) break;
      // an address needs blanks before it, then `0x` and hex digits, then blanks or the end
      if (p === b || bytes[p] !== 48 || p + 2 >= end || bytes[p + 1] !== 120) {
        locs.length = mark;
        return false;
      }
      let q = p + 2;
      while (q < end && bytes[q] === 48) q++;
      const digits = q;
      while (q < end && HEX_VALUE[bytes[q]] >= 0) q++;
      if (q === p + 2 || q - digits > 16 || (q < end && bytes[q] !== 32 && bytes[q] !== 9)) {
        locs.length = mark;
        return false;
      }
      let hi = 0;
      let lo = 0;
      const split = Math.max(digits, q - 8);
      for (let k = digits; k < split; k++) hi = hi * 16 + HEX_VALUE[bytes[k]];
      for (let k = split; k < q; k++) lo = lo * 16 + HEX_VALUE[bytes[k]];
      locs.push(addrs.intern(hi, lo));
      p = q;
    }
    return locs.length > mark;
  }
}
