// Linux `perf script` text: one block per sample, blank line between blocks.
//
//   sorter  7799   322.494863:    2004008 cpu-clock:                 (header)
//   	            1186 slow_key+0xd (/tmp/sorter)                      (frames, leaf first)
//   	           3fbf4 msort_with_tmp.part.0+0x294 (/usr/lib/x86_64-linux-gnu/libc.so.6)
//
// Header variants (perf's default fields and -F choices; the variants Firefox Profiler's and
// speedscope's importers accept): COMM may hold spaces and digits; `TID` or `PID/TID`; an optional
// `[CPU]`; an optional `TIME:`; an optional PERIOD; then `EVENT:` (`cycles:ppp:` is the event
// `cycles:ppp`), then possibly the single frame of a sample without a call chain, or a tracepoint's
// payload. Frames: `ADDR [SYMBOL[+0xOFF]] [(DSO)]`. Lines starting with `#` are comments
// (`perf script --header`).
//
// What perf writes besides that: samples without call chains on one line each, with an indented
// header (`%16s` COMM: a recording without -g, `perf script -G`); samples without frames (`-F`
// without ip: one `[no frames]` frame each); side-band `COMM TID TIME: PERF_RECORD_*` lines
// (skipped); `ADDR NAME+0xOFF (inlined)` lines, the inline frames of the function below them
// (joined into its location). See docs/formats/perf-script.md for naming and addresses.

import { F64Builder, StringInterner, U32Builder } from '../address.ts';
import { periodUsFor } from '../model/sample-types.ts';
import type {
  LocationLines,
  Mapping,
  ProfileWarning,
  RawProfile,
  SampleLabel,
  SampleType,
} from '../types.ts';
import { ProfileError } from '../types.ts';
import { ByteInterner, hashBytes } from './byte-interner.ts';

/** A sample header after its COMM: `[PID/]TID [CPU] [TIME:] [PERIOD] EVENT:[ rest]`, from a blank run on. */
const HEADER_TAIL_RE =
  /\s+(?:(\d+)\/)?(\d+)\s+(?:\[(\d+)\]\s+)?(?:(\d+\.\d+):\s+)?(?:(\d+)\s+)?(\S+?):(?:\s+([\s\S]*))?$/y;
// The rest of a line is `[\s\S]*`, not `.*`: `.*` stopped at a CR or U+2028 and made `$` fail, and
// `\s+` before it backtracked quadratically over the blanks (20 s for one 80 000-character frame).
const FRAME_RE = /^\s*([0-9a-fA-F]{1,16})(?:\s+([\s\S]*))?$/;
const OFFSET_RE = /\+0x[0-9a-fA-F]+$/;
const MAX_LINE_WARNINGS = 10;
/** A byte's hex digit value, or -1. */
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;
/** Synthetic high words for DSOs whose addresses perf printed DSO-relative: non-canonical, never real. */
const SYNTHETIC_HI_BASE = 0x10000000;

/**
 * Frame lines already seen, found by their bytes, without decoding them. Each distinct line is
 * copied once into a dictionary (a few MB where the file is 100: comparisons stay in the cache,
 * where comparing with the line's first occurrence in the file missed it every time).
 *
 * - By prediction: each line remembers the last two lines that followed it (samples repeat their
 *   callers' frames), and a line whose bytes, from its first blank to its '\n', equal those of a
 *   predicted line's first occurrence is that line: one comparison, four bytes at a time, and no
 *   scan for the line's end nor hash.
 * - Else by a hash of the trimmed line's bytes, read four at a time, into an open-addressing
 *   table, confirmed against the dictionary.
 *
 * Each id's value is the line's location (-1: not a frame line). Decoding the file first and
 * hashing its text char by char made the parse 5× the floor.
 */
class ByteLineTable {
  private slots = new Int32Array(1 << 12).fill(-1);
  private hashes = new Int32Array(1024);
  /** The line's first occurrence in `dict`: from its start (4-byte aligned) to its '\n'. */
  private rawOffsets = new Int32Array(1024);
  private rawLengths = new Int32Array(1024);
  /** The trimmed line in `dict`. */
  private keyOffsets = new Int32Array(1024);
  private keyLengths = new Int32Array(1024);
  private dict = new Uint8Array(1 << 16);
  private dict32 = new Int32Array(this.dict.buffer);
  private dictView = new DataView(this.dict.buffer);
  private dictLength = 0;
  /**
   * next[id + 1], next2[id + 1]: the ids of the last two distinct lines after line `id` (next[0]:
   * after a header), the latest first, or -1. A line is often called from two places, and each
   * then follows it again.
   */
  next = new Int32Array(1025).fill(-1);
  next2 = new Int32Array(1025).fill(-1);
  readonly values: number[] = [];
  private count = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly view: DataView,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Line `id`'s trimmed text. */
  key(id: number): Uint8Array {
    return this.dict.subarray(this.keyOffsets[id], this.keyOffsets[id] + this.keyLengths[id]);
  }

  /** A hash of bytes[b, e). */
  hash(b: number, e: number): number {
    return hashBytes(this.bytes, this.view, b, e);
  }

  /** The id of the trimmed line bytes[b, e), or -1; `h` is hash(b, e). */
  find(b: number, e: number, h: number): number {
    const mask = this.slots.length - 1;
    const len = e - b;
    const { view, bytes, dict, dictView } = this;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const id = this.slots[p];
      if (id < 0) return -1;
      if (this.hashes[id] !== h || this.keyLengths[id] !== len) continue;
      const s = this.keyOffsets[id];
      let i = 0;
      while (i + 4 <= len && dictView.getInt32(s + i, true) === view.getInt32(b + i, true)) i += 4;
      while (i < len && dict[s + i] === bytes[b + i]) i++;
      if (i === len) return id;
    }
  }

  /**
   * The length (with its '\n') of the line at `start` if it is line `id`'s first occurrence byte
   * for byte, else 0.
   */
  rawMatch(id: number, start: number): number {
    const len = this.rawLengths[id];
    if (start + len > this.bytes.length) return 0;
    const { view, bytes, dict, dict32 } = this;
    const s = this.rawOffsets[id];
    const w = s >> 2;
    let i = 0;
    for (; i + 4 <= len; i += 4) if (dict32[w + (i >> 2)] !== view.getInt32(start + i, true)) return 0;
    for (; i < len; i++) if (dict[s + i] !== bytes[start + i]) return 0;
    return len;
  }

  /** Line `id` followed the line at index `prev` of `next` (see there). */
  followed(prev: number, id: number): void {
    const first = this.next[prev];
    if (first === id) return;
    this.next2[prev] = first;
    this.next[prev] = id;
  }

  /**
   * Adds the trimmed line bytes[b, e), not in the table, with its value; the whole line is
   * bytes[start, end), `end` after its '\n'. Ids are dense, in order.
   */
  add(b: number, e: number, h: number, value: number, start: number, end: number): number {
    const id = this.count++;
    if (id === this.hashes.length) {
      const grow = (a: Int32Array, by = 0) => {
        const n = new Int32Array(a.length * 2 + by).fill(-1);
        n.set(a);
        return n;
      };
      this.hashes = grow(this.hashes);
      this.rawOffsets = grow(this.rawOffsets);
      this.rawLengths = grow(this.rawLengths);
      this.keyOffsets = grow(this.keyOffsets);
      this.keyLengths = grow(this.keyLengths);
      this.next = grow(this.next, -1);
      this.next2 = grow(this.next2, -1);
    }
    const len = end - start;
    const off = this.dictLength;
    if (off + len + 4 > this.dict.length) {
      let size = this.dict.length * 2;
      while (off + len + 4 > size) size *= 2;
      const dict = new Uint8Array(size);
      dict.set(this.dict.subarray(0, off));
      this.dict = dict;
      this.dict32 = new Int32Array(dict.buffer);
      this.dictView = new DataView(dict.buffer);
    }
    this.dict.set(this.bytes.subarray(start, end), off);
    this.dictLength = (off + len + 3) & ~3;
    this.rawOffsets[id] = off;
    this.rawLengths[id] = len;
    this.keyOffsets[id] = off + (b - start);
    this.keyLengths[id] = e - b;
    this.hashes[id] = h;
    this.values.push(value);
    if (this.count * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2).fill(-1);
      for (let i = 0; i < this.count; i++) this.place(i);
    } else {
      this.place(id);
    }
    return id;
  }

  private place(id: number): void {
    const mask = this.slots.length - 1;
    let p = this.hashes[id] & mask;
    while (this.slots[p] >= 0) p = (p + 1) & mask;
    this.slots[p] = id;
  }
}

interface Frame {
  hi: number;
  lo: number;
  symbol: string;
  dso: string;
}

/** `ADDR SYMBOL+0xOFF (DSO)` → its parts (symbol without the offset), or null. */
export function parsePerfFrame(text: string): Frame | null {
  const m = FRAME_RE.exec(text);
  if (m === null) return null;
  let rest = (m[2] ?? '').trim();
  let dso = '';
  if (rest.endsWith(')')) {
    const i = rest.lastIndexOf(' (');
    if (i >= 0) {
      dso = rest.slice(i + 2, -1);
      rest = rest.slice(0, i).trim();
    } else if (rest.startsWith('(')) {
      dso = rest.slice(1, -1);
      rest = '';
    }
  }
  const digits = m[1].padStart(16, '0');
  return {
    hi: Number.parseInt(digits.slice(0, 8), 16),
    lo: Number.parseInt(digits.slice(8), 16),
    symbol: rest.replace(OFFSET_RE, ''),
    dso,
  };
}

/**
 * A sample header's fields, as `^(\S.*?)` + HEADER_TAIL_RE would match them: [line, COMM, PID,
 * TID, CPU, TIME, PERIOD, EVENT, rest], or null. COMM (which may hold blanks) ends at the first
 * blank run from which the rest parses; trying only run starts keeps this linear where the one
 * regular expression backtracked quadratically over a long run of blanks (a 40 000-blank line took
 * 1.3 s to sniff).
 */
type Header = [
  line: string,
  comm: string,
  pid: string | undefined,
  tid: string,
  cpu: string | undefined,
  time: string | undefined,
  period: string | undefined,
  event: string,
  rest: string | undefined,
];

function matchHeader(line: string): Header | null {
  if (line.length === 0 || isSpace(line.charCodeAt(0))) return null;
  for (let p = 1; p < line.length; p++) {
    const c = line.charCodeAt(p);
    // COMM is `.`s: it cannot hold a line terminator, so no later start can match either.
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
      if (!isSpace(line.charCodeAt(p - 1))) return tailAt(line, p);
      return null;
    }
    if (isSpace(c) && !isSpace(line.charCodeAt(p - 1))) {
      const m = tailAt(line, p);
      if (m !== null) return m;
    }
  }
  return null;
}

/** Whether the UTF-16 code unit `c` is white space, as `\s` is in a regular expression. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function tailAt(line: string, p: number): Header | null {
  HEADER_TAIL_RE.lastIndex = p;
  const t = HEADER_TAIL_RE.exec(line);
  return t === null ? null : ([line, line.slice(0, p), ...t.slice(1)] as Header);
}

/** How many white-space characters `line` begins with. */
function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  return i;
}

/**
 * Sniffs `perf script` text: the first line that is not blank, a `#` comment or a side-band
 * record (`PERF_RECORD_*`: then it only has to be a header) is a sample header (`COMM TID … EVENT:`;
 * indented when perf printed no call chains). The line after it is a frame, a blank line or the
 * end (then the header must have a time or a period), or another header (then both must, or the
 * first must carry its frame). A head of side-band records only is perf script text too.
 */
export function looksLikePerfScript(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 65536);
  for (let i = 0; i < Math.min(head.length, 4096); i++) if (head[i] === 0) return false;
  const lines = new TextDecoder('utf-8').decode(head).split('\n');
  let sideBand = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, '');
    if (l.trim() === '' || l.startsWith('#')) continue;
    if (isSideBand(l, indentOf(l))) {
      sideBand = true;
      continue;
    }
    const next = i + 1 < lines.length ? lines[i + 1].replace(/\r$/, '') : null;
    return startsSamples(l, next, sideBand);
  }
  return sideBand;
}

/** Whether `header` is a sample header that `next` (the line after it, or null) confirms. */
function startsSamples(header: string, next: string | null, afterSideBand: boolean): boolean {
  const m = matchHeader(header.slice(indentOf(header)));
  if (m === null) return false;
  if (afterSideBand) return true;
  // A time stamp or a period makes a header unmistakable; without both, ask for a frame after it.
  const stamped = m[5] !== undefined || m[6] !== undefined;
  if (next === null || next.trim() === '') return stamped;
  const indented = isSpace(header.charCodeAt(0));
  if (!indented && isSpace(next.charCodeAt(0)) && parsePerfFrame(next) !== null) return true;
  // one line per sample (no call chains): header after header
  const n = matchHeader(next.slice(indentOf(next)));
  return stamped && n !== null && (m[8] !== undefined || n[5] !== undefined || n[6] !== undefined);
}

function unitOf(event: string, hasPeriod: boolean): string {
  if (!hasPeriod) return 'count';
  return /^(cpu-clock|task-clock)(:|$)/.test(event) ? 'nanoseconds' : 'events';
}

/** The name of the one frame of samples perf printed no frames for (`-F` without `ip`). */
export const NO_FRAMES = '[no frames]';

/** Parses `perf script` text. Throws ProfileError when nothing usable is found. */
export function parsePerfScript(bytes: Uint8Array): RawProfile {
  if (bytes.length === 0) throw new ProfileError('empty file', 'perf-script', { offset: 0 });
  const reader = new PerfScriptReader(bytes);
  reader.readLines();
  return reader.finish();
}

/**
 * One pass over `perf script` text, kept in columns: locations (one per distinct frame line),
 * samples (stack, event, period, comm, pid, tid, cpu, time), then finish() builds the RawProfile.
 *
 * The bytes are read in place: only header lines, each distinct frame line and damaged lines are
 * decoded. A '\n', '\r', blank or tab byte is that character in UTF-8 and never part of another
 * one, so lines and their blanks are found in the bytes as in the decoded text; and a line's bytes
 * decode alone as they would inside the whole text.
 */
class PerfScriptReader {
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // keeps a U+FEFF inside the text
  private readonly view: DataView;
  private readonly warnings: ProfileWarning[] = [];
  private readonly strings = new StringInterner();

  // Locations, keyed by their trimmed frame text (`1186 slow_key+0xd (/tmp/sorter)`); -1 for a
  // line that is not a frame. Frame lines are found by their bytes first (`lineIds`): distinct
  // bytes that decode to the same text (invalid UTF-8) are one key.
  private readonly lineIds: ByteLineTable;
  // Distinct valid UTF-8 bytes decode to distinct text, so only keys with a U+FFFD (maybe from
  // invalid bytes) need `keyLoc`, until a header carries a frame: its text is looked up there,
  // and from then on every key is kept.
  private readonly keyLoc = new Map<string, number>();
  private allKeys = false;
  private readonly locHi = new U32Builder(1024);
  private readonly locLo = new U32Builder(1024);
  private readonly locName = new U32Builder(1024); // name + 1 (0 = none)
  private readonly locDso = new U32Builder(1024); // dso + 1 (0 = none)
  /** 1 for an `(inlined)` frame line's location: joined to its function by joinInlineFrames. */
  private readonly locInlined = new U32Builder(1024);
  private inlinedFrames = 0;
  private readonly dsoIds = new Map<string, number>();
  private readonly dsoPaths: string[] = [];
  private readonly dsoAbsolute: boolean[] = [];
  /** Symbols and DSOs of frame lines read from their bytes: decoded once per distinct value. */
  private readonly symbolIds: ByteInterner;
  private readonly dsoIdsByBytes: ByteInterner;

  private stackStart = new U32Builder(1024);
  private stackLocs = new U32Builder(8192);
  private readonly sampleEvent = new U32Builder(1024);
  private readonly samplePeriod = new F64Builder(1024);
  private readonly comm = new U32Builder(1024);
  private readonly pid = new U32Builder(1024); // string + 1 (0 = none)
  private readonly tid = new U32Builder(1024);
  /** The `[CPU]` string + 1 (0 = none), as a number's text (`[003]` is `3`, as perf.data's label). */
  private readonly cpu = new U32Builder(1024);
  /**
   * Each sample's time stamp in ns from the first stamp's whole second (NaN: none), read from the
   * text's digits (seconds since boot as ns pass 2^53 after 104 days): made relative to the
   * earliest at the end.
   */
  private readonly sampleTime = new F64Builder(1024);
  private timeBase = -1;
  private readonly events = new Map<string, number>();
  private readonly eventNames: string[] = [];
  private readonly eventHasPeriod: boolean[] = [];
  private minTime = Number.POSITIVE_INFINITY;
  private maxTime = Number.NEGATIVE_INFINITY;
  private readonly cpuIds = new Map<string, number>();

  private badLines = 0;
  private lineNo = 0;
  private inSample = false; // after a header, until a blank line
  /**
   * The sample's header was indented (`%16s` COMM: perf printed no call chain, `-G` or a recording
   * without -g): each indented line is a header first, and only else a frame.
   */
  private oneLine = false;
  private orphanBlock = false; // frames after a broken header
  private samplesWithoutFrames = 0;
  private sideBand = 0;
  private noFramesLoc = -1;
  /**
   * The line before this one in the sample, as an index into lineIds.next (its id + 1, 0 for the
   * header), or -1 when there is no prediction.
   */
  private prev = -1;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.lineIds = new ByteLineTable(bytes, this.view);
    this.symbolIds = new ByteInterner(bytes, this.view, (b, e) => {
      const symbol = this.decode(b, e);
      return symbol === '[unknown]' ? 0 : this.strings.intern(symbol) + 1;
    });
    this.dsoIdsByBytes = new ByteInterner(bytes, this.view, (b, e) => this.dsoId(this.decode(b, e)));
    this.stackStart.push(0);
  }

  /** Reads every line (the hot path: frame lines predicted from the line before them). */
  readLines(): void {
    const { bytes, view, lineIds } = this;
    const n = bytes.length;
    // TextDecoder drops a byte order mark, and so did this parser when it read decoded text.
    let pos = n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    while (pos < n) {
      const prev = this.prev;
      if (prev >= 0) {
        // a frame line that followed the previous line before, byte for byte
        let id = lineIds.next[prev];
        let len = id >= 0 ? lineIds.rawMatch(id, pos) : 0;
        if (len === 0) {
          id = lineIds.next2[prev];
          len = id >= 0 ? lineIds.rawMatch(id, pos) : 0;
          if (len > 0) lineIds.followed(prev, id);
        }
        if (len > 0) {
          this.stackLocs.push(lineIds.values[id]);
          this.prev = id + 1;
          pos += len;
          this.lineNo++;
          continue;
        }
      }
      // the next '\n', four bytes at a time (a word has a 0x0a byte when word ^ 0x0a0a0a0a has a 0)
      let nl = pos;
      while (nl + 4 <= n) {
        const x = view.getInt32(nl, true) ^ 0x0a0a0a0a;
        if (((x - 0x01010101) & ~x & 0x80808080) !== 0) break;
        nl += 4;
      }
      while (nl < n && bytes[nl] !== 10) nl++;
      this.lineNo++;
      if (nl === n) {
        this.cutAtEnd();
        break;
      }
      const start = pos;
      pos = nl + 1;
      const end = nl > start && bytes[nl - 1] === 13 ? nl - 1 : nl;
      const c = bytes[start];
      if (c === 32 || c === 9 || start === end) this.indentedLine(start, end, pos);
      else if (c !== 35 /* # */) this.headerLine(this.decode(start, end), false);
    }
    this.endSample();
  }

  /**
   * A frame line or a blank one, found without decoding; in a one-line sample (or outside any),
   * an indented header first. `next` is the start of the next line.
   */
  private indentedLine(start: number, lineEnd: number, next: number): void {
    const bytes = this.bytes;
    let b = start;
    while (b < lineEnd && (bytes[b] === 32 || bytes[b] === 9)) b++;
    if (b === lineEnd) {
      this.endSample();
      this.orphanBlock = false;
      return;
    }
    let end = lineEnd;
    while (end > b && (bytes[end - 1] === 32 || bytes[end - 1] === 9)) end--;
    if (this.oneLine || !this.inSample) {
      const line = this.decode(start, lineEnd);
      if (this.headerLine(line, true)) return;
      if (!this.inSample) {
        if (!this.orphanBlock) this.bad('frames without a sample header before them', this.decode(b, end));
        this.orphanBlock = true;
        return;
      }
    }
    const id = this.frameLine(b, end, start, next);
    const loc = this.lineIds.values[id];
    if (loc < 0) {
      this.bad('not a frame line (`ADDR SYMBOL (DSO)`)', this.decode(b, end));
      this.prev = -1;
    } else {
      this.stackLocs.push(loc);
      if (this.prev >= 0) this.lineIds.followed(this.prev, id);
      this.prev = this.oneLine ? -1 : id + 1;
    }
  }

  /**
   * An unindented line (or, `indented`, a candidate one): a side-band record, a sample header
   * (the sample begins), or damage. Returns false for an indented line that is no header (the
   * caller reads it as a frame) and true otherwise.
   */
  private headerLine(line: string, indented: boolean): boolean {
    let from = 0;
    while (from < line.length && isSpace(line.charCodeAt(from))) from++;
    if (isSideBand(line, from)) {
      this.sideBand++;
      this.endSample();
      return true;
    }
    const h = matchHeader(from === 0 ? line : line.slice(from));
    if (h === null) {
      if (indented) return false;
      const what = 'not a sample header (`COMM [PID/]TID [CPU] TIME: PERIOD EVENT:`)';
      if (this.inSample) {
        this.bad(what, line);
      } else {
        this.bad(`${what}; the frames after it are ignored`, line);
        this.orphanBlock = true;
      }
      return true;
    }
    this.endSample();
    this.orphanBlock = false;
    this.inSample = true;
    this.oneLine = indented;
    this.prev = indented ? -1 : 0;
    this.beginSample(h);
    return true;
  }

  /** A sample's columns from its header, and the frame on the header line if perf printed one. */
  private beginSample(h: Header): void {
    const event = h[7];
    let ev = this.events.get(event);
    if (ev === undefined) {
      ev = this.eventNames.length;
      this.events.set(event, ev);
      this.eventNames.push(event);
      this.eventHasPeriod.push(h[6] !== undefined);
    }
    this.sampleEvent.push(ev);
    this.samplePeriod.push(h[6] !== undefined ? Number(h[6]) : 1);
    this.comm.push(this.strings.intern(h[1].trim()));
    this.pid.push(h[2] !== undefined ? this.strings.intern(h[2]) + 1 : 0);
    this.tid.push(this.strings.intern(h[3]));
    this.cpu.push(h[4] !== undefined ? this.cpuId(h[4]) : 0);
    if (h[5] !== undefined) {
      const dot = h[5].indexOf('.');
      const seconds = Number(h[5].slice(0, dot));
      if (this.timeBase < 0) this.timeBase = seconds;
      const t = (seconds - this.timeBase) * 1e9 + Number(h[5].slice(dot + 1, dot + 10).padEnd(9, '0'));
      if (t < this.minTime) this.minTime = t;
      if (t > this.maxTime) this.maxTime = t;
      this.sampleTime.push(t);
    } else {
      this.sampleTime.push(Number.NaN);
    }
    const rest = h[8]?.trim();
    if (rest && FRAME_RE.test(rest) && /^[0-9a-fA-F]+\s/.test(rest)) {
      // the frame of a sample printed without a call chain, at the end of the header line
      if (!this.allKeys) {
        const { lineIds, keyLoc } = this;
        for (let id = 0; id < lineIds.size; id++) {
          const key = this.decoder.decode(lineIds.key(id));
          if (!keyLoc.has(key)) keyLoc.set(key, lineIds.values[id]);
        }
        this.allKeys = true;
      }
      const loc = this.keyToLoc(rest);
      if (loc >= 0) this.stackLocs.push(loc);
    }
  }

  /**
   * Ends the sample being read: one without frames gets the single frame NO_FRAMES (perf printed
   * none: `-F` without `ip`), so it still counts.
   */
  private endSample(): void {
    this.prev = -1;
    if (!this.inSample) return;
    this.inSample = false;
    if (this.stackLocs.length === this.stackStart.data[this.stackStart.length - 1]) {
      this.samplesWithoutFrames++;
      if (this.noFramesLoc < 0) this.noFramesLoc = this.newLoc(0, 0, this.strings.intern(NO_FRAMES) + 1, 0);
      this.stackLocs.push(this.noFramesLoc);
    }
    this.stackStart.push(this.stackLocs.length);
  }

  /** The file ends inside line lineNo: the sample there is left out (its stack is incomplete). */
  private cutAtEnd(): void {
    if (this.inSample) {
      this.stackLocs.length = this.stackStart.data[this.stackStart.length - 1];
      this.inSample = false;
      this.sampleEvent.length--;
      this.samplePeriod.length--;
      this.comm.length--;
      this.pid.length--;
      this.tid.length--;
      this.cpu.length--;
      this.sampleTime.length--;
    }
    this.warnings.push({
      message: `the file ends inside line ${this.lineNo} (truncated?): the sample there was left out`,
      line: this.lineNo,
    });
  }

  private bad(why: string, line: string): void {
    if (++this.badLines <= MAX_LINE_WARNINGS) {
      const lineNo = this.lineNo;
      this.warnings.push({
        message: `line ${lineNo} ignored: ${why}: ${line.trim().slice(0, 80)}`,
        line: lineNo,
      });
    }
  }

  /** bytes[b, e) as text; ASCII, the usual line, without TextDecoder (a call into it costs ~1 µs in Chromium). */
  private decode(b: number, e: number): string {
    const bytes = this.bytes;
    if (e - b <= 1024) {
      let i = b;
      while (i < e && bytes[i] < 0x80) i++;
      if (i === e) return String.fromCharCode.apply(null, bytes.subarray(b, e) as unknown as number[]);
    }
    return this.decoder.decode(bytes.subarray(b, e));
  }

  /** A `[CPU]`'s digits as a label: the number's text, interned, + 1. */
  private cpuId(digits: string): number {
    let id = this.cpuIds.get(digits);
    if (id === undefined) {
      id = this.strings.intern(String(Number(digits))) + 1;
      this.cpuIds.set(digits, id);
    }
    return id;
  }

  /** A DSO's id + 1; 0 for none (`[unknown]`), INLINED for perf's `(inlined)` mark. */
  private dsoId(dso: string): number {
    if (dso === '' || dso === '[unknown]') return 0;
    if (dso === 'inlined') return INLINED;
    let d = this.dsoIds.get(dso);
    if (d === undefined) {
      d = this.dsoPaths.length;
      this.dsoIds.set(dso, d);
      this.dsoPaths.push(dso);
      this.dsoAbsolute.push(false);
    }
    return d + 1;
  }

  /**
   * The first user frame after a sample's kernel frames is no return address: it is the user IP
   * where the kernel was entered (the interrupted or faulting instruction, or the one after a
   * system call), to be looked up as it is, as the perf.data reader does. The fold looks every
   * caller up at PC − 1 (`adjustCallers`), so that frame (and the inlined frames perf printed
   * at its address) gets a location of its own at PC + 1. Kernel frames: addresses in the
   * upper half (perf prints them whole; user addresses are DSO-relative or below 2^47).
   */
  private userIpsAfterKernel(): void {
    const starts = this.stackStart.data;
    const n = this.stackStart.length - 1;
    const locs = this.stackLocs.data;
    const hiOf = this.locHi.data;
    const loOf = this.locLo.data;
    const kernel = (loc: number) => hiOf[loc] >= 0xffff8000;
    const twins = new Map<number, number>();
    for (let s = 0; s < n; s++) {
      const end = starts[s + 1];
      for (let p = starts[s] + 1; p < end; p++) {
        if (!kernel(locs[p - 1]) || kernel(locs[p])) continue;
        const hi = hiOf[locs[p]];
        const lo = loOf[locs[p]];
        for (let q = p; q < end && hiOf[locs[q]] === hi && loOf[locs[q]] === lo; q++) {
          const loc = locs[q];
          let twin = twins.get(loc);
          if (twin === undefined) {
            twin = this.locHi.length;
            this.locHi.push(lo === 0xffffffff ? hi + 1 : hi);
            this.locLo.push(lo === 0xffffffff ? 0 : lo + 1);
            this.locName.push(this.locName.data[loc]);
            this.locDso.push(this.locDso.data[loc]);
            this.locInlined.push(this.locInlined.data[loc]);
            twins.set(loc, twin);
          }
          locs[q] = twin;
        }
      }
    }
  }

  /** A new location; `name`: a string id + 1 (0: none), `dso`: dsoId's. */
  private newLoc(hi: number, lo: number, name: number, dso: number): number {
    const id = this.locHi.length;
    const inlined = dso === INLINED;
    this.locHi.push(hi);
    this.locLo.push(lo);
    this.locName.push(name);
    this.locDso.push(inlined ? 0 : dso);
    this.locInlined.push(inlined ? 1 : 0);
    if (inlined) this.inlinedFrames++;
    else if (dso > 0 && hi !== 0) this.dsoAbsolute[dso - 1] = true;
    return id;
  }

  /** The location of the trimmed frame text `key`, or -1 when it is not a frame line. */
  private keyToLoc(key: string): number {
    const shared = this.allKeys || key.includes('\uFFFD');
    if (shared) {
      const seen = this.keyLoc.get(key);
      if (seen !== undefined) return seen;
    }
    const f = parsePerfFrame(key);
    const id =
      f === null
        ? -1
        : this.newLoc(
            f.hi,
            f.lo,
            f.symbol !== '' && f.symbol !== '[unknown]' ? this.strings.intern(f.symbol) + 1 : 0,
            this.dsoId(f.dso),
          );
    if (shared) this.keyLoc.set(key, id);
    return id;
  }

  /**
   * The location of the trimmed frame line bytes[b, e) read from its bytes as parsePerfFrame reads
   * its text, or -2 when the line is not ASCII with blanks and tabs for white space (or every key's
   * text is kept): then keyToLoc reads it.
   */
  private bytesToLoc(b: number, e: number): number {
    if (this.allKeys) return -2;
    const bytes = this.bytes;
    for (let i = b; i < e; i++) {
      const c = bytes[i];
      if (c >= 0x80 || (c >= 10 && c <= 13)) return -2;
    }
    // ADDR: 1 to 16 hex digits, then the end or blanks
    let i = b;
    while (i < e && HEX[bytes[i]] >= 0) i++;
    if (i === b || i - b > 16 || (i < e && bytes[i] !== 32 && bytes[i] !== 9)) return -1;
    let hi = 0;
    let lo = 0;
    const split = Math.max(b, i - 8);
    for (let k = b; k < split; k++) hi = hi * 16 + HEX[bytes[k]];
    for (let k = split; k < i; k++) lo = lo * 16 + HEX[bytes[k]];
    // the rest, [r, re): [SYMBOL[+0xOFF]] [(DSO)]
    let r = i;
    while (r < e && (bytes[r] === 32 || bytes[r] === 9)) r++;
    let re = e;
    let dso = 0;
    if (re > r && bytes[re - 1] === 41 /* ) */) {
      let j = re - 2;
      while (j >= r && !(bytes[j] === 32 && bytes[j + 1] === 40)) j--;
      if (j >= r) {
        dso = j + 2 < re - 1 ? this.dsoIdsByBytes.get(j + 2, re - 1) : 0;
        re = j;
        while (re > r && (bytes[re - 1] === 32 || bytes[re - 1] === 9)) re--;
      } else if (bytes[r] === 40 /* ( */) {
        dso = r + 1 < re - 1 ? this.dsoIdsByBytes.get(r + 1, re - 1) : 0;
        re = r;
      }
    }
    // a `+0xOFF` at the end is the offset
    let k = re - 1;
    while (k >= r && bytes[k] !== 43 /* + */) k--;
    if (k >= r && k + 3 < re && bytes[k + 1] === 48 /* 0 */ && bytes[k + 2] === 120 /* x */) {
      let x = k + 3;
      while (x < re && HEX[bytes[x]] >= 0) x++;
      if (x === re) re = k;
    }
    return this.newLoc(hi, lo, re > r ? this.symbolIds.get(r, re) : 0, dso);
  }

  /** The line id of the trimmed frame line bytes[b, e), in the line bytes[start, end). */
  private frameLine(b: number, e: number, start: number, end: number): number {
    const lineIds = this.lineIds;
    const h = lineIds.hash(b, e);
    const seen = lineIds.find(b, e, h);
    if (seen >= 0) return seen;
    const loc = this.bytesToLoc(b, e);
    return lineIds.add(b, e, h, loc === -2 ? this.keyToLoc(this.decode(b, e)) : loc, start, end);
  }

  /** The RawProfile of what was read; throws ProfileError when no sample was. */
  finish(): RawProfile {
    const count = this.sampleEvent.length;
    this.summaryWarnings();
    if (count === 0) {
      throw new ProfileError(
        this.badLines > 0
          ? `perf script text has no readable samples (${this.badLines} damaged lines)`
          : 'perf script text has no samples (no line of the form `COMM TID [TIME:] [PERIOD] EVENT:`)',
        'perf-script',
        { line: 1 },
      );
    }
    this.userIpsAfterKernel();
    const lines = this.inlinedFrames > 0 ? this.joinInlineFrames() : undefined;
    const { mappings, locations } = this.locationColumns();
    const { sampleTypes, values } = this.valueColumns();
    const labels = this.labelColumns();
    const out: RawProfile = {
      format: 'perf-script',
      meta: this.meta(mappings, sampleTypes, labels),
      locations,
      strings: this.strings.strings,
      samples: {
        count,
        stackStart: this.stackStart.finish(),
        stackLocs: this.stackLocs.finish(),
        weight: values[0],
        values,
        ...(this.maxTime >= this.minTime && { time: this.times(count) }),
      },
      sampleTypes,
      defaultSampleType: 0,
      labels,
      // callers are return addresses: an unnamed one is named (and symbolized) at PC − 1
      adjustCallers: true,
      warnings: this.warnings,
    };
    if (lines) out.lines = lines;
    out.meta.periodUs = periodUsFor(out, 0);
    return out;
  }

  /** Each sample's time in ns since the earliest (NaN for a sample without a time stamp). */
  private times(count: number): Float64Array {
    const time = this.sampleTime.data.slice(0, count);
    for (let s = 0; s < count; s++) time[s] -= this.minTime;
    return time;
  }

  /** The warnings that count: more damaged lines, samples without frames. */
  private summaryWarnings(): void {
    if (this.badLines > MAX_LINE_WARNINGS) {
      this.warnings.push({ message: `${this.badLines - MAX_LINE_WARNINGS} more damaged lines ignored` });
    }
    if (this.samplesWithoutFrames > 0) {
      this.warnings.push({
        message:
          `${this.samplesWithoutFrames} samples have no frames (perf script printed no ip for them: ` +
          `\`-F\` without \`ip\`): each is one ${NO_FRAMES} frame; group by comm or tid to see them by thread`,
      });
    }
  }

  /**
   * perf prints a function's inline frames as `ADDR NAME+0xOFF (inlined)` lines above it, at its
   * address: each run of them and the frame below with the same address become one location whose
   * lines are the function then its inlined callees (as pprof's), so the innermost inlined
   * function is the leaf (self goes to it, as in perf report's call graphs) and the location's
   * name is the function (perf report's Symbol). A run without its function (perf printed none at
   * that address) is a location of its own, named by its outermost frame.
   */
  private joinInlineFrames(): LocationLines {
    const { locHi, locLo, locInlined } = this;
    const oldStart = this.stackStart.finish();
    const oldLocs = this.stackLocs.finish();
    const nSamples = oldStart.length - 1;
    const stackStart = new U32Builder(nSamples + 1);
    const stackLocs = new U32Builder(oldLocs.length);
    stackStart.push(0);
    const joined = new Map<string, number>();
    const chains: number[][] = []; // the frames (locations) of each joined location, outermost first
    const chainLoc: number[] = [];
    const join = (run: number[], fn: number): number => {
      const key = fn < 0 ? run.join(',') : `${run.join(',')},${fn}`;
      let loc = joined.get(key);
      if (loc === undefined) {
        const base = fn >= 0 ? fn : run[run.length - 1];
        const chain = [...run].reverse();
        if (fn >= 0) chain.unshift(fn);
        loc = this.newLoc(
          locHi.data[base],
          locLo.data[base],
          this.locName.data[chain[0]],
          this.locDso.data[base],
        );
        joined.set(key, loc);
        chains.push(chain);
        chainLoc.push(loc);
      }
      return loc;
    };
    const run: number[] = [];
    for (let s = 0; s < nSamples; s++) {
      for (let p = oldStart[s]; p < oldStart[s + 1]; p++) {
        const loc = oldLocs[p];
        if (locInlined.data[loc]) {
          run.push(loc);
          continue;
        }
        if (run.length > 0) {
          const same = locHi.data[loc] === locHi.data[run[0]] && locLo.data[loc] === locLo.data[run[0]];
          if (same) {
            stackLocs.push(join(run, loc));
            run.length = 0;
            continue;
          }
          stackLocs.push(join(run, -1));
          run.length = 0;
        }
        stackLocs.push(loc);
      }
      if (run.length > 0) stackLocs.push(join(run, -1));
      run.length = 0;
      stackStart.push(stackLocs.length);
    }
    this.stackStart = stackStart;
    this.stackLocs = stackLocs;
    return this.chainLines(chains, chainLoc);
  }

  /** LocationLines naming each joined location's frames (names only: perf prints no lines here). */
  private chainLines(chains: number[][], chainLoc: number[]): LocationLines {
    const nLoc = this.locHi.length;
    const byLoc = new Int32Array(nLoc).fill(-1);
    for (let i = 0; i < chainLoc.length; i++) byLoc[chainLoc[i]] = i;
    const total = chains.reduce((n, c) => n + c.length, 0);
    const start = new Uint32Array(nLoc + 1);
    const name = new Int32Array(total);
    let k = 0;
    for (let loc = 0; loc < nLoc; loc++) {
      start[loc] = k;
      const c = byLoc[loc];
      if (c < 0) continue;
      for (const f of chains[c])
        name[k++] = this.locName.data[f] > 0 ? this.locName.data[f] - 1 : this.unknownName();
    }
    start[nLoc] = k;
    return { start, name, file: new Int32Array(total).fill(-1), line: new Uint32Array(total) };
  }

  private unknownName(): number {
    return this.strings.intern('[unknown]');
  }

  /**
   * The locations' columns, and a synthetic mapping for each DSO perf printed relative addresses
   * for (every address below 2^32): a non-overlapping range, so `DSO+0xADDR` names and dropped ELF
   * files symbolize them.
   */
  private locationColumns(): { mappings: Mapping[]; locations: RawProfile['locations'] } {
    const { dsoPaths, dsoAbsolute } = this;
    const mappings: Mapping[] = [];
    const dsoHi = new Int32Array(dsoPaths.length).fill(-1);
    for (let d = 0, k = 0; d < dsoPaths.length; d++) {
      if (dsoAbsolute[d]) continue;
      const hi = SYNTHETIC_HI_BASE + k++;
      dsoHi[d] = hi;
      const start = BigInt(hi) << 32n;
      mappings.push({ start, end: start + 0x100000000n, offset: 0n, path: dsoPaths[d] });
    }
    const nLoc = this.locHi.length;
    const addrHi = this.locHi.finish();
    const names = new Int32Array(nLoc);
    const hasAddr = new Uint8Array(nLoc).fill(1);
    const dsoOf = this.locDso.data;
    for (let i = 0; i < nLoc; i++) {
      names[i] = this.locName.data[i] - 1;
      const d = dsoOf[i] - 1;
      if (d >= 0 && dsoHi[d] >= 0) addrHi[i] = dsoHi[d];
    }
    if (this.noFramesLoc >= 0) hasAddr[this.noFramesLoc] = 0;
    return {
      mappings,
      locations: { count: nLoc, addrHi, addrLo: this.locLo.finish(), hasAddr, locName: names },
    };
  }

  /** One value column per event (its period, else 1; 0 for the other events' samples), then counts. */
  private valueColumns(): { sampleTypes: SampleType[]; values: Float64Array[] } {
    const count = this.sampleEvent.length;
    const ev = this.sampleEvent.data;
    const period = this.samplePeriod.data;
    const values: Float64Array[] = this.eventNames.map(() => new Float64Array(count));
    for (let s = 0; s < count; s++) values[ev[s]][s] = period[s];
    values.push(new Float64Array(count).fill(1));
    const sampleTypes: SampleType[] = this.eventNames.map((e, i) => ({
      type: e,
      unit: unitOf(e, this.eventHasPeriod[i]),
    }));
    sampleTypes.push({ type: 'samples', unit: 'count' });
    return { sampleTypes, values };
  }

  /** The comm, pid (when perf printed it), tid and cpu (when perf printed it) labels. */
  private labelColumns(): SampleLabel[] {
    const count = this.sampleEvent.length;
    const label = (key: string, b: U32Builder, plusOne: boolean): SampleLabel => {
      const v = new Int32Array(count);
      for (let s = 0; s < count; s++) v[s] = b.data[s] - (plusOne ? 1 : 0);
      return { key, kind: 'string', value: v };
    };
    const labels = [
      label('comm', this.comm, false),
      label('pid', this.pid, true),
      label('tid', this.tid, false),
    ];
    if (!labels[1].value.some((x) => x >= 0)) labels.splice(1, 1);
    const cpu = label('cpu', this.cpu, true);
    if (cpu.value.some((x) => x >= 0)) labels.push(cpu);
    return labels;
  }

  /** Events, counts, the first event's period, the duration and what perf's addresses allow. */
  private meta(mappings: Mapping[], sampleTypes: SampleType[], labels: SampleLabel[]): RawProfile['meta'] {
    const count = this.sampleEvent.length;
    const absolute = this.dsoPaths.filter((_, d) => this.dsoAbsolute[d]);
    const extra: Record<string, string> = {
      events: this.eventNames.join(', '),
      samples: String(count),
      commands: String(new Set(labels[0].value).size),
      threads: String(new Set(this.tid.data.subarray(0, count)).size),
    };
    if (absolute.length > 0) {
      extra['run-time addresses'] =
        `${absolute.length} DSOs (${absolute.slice(0, 3).join(', ')}${absolute.length > 3 ? ', …' : ''}): ` +
        'frames perf could not name stay 0x… addresses';
    }
    if (this.inlinedFrames > 0) extra['inline frames'] = "perf's `(inlined)` lines, joined to their function";
    if (this.sideBand > 0) {
      extra['side-band records'] = `${this.sideBand} PERF_RECORD_* lines (mmap, comm, fork, exit…) skipped`;
    }
    const meta: RawProfile['meta'] = { periodUs: 0, mappings, extra };
    if (this.eventHasPeriod[0]) {
      const first = this.sampleEvent.data.subarray(0, count).indexOf(0);
      meta.period = { value: this.samplePeriod.data[first], type: sampleTypes[0] };
    }
    if (this.maxTime >= this.minTime) {
      // perf's time stamps count from boot, not from the epoch: only the span is kept
      meta.durationNs = this.maxTime - this.minTime;
    }
    return meta;
  }
}

/** locDso's mark for an `(inlined)` frame line (no DSO index is this large). */
const INLINED = 0xffffffff;

/**
 * A side-band record line of `perf script --show-mmap-events`, `--show-task-events`…: the header's
 * `COMM TID TIME:` then `PERF_RECORD_NAME`. `from` is the line's first non-blank.
 */
function isSideBand(line: string, from: number): boolean {
  const i = line.indexOf('PERF_RECORD_', from);
  if (i <= from || !isSpace(line.charCodeAt(i - 1))) return false;
  let j = i - 1;
  while (j > from && (isSpace(line.charCodeAt(j)) || line.charCodeAt(j) === 58) /* : */) j--;
  const c = line.charCodeAt(j);
  return c >= 48 && c <= 57;
}
