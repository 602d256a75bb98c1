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

const HEADER_RE =
  /^(\S.*?)\s+(?:(\d+)\/)?(\d+)\s+(?:\[(\d+)\]\s+)?(?:(\d+\.\d+):\s+)?(?:(\d+)\s+)?(\S+?):(?:\s+(.*))?$/;
const FRAME_RE = /^\s*([0-9a-fA-F]{1,16})(?:\s+(.*))?$/;
const OFFSET_RE = /\+0x[0-9a-fA-F]+$/;
const MAX_LINE_WARNINGS = 10;
/** Synthetic high words for DSOs whose addresses perf printed DSO-relative: non-canonical, never real. */
const SYNTHETIC_HI_BASE = 0x10000000;

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
 * Sniffs `perf script` text: the first line that is not blank or a `#` comment is a sample header
 * (unindented, `COMM TID … EVENT:`), and the line after it is a frame, a blank line or the end.
 */
export function looksLikePerfScript(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 65536);
  for (let i = 0; i < Math.min(head.length, 4096); i++) if (head[i] === 0) return false;
  const text = new TextDecoder('utf-8').decode(head);
  const first = firstLines(text);
  if (first === null) return false;
  const [header, next] = first;
  const m = HEADER_RE.exec(header);
  if (m === null) return false;
  // A time stamp or a period makes a header unmistakable; without both, ask for a frame after it.
  if (next === null || next.trim() === '') return m[5] !== undefined || m[6] !== undefined;
  return /^\s/.test(next) && parsePerfFrame(next) !== null;
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

  // Locations, keyed by their trimmed frame text (`1186 slow_key+0xd (/tmp/sorter)`).
  const locByKey = new Map<string, number>();
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

  const frameLoc = (key: string): number => {
    let id = locByKey.get(key);
    if (id !== undefined) return id;
    const f = parsePerfFrame(key);
    if (f === null) return -1;
    id = locHi.length;
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
    locByKey.set(key, id);
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
    const end = nl > pos && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
    const line = text.slice(pos, end);
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
    const c = line.charCodeAt(0);
    if (line.length === 0 || ((c === 32 || c === 9) && line.trim() === '')) {
      endSample();
      orphanBlock = false;
      continue;
    }
    if (c === 32 || c === 9) {
      if (!inSample) {
        if (!orphanBlock) bad(lineNo, 'frames without a sample header before them', line);
        orphanBlock = true;
        continue;
      }
      const loc = frameLoc(line.trim());
      if (loc < 0) bad(lineNo, 'not a frame line (`ADDR SYMBOL (DSO)`)', line);
      else stackLocs.push(loc);
      continue;
    }
    if (c === 35 /* # */) continue;
    const h = HEADER_RE.exec(line);
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
      const loc = frameLoc(rest);
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
