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
// (`perf script --header`). See docs/formats/perf-script.md for naming and addresses.

import { F64Builder, StringInterner, U32Builder } from '../address.ts';
import type { Mapping, ProfileWarning, RawMeta, RawProfile, SampleLabel, SampleType } from '../types.ts';
import { ProfileError } from '../types.ts';

/** A sample header after its COMM: `[PID/]TID [CPU] [TIME:] [PERIOD] EVENT:[ rest]`, from a blank run on. */
const HEADER_TAIL_RE =
  /\s+(?:(\d+)\/)?(\d+)\s+(?:\[(\d+)\]\s+)?(?:(\d+\.\d+):\s+)?(?:(\d+)\s+)?(\S+?):(?:\s+([\s\S]*))?$/y;
// The rest of a line is `[\s\S]*`, not `.*`: `.*` stopped at a CR or U+2028 and made `$` fail, and
// `\s+` before it backtracked quadratically over the blanks (20 s for one 80 000-character frame).
const FRAME_RE = /^\s*([0-9a-fA-F]{1,16})(?:\s+([\s\S]*))?$/;
const OFFSET_RE = /\+0x[0-9a-fA-F]+$/;
const MAX_LINE_WARNINGS = 10;
/** Synthetic high words for DSOs whose addresses perf printed DSO-relative: non-canonical, never real. */
const SYNTHETIC_HI_BASE = 0x10000000;

/**
 * Frame lines already seen, found by their text in place: a hash of the characters (no slice per
 * line) into an open-addressing table, checked against the line's first occurrence in the same
 * text. A Map keyed by sliced strings spent ~60% of the parse of a 100 MB file hashing and
 * comparing them, and so did startsWith against stored slices.
 */
class LineTable {
  private slots = new Int32Array(1 << 12).fill(-1);
  private hashes: number[] = [];
  private starts: number[] = [];
  private lengths: number[] = [];

  constructor(private readonly text: string) {}

  /**
   * Hashes the length, the first 24 characters (the address and the start of the symbol) and the
   * last 12 (the end of the DSO): lines that share all three are rare and told apart by `find`.
   */
  hash(b: number, e: number): number {
    const text = this.text;
    let h = 0x811c9dc5 ^ (e - b);
    const m = Math.min(e, b + 24);
    for (let i = b; i < m; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    for (let i = Math.max(m, e - 12); i < e; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    return (h ^ (h >>> 15)) >>> 0;
  }

  /** The id of text[b, e), or -1; `h` is hash(b, e). */
  find(b: number, e: number, h: number): number {
    const text = this.text;
    const mask = this.slots.length - 1;
    const len = e - b;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const id = this.slots[p];
      if (id < 0) return -1;
      if (this.hashes[id] === h && this.lengths[id] === len) {
        const s = this.starts[id];
        let i = 0;
        while (i < len && text.charCodeAt(s + i) === text.charCodeAt(b + i)) i++;
        if (i === len) return id;
      }
    }
  }

  /** Adds text[b, e), not in the table; ids are dense, in order. */
  add(b: number, e: number, h: number): number {
    const id = this.starts.length;
    this.starts.push(b);
    this.lengths.push(e - b);
    this.hashes.push(h);
    if (this.starts.length * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2).fill(-1);
      for (let i = 0; i < this.starts.length; i++) this.place(i);
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

/** Reads the first line that is not blank and not a `#` comment, and the line after it. */
function firstLines(text: string): [string, string | null] | null {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, '');
    if (l.trim() === '' || l.startsWith('#')) continue;
    return [l, i + 1 < lines.length ? lines[i + 1].replace(/\r$/, '') : null];
  }
  return null;
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
  if (line.length === 0 || /\s/.test(line[0])) return null;
  for (let p = 1; p < line.length; p++) {
    const c = line.charCodeAt(p);
    // COMM is `.`s: it cannot hold a line terminator, so no later start can match either.
    if (c === 10 || c === 13 || c === 0x2028 || c === 0x2029) {
      if (!/\s/.test(line[p - 1])) return tailAt(line, p);
      return null;
    }
    if (/\s/.test(line[p]) && !/\s/.test(line[p - 1])) {
      const m = tailAt(line, p);
      if (m !== null) return m;
    }
  }
  return null;
}

function tailAt(line: string, p: number): Header | null {
  HEADER_TAIL_RE.lastIndex = p;
  const t = HEADER_TAIL_RE.exec(line);
  return t === null ? null : ([line, line.slice(0, p), ...t.slice(1)] as Header);
}

/**
 * Sniffs `perf script` text: the first line that is not blank or a `#` comment is a sample header
 * (unindented, `COMM TID … EVENT:`), and the line after it is a frame, a blank line or the end
 * (then the header must have a time or a period), or another header (then both must, and the
 * first must carry its frame).
 */
export function looksLikePerfScript(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 65536);
  for (let i = 0; i < Math.min(head.length, 4096); i++) if (head[i] === 0) return false;
  const text = new TextDecoder('utf-8').decode(head);
  const first = firstLines(text);
  if (first === null) return false;
  const [header, next] = first;
  const m = matchHeader(header);
  if (m === null) return false;
  // A time stamp or a period makes a header unmistakable; without both, ask for a frame after it.
  const stamped = m[5] !== undefined || m[6] !== undefined;
  if (next === null || next.trim() === '') return stamped;
  if (/^\s/.test(next)) return parsePerfFrame(next) !== null;
  // samples without call chains: header after header, each with its frame
  return stamped && m[8] !== undefined && matchHeader(next) !== null;
}

function unitOf(event: string, hasPeriod: boolean): string {
  if (!hasPeriod) return 'count';
  return /^(cpu-clock|task-clock)(:|$)/.test(event) ? 'nanoseconds' : 'events';
}

/** Parses `perf script` text. Throws ProfileError when nothing usable is found. */
export function parsePerfScript(bytes: Uint8Array): RawProfile {
  if (bytes.length === 0) throw new ProfileError('empty file', 'perf-script', { offset: 0 });
  const text = new TextDecoder('utf-8').decode(bytes);
  const warnings: ProfileWarning[] = [];
  const strings = new StringInterner();

  // Locations, keyed by their trimmed frame text (`1186 slow_key+0xd (/tmp/sorter)`); -1 for a
  // line that is not a frame.
  const lineIds = new LineTable(text);
  const lineLoc: number[] = [];
  const locHi = new U32Builder(1024);
  const locLo = new U32Builder(1024);
  const locName = new U32Builder(1024); // name + 1 (0 = none)
  const locDso = new U32Builder(1024); // dso + 1 (0 = none)
  const dsoIds = new Map<string, number>();
  const dsoPaths: string[] = [];
  const dsoAbsolute: boolean[] = [];

  const stackStart = new U32Builder(1024);
  const stackLocs = new U32Builder(8192);
  const sampleEvent = new U32Builder(1024);
  const samplePeriod = new F64Builder(1024);
  const comm = new U32Builder(1024);
  const pid = new U32Builder(1024); // string + 1 (0 = none)
  const tid = new U32Builder(1024);
  stackStart.push(0);
  const events = new Map<string, number>();
  const eventNames: string[] = [];
  const eventHasPeriod: boolean[] = [];
  let minTime = Number.POSITIVE_INFINITY;
  let maxTime = Number.NEGATIVE_INFINITY;

  let badLines = 0;
  const bad = (lineNo: number, why: string, line: string) => {
    if (++badLines <= MAX_LINE_WARNINGS) {
      warnings.push({ message: `line ${lineNo} ignored: ${why}: ${line.trim().slice(0, 80)}`, line: lineNo });
    }
  };

  /** The location of the frame text[b, e), or -1 when it is not a frame line. */
  const frameLoc = (b: number, e: number): number => {
    const h = lineIds.hash(b, e);
    const seen = lineIds.find(b, e, h);
    if (seen >= 0) return lineLoc[seen];
    const key = text.slice(b, e);
    lineIds.add(b, e, h);
    const f = parsePerfFrame(key);
    if (f === null) {
      lineLoc.push(-1);
      return -1;
    }
    const id = locHi.length;
    lineLoc.push(id);
    locHi.push(f.hi);
    locLo.push(f.lo);
    const named = f.symbol !== '' && f.symbol !== '[unknown]';
    locName.push(named ? strings.intern(f.symbol) + 1 : 0);
    if (f.dso === '' || f.dso === '[unknown]') {
      locDso.push(0);
    } else {
      let d = dsoIds.get(f.dso);
      if (d === undefined) {
        d = dsoPaths.length;
        dsoIds.set(f.dso, d);
        dsoPaths.push(f.dso);
        dsoAbsolute.push(false);
      }
      if (f.hi !== 0) dsoAbsolute[d] = true;
      locDso.push(d + 1);
    }
    return id;
  };

  let inSample = false; // after a header, until a blank line
  let orphanBlock = false; // frames after a broken header
  let samplesWithoutFrames = 0;
  let lineNo = 0;
  let pos = 0;
  const n = text.length;
  let cutAtEnd = false;

  const endSample = () => {
    if (!inSample) return;
    inSample = false;
    if (stackLocs.length === stackStart.data[stackStart.length - 1]) {
      // no frames: drop the sample (nothing to draw)
      samplesWithoutFrames++;
      sampleEvent.length--;
      samplePeriod.length--;
      comm.length--;
      pid.length--;
      tid.length--;
      return;
    }
    stackStart.push(stackLocs.length);
  };

  while (pos < n) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) {
      nl = n;
      cutAtEnd = true;
    }
    let end = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    const start = pos;
    pos = nl + 1;
    lineNo++;
    if (cutAtEnd) {
      if (inSample) {
        // the file ends inside this sample's last line: its stack is incomplete
        stackLocs.length = stackStart.data[stackStart.length - 1];
        endSample();
        samplesWithoutFrames--;
      }
      warnings.push({
        message: `the file ends inside line ${lineNo} (truncated?): the sample there was left out`,
        line: lineNo,
      });
      break;
    }
    const c = text.charCodeAt(start);
    if (c === 32 || c === 9 || start === end) {
      // a frame line, or a blank one: found without slicing or trimming twice (the hot path)
      let b = start;
      while (b < end && (text.charCodeAt(b) === 32 || text.charCodeAt(b) === 9)) b++;
      if (b === end) {
        endSample();
        orphanBlock = false;
        continue;
      }
      while (end > b && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--;
      if (!inSample) {
        if (!orphanBlock) bad(lineNo, 'frames without a sample header before them', text.slice(b, end));
        orphanBlock = true;
        continue;
      }
      const loc = frameLoc(b, end);
      if (loc < 0) bad(lineNo, 'not a frame line (`ADDR SYMBOL (DSO)`)', text.slice(b, end));
      else stackLocs.push(loc);
      continue;
    }
    const line = text.slice(start, end);
    if (c === 35 /* # */) continue;
    const h = matchHeader(line);
    if (h === null) {
      const what = 'not a sample header (`COMM [PID/]TID [CPU] TIME: PERIOD EVENT:`)';
      if (inSample) {
        bad(lineNo, what, line);
      } else {
        bad(lineNo, `${what}; the frames after it are ignored`, line);
        orphanBlock = true;
      }
      continue;
    }
    endSample();
    orphanBlock = false;
    inSample = true;
    const event = h[7];
    let ev = events.get(event);
    if (ev === undefined) {
      ev = eventNames.length;
      events.set(event, ev);
      eventNames.push(event);
      eventHasPeriod.push(h[6] !== undefined);
    }
    sampleEvent.push(ev);
    samplePeriod.push(h[6] !== undefined ? Number(h[6]) : 1);
    comm.push(strings.intern(h[1].trim()));
    pid.push(h[2] !== undefined ? strings.intern(h[2]) + 1 : 0);
    tid.push(strings.intern(h[3]));
    if (h[5] !== undefined) {
      const t = Number(h[5]);
      if (t < minTime) minTime = t;
      if (t > maxTime) maxTime = t;
    }
    const rest = h[8]?.trim();
    if (rest && FRAME_RE.test(rest) && /^[0-9a-fA-F]+\s/.test(rest)) {
      // the frame of a sample printed without a call chain, at the end of the header line
      const e = start + line.trimEnd().length;
      const loc = frameLoc(e - rest.length, e);
      if (loc >= 0) stackLocs.push(loc);
    }
  }
  endSample();

  const count = sampleEvent.length;
  if (badLines > MAX_LINE_WARNINGS) {
    warnings.push({ message: `${badLines - MAX_LINE_WARNINGS} more damaged lines ignored` });
  }
  if (samplesWithoutFrames > 0) {
    warnings.push({ message: `${samplesWithoutFrames} samples without frames left out` });
  }
  if (count === 0) {
    throw new ProfileError(
      badLines > 0
        ? `perf script text has no readable samples (${badLines} damaged lines)`
        : 'perf script text has no samples with frames (record with -g, print with ip,sym,dso)',
      'perf-script',
      { line: 1 },
    );
  }

  // DSOs perf printed relative addresses for (every address below 2^32) get a synthetic
  // non-overlapping range, so `DSO+0xADDR` names and dropped ELF files symbolize them.
  const mappings: Mapping[] = [];
  const dsoHi = new Int32Array(dsoPaths.length).fill(-1);
  for (let d = 0, k = 0; d < dsoPaths.length; d++) {
    if (dsoAbsolute[d]) continue;
    const hi = SYNTHETIC_HI_BASE + k++;
    dsoHi[d] = hi;
    const start = BigInt(hi) << 32n;
    mappings.push({ start, end: start + 0x100000000n, offset: 0n, path: dsoPaths[d] });
  }
  const nLoc = locHi.length;
  const addrHi = locHi.finish();
  const names = new Int32Array(nLoc);
  const dsoOf = locDso.data;
  for (let i = 0; i < nLoc; i++) {
    names[i] = locName.data[i] - 1;
    const d = dsoOf[i] - 1;
    if (d >= 0 && dsoHi[d] >= 0) addrHi[i] = dsoHi[d];
  }

  // One value column per event (its period, else 1; 0 for the other events' samples), then counts.
  const ev = sampleEvent.finish();
  const period = samplePeriod.finish();
  const values: Float64Array[] = eventNames.map(() => new Float64Array(count));
  for (let s = 0; s < count; s++) values[ev[s]][s] = period[s];
  values.push(new Float64Array(count).fill(1));
  const sampleTypes: SampleType[] = eventNames.map((e, i) => ({
    type: e,
    unit: unitOf(e, eventHasPeriod[i]),
  }));
  sampleTypes.push({ type: 'samples', unit: 'count' });

  const label = (key: string, b: U32Builder, plusOne: boolean): SampleLabel => {
    const v = new Int32Array(count);
    for (let s = 0; s < count; s++) v[s] = b.data[s] - (plusOne ? 1 : 0);
    return { key, kind: 'string', value: v };
  };
  const labels = [label('comm', comm, false), label('pid', pid, true), label('tid', tid, false)];
  if (!labels[1].value.some((x) => x >= 0)) labels.splice(1, 1);

  const absolute = dsoPaths.filter((_, d) => dsoAbsolute[d]);
  const extra: Record<string, string> = {
    events: eventNames.join(', '),
    samples: String(count),
    commands: String(new Set(labels[0].value).size),
    threads: String(new Set(tid.data.subarray(0, count)).size),
  };
  if (absolute.length > 0) {
    extra['run-time addresses'] =
      `${absolute.length} DSOs (${absolute.slice(0, 3).join(', ')}${absolute.length > 3 ? ', …' : ''}): ` +
      'frames perf could not name stay 0x… addresses';
  }
  const meta: RawMeta = { periodUs: 0, mappings, extra };
  if (eventHasPeriod[0]) {
    meta.period = { value: period[ev.indexOf(0)], type: sampleTypes[0] };
  }
  if (maxTime >= minTime) {
    // perf's time stamps count from boot, not from the epoch: only the span is kept
    meta.durationNs = Math.round((maxTime - minTime) * 1e9);
  }
  return {
    format: 'perf-script',
    meta,
    locations: {
      count: nLoc,
      addrHi,
      addrLo: locLo.finish(),
      hasAddr: new Uint8Array(nLoc).fill(1),
      locName: names,
    },
    strings: strings.strings,
    samples: {
      count,
      stackStart: stackStart.finish(),
      stackLocs: stackLocs.finish(),
      weight: values[0],
      values,
    },
    sampleTypes,
    defaultSampleType: 0,
    labels,
    // callers are return addresses: an unnamed one is named (and symbolized) at PC − 1
    adjustCallers: true,
    warnings,
  };
}
