// gperftools (Google CPU profiler) binary profiles: header, records, trailer, mapped-objects text.
// See docs: cpuprofile-fileformat. 32/64-bit × little/big endian, detected from the header.
// Never allocates from a count read from the file: every record is checked against what remains.

import { F64Builder, U32Builder } from '../address.ts';
import type { ByteOrder, Mapping, ProfileWarning, RawProfile } from '../types.ts';
import { ProfileError } from '../types.ts';

export interface ParseOptions {
  /** Called with 0..1 every few MB of records. */
  onProgress?: (fraction: number) => void;
}

/** Header words above this are treated as corrupt (the profiler writes 3). */
const MAX_HEADER_WORDS = 0x10000;
/** A num_pcs up to this that runs past the end of the file is a truncation; above it, corruption. */
const MAX_PLAUSIBLE_DEPTH = 0x10000;
/** Individual warnings of one kind before they are summarised. */
const MAX_REPEATED_WARNINGS = 5;
const PROGRESS_STEP_BYTES = 4 << 20;

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

interface Layout {
  wordSize: 4 | 8;
  le: boolean;
  hdrWords: number;
  version: number;
}

/** Reads slot k of a layout as [hi, lo]; null if the file is too short. */
function headerSlot(dv: DataView, ws: 4 | 8, le: boolean, k: number): [number, number] | null {
  const off = k * ws;
  if (off + ws > dv.byteLength) return null;
  if (ws === 4) return [0, dv.getUint32(off, le)];
  const a = dv.getUint32(off, le);
  const b = dv.getUint32(off + 4, le);
  return le ? [b, a] : [a, b];
}

/**
 * Candidate layouts: slot 0 is 0 and 3 <= slot 1 < 65536. Preferred: header words exactly 3,
 * then version 0, then 64-bit, then little endian.
 */
function detectLayouts(bytes: Uint8Array): Layout[] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Layout[] = [];
  for (const ws of [8, 4] as const) {
    for (const le of [true, false]) {
      const s0 = headerSlot(dv, ws, le, 0);
      const s1 = headerSlot(dv, ws, le, 1);
      const s2 = headerSlot(dv, ws, le, 2);
      if (!s0 || !s1 || !s2) continue;
      if (s0[0] !== 0 || s0[1] !== 0) continue;
      if (s1[0] !== 0 || s1[1] < 3 || s1[1] >= MAX_HEADER_WORDS) continue;
      out.push({ wordSize: ws, le, hdrWords: s1[1], version: s2[0] !== 0 ? -1 : s2[1] });
    }
  }
  const rank = (l: Layout) =>
    (l.hdrWords === 3 ? 0 : 8) + (l.version === 0 ? 0 : 4) + (l.wordSize === 8 ? 0 : 2) + (l.le ? 0 : 1);
  out.sort((a, b) => rank(a) - rank(b));
  return out;
}

/** True when the bytes start like a gperftools CPU profile header in some layout. */
export function looksLikeGperftools(bytes: Uint8Array): boolean {
  return detectLayouts(bytes).length > 0;
}

function notAProfile(bytes: Uint8Array): ProfileError {
  if (bytes.length === 0) return new ProfileError('empty file', 'gperftools', { offset: 0 });
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const ws of [8, 4] as const) {
    for (const le of [true, false]) {
      const s0 = headerSlot(dv, ws, le, 0);
      const s1 = headerSlot(dv, ws, le, 1);
      if (s0 && s1 && s0[0] === 0 && s0[1] === 0 && (s1[0] !== 0 || s1[1] >= MAX_HEADER_WORDS)) {
        return new ProfileError(
          'not a gperftools CPU profile (corrupt header?): the header-words slot is absurdly large',
          'gperftools',
          { offset: ws },
        );
      }
    }
  }
  if (bytes.length < 20) {
    return new ProfileError(
      `not a gperftools CPU profile: file is too short for a header (${bytes.length} bytes)`,
      'gperftools',
      { offset: 0 },
    );
  }
  return new ProfileError(
    'not a gperftools CPU profile: no 32/64-bit little/big-endian reading gives header count 0 and ' +
      'header words >= 3',
    'gperftools',
    { offset: 0 },
  );
}

/** The file's words as uint32 values in file order, converted to host order. */
function wordsOf(bytes: Uint8Array, le: boolean): Uint32Array {
  const n = bytes.length >>> 2;
  if (le === HOST_LE && bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, n);
  const out = new Uint32Array(n);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, n * 4);
  for (let i = 0; i < n; i++) out[i] = dv.getUint32(i * 4, le);
  return out;
}

/**
 * Open-addressing interner for (hi, lo) addresses; much faster than a Map on millions of PCs.
 *
 * A 100 MB profile has 13M PCs over ~64k addresses, so `intern` is the parser's inner loop and
 * its cost is cache misses (the table is larger than L2). Each slot therefore holds its key next
 * to its id, [id + 1, lo, hi, unused] in 16 aligned bytes, so a lookup touches one cache line
 * instead of three (slot, lo[id], hi[id]); 0 marks an empty slot, so no fill(-1) is needed.
 * The hash is one multiply (Fibonacci hashing: the top bits of (lo ^ hi·c)·φ).
 */
class AddrTable {
  count = 0;
  hi: Uint32Array;
  lo: Uint32Array;
  private slots: Uint32Array;
  private shift: number;
  private mask: number;

  constructor(capacity = 4096) {
    this.hi = new Uint32Array(capacity);
    this.lo = new Uint32Array(capacity);
    this.slots = new Uint32Array(capacity * 2 * 4);
    this.mask = capacity * 2 - 1;
    this.shift = 32 - Math.log2(capacity * 2);
  }

  private static hash(hi: number, lo: number, shift: number): number {
    return Math.imul(lo ^ Math.imul(hi, 0x7feb352d), 0x9e3779b1) >>> shift;
  }

  intern(hi: number, lo: number): number {
    const mask = this.mask;
    const slots = this.slots;
    let p = AddrTable.hash(hi, lo, this.shift);
    for (;;) {
      const q = p << 2;
      const idPlus1 = slots[q];
      if (idPlus1 === 0) break;
      if (slots[q + 1] === lo && slots[q + 2] === hi) return idPlus1 - 1;
      p = (p + 1) & mask;
    }
    const id = this.count++;
    if (id === this.hi.length) {
      this.grow();
      return this.insertNew(hi, lo, id);
    }
    this.hi[id] = hi;
    this.lo[id] = lo;
    const q = p << 2;
    slots[q] = id + 1;
    slots[q + 1] = lo;
    slots[q + 2] = hi;
    return id;
  }

  private insertNew(hi: number, lo: number, id: number): number {
    this.hi[id] = hi;
    this.lo[id] = lo;
    this.place(hi, lo, id);
    return id;
  }

  private place(hi: number, lo: number, id: number): void {
    let p = AddrTable.hash(hi, lo, this.shift);
    while (this.slots[p << 2] !== 0) p = (p + 1) & this.mask;
    const q = p << 2;
    this.slots[q] = id + 1;
    this.slots[q + 1] = lo;
    this.slots[q + 2] = hi;
  }

  private grow(): void {
    const cap = this.hi.length * 2;
    const nh = new Uint32Array(cap);
    nh.set(this.hi);
    const nl = new Uint32Array(cap);
    nl.set(this.lo);
    this.hi = nh;
    this.lo = nl;
    this.slots = new Uint32Array(cap * 2 * 4);
    this.mask = cap * 2 - 1;
    this.shift = 32 - Math.log2(cap * 2);
    for (let id = 0; id < this.count - 1; id++) this.place(nh[id], nl[id], id);
  }
}

/** Parses the mapped-objects text: build= lines, /proc/maps lines (executable ones kept). */
export function parseMapsText(text: string): {
  mappings: Mapping[];
  build?: string;
  lines: number;
} {
  const lines = text.split('\n');
  let build: string | undefined;
  for (const raw of lines) {
    const m = /^\s*build=(.*)$/.exec(raw.replace(/\r$/, ''));
    if (m) build = m[1]; // the last one wins
  }
  const rx = /^([0-9a-fA-F]+)-([0-9a-fA-F]+)\s+(\S{4})\s+([0-9a-fA-F]+)\s+(\S+:\S+)\s+(\d+)\s*(.*)$/;
  const mappings: Mapping[] = [];
  let count = 0;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (line === '') continue;
    count++;
    const m = rx.exec(line);
    if (m === null) continue;
    if (!m[3].includes('x')) continue;
    let path = m[7];
    if (build !== undefined) {
      const b = build;
      path = path.replace(/\$build(?![A-Za-z0-9_])/g, () => b);
    }
    mappings.push({
      start: BigInt(`0x${m[1]}`),
      end: BigInt(`0x${m[2]}`),
      offset: BigInt(`0x${m[4]}`),
      path,
    });
  }
  return build === undefined ? { mappings, lines: count } : { mappings, build, lines: count };
}

/** Parses a gperftools CPU profile. Throws ProfileError when nothing usable is found. */
export function parseGperftools(bytes: Uint8Array, opts: ParseOptions = {}): RawProfile {
  const layouts = detectLayouts(bytes);
  if (layouts.length === 0) throw notAProfile(bytes);
  const layout = layouts[0];
  const { wordSize: ws, le } = layout;
  const byteOrder: ByteOrder = le ? 'little' : 'big';
  if (layout.version !== 0) {
    const msg =
      layout.version === 1
        ? 'unsupported gperftools format version 1 (the Java variant)'
        : `unsupported gperftools format version ${layout.version < 0 ? '(huge)' : layout.version} (expected 0)`;
    throw new ProfileError(msg, 'gperftools', { offset: 2 * ws });
  }
  const nslots = Math.floor(bytes.length / ws);
  const hdrLen = 2 + layout.hdrWords;
  if (hdrLen > nslots) {
    throw new ProfileError(
      `file ends inside the gperftools header (needs ${hdrLen * ws} bytes, has ${bytes.length})`,
      'gperftools',
      { offset: bytes.length },
    );
  }
  const w = wordsOf(bytes, le);
  const wide = ws === 8;
  // For 64-bit slot i: words 2i and 2i+1, in file order. LE: low word first.
  const loIdx = le ? 0 : 1;
  const hiIdx = le ? 1 : 0;
  const slotHi = (i: number) => (wide ? w[2 * i + hiIdx] : 0);
  const slotLo = (i: number) => (wide ? w[2 * i + loIdx] : w[i]);
  const slotNum = (i: number) => slotHi(i) * 4294967296 + slotLo(i);

  const warnings: ProfileWarning[] = [];
  const periodUs = slotNum(3);
  if (periodUs === 0) {
    warnings.push({ message: 'period is 0: showing sample counts without time', offset: 3 * ws });
  }

  const addrs = new AddrTable(4096);
  // Upper bounds derived from the file size, not from counts read from it.
  const stackLocs = new Uint32Array(Math.max(16, nslots - hdrLen));
  let nLocs = 0;
  const stackStart = new U32Builder(Math.min(1 << 16, nslots));
  const weight = new F64Builder(Math.min(1 << 16, nslots));
  stackStart.push(0);

  let i = hdrLen;
  let records = 0;
  let trailerEnd = -1;
  let zeroPcsRecords = 0;
  let zeroLeafRecords = 0;
  const onProgress = opts.onProgress;
  const progressStepSlots = Math.max(1, Math.floor(PROGRESS_STEP_BYTES / ws));
  let nextProgress = i + progressStepSlots;

  for (;;) {
    if (onProgress && i >= nextProgress) {
      onProgress((i * ws) / bytes.length);
      nextProgress = i + progressStepSlots;
    }
    const at = i * ws;
    if (i + 2 > nslots) {
      const what =
        i === nslots && bytes.length === at
          ? `no trailer after ${records} records`
          : `incomplete record (the file ends at byte ${bytes.length}), no trailer`;
      warnings.push({
        message: `truncated at byte ${at}: ${what}, so no mapped-objects list (addresses stay unsymbolized)`,
        offset: at,
      });
      break;
    }
    const count = slotNum(i);
    const nHi = slotHi(i + 1);
    const n = slotLo(i + 1);
    const remaining = nslots - i - 2;
    if (nHi !== 0 || n > remaining) {
      if (nHi === 0 && n <= MAX_PLAUSIBLE_DEPTH) {
        warnings.push({
          message:
            `truncated at byte ${at}: the record there needs ${n} PCs but the file ends at byte ` +
            `${bytes.length}; kept the ${records} complete records, no mapped-objects list`,
          offset: at,
        });
      } else {
        warnings.push({
          message:
            `corrupt record at byte ${at}: num_pcs ${nHi === 0 ? n : 'above 2^32'} is larger than the rest ` +
            `of the file; stopped reading there, kept the ${records} earlier records`,
          offset: at,
        });
      }
      break;
    }
    if (n === 0) {
      if (++zeroPcsRecords <= MAX_REPEATED_WARNINGS) {
        warnings.push({
          message: `record at byte ${at} has no PCs (num_pcs 0); its ${count} samples were skipped`,
          offset: at,
        });
      }
      i += 2;
      continue;
    }
    const p = i + 2;
    const leafHi = slotHi(p);
    const leafLo = slotLo(p);
    if (leafHi === 0 && leafLo === 0) {
      if (count === 0 && n === 1) {
        trailerEnd = (i + 3) * ws;
        break;
      }
      if (++zeroLeafRecords <= MAX_REPEATED_WARNINGS) {
        warnings.push({
          message: `record at byte ${at} has PC 0 as its leaf (not the trailer); kept as data`,
          offset: at,
        });
      }
    }
    i = p + n;
    records++;
    if (count === 0) continue;
    if (wide) {
      for (let k = 2 * p, end = 2 * (p + n); k < end; k += 2) {
        stackLocs[nLocs++] = addrs.intern(w[k + hiIdx], w[k + loIdx]);
      }
    } else {
      for (let k = p, end = p + n; k < end; k++) stackLocs[nLocs++] = addrs.intern(0, w[k]);
    }
    stackStart.push(nLocs);
    weight.push(count);
  }
  if (zeroPcsRecords > MAX_REPEATED_WARNINGS) {
    warnings.push({
      message: `${zeroPcsRecords - MAX_REPEATED_WARNINGS} more records with num_pcs 0 skipped`,
    });
  }
  if (zeroLeafRecords > MAX_REPEATED_WARNINGS) {
    warnings.push({ message: `${zeroLeafRecords - MAX_REPEATED_WARNINGS} more records with leaf PC 0` });
  }

  let mappings: Mapping[] = [];
  const headerLines: { key: string; value: string; known: boolean }[] = [];
  const extra: Record<string, string> = { records: String(records) };
  if (layout.hdrWords !== 3) extra['header words'] = String(layout.hdrWords);
  if (trailerEnd >= 0) {
    const text = new TextDecoder('utf-8').decode(bytes.subarray(trailerEnd));
    const maps = parseMapsText(text);
    mappings = maps.mappings;
    if (maps.build !== undefined) headerLines.push({ key: 'build', value: maps.build, known: true });
    extra['mapped-objects lines'] = String(maps.lines);
  }
  onProgress?.(1);

  const nAddr = addrs.count;
  const locName = new Int32Array(nAddr).fill(-1);
  const hasAddr = new Uint8Array(nAddr).fill(1);
  const raw: RawProfile = {
    format: 'gperftools',
    meta: {
      wordSize: wide ? 64 : 32,
      byteOrder,
      periodUs,
      mappings,
      extra,
    },
    locations: {
      count: nAddr,
      addrHi: addrs.hi.slice(0, nAddr),
      addrLo: addrs.lo.slice(0, nAddr),
      hasAddr,
      locName,
    },
    strings: [],
    samples: {
      count: weight.length,
      stackStart: stackStart.finish(),
      // A view when it uses most of the buffer (the usual case), else a compact copy.
      stackLocs: nLocs * 4 >= stackLocs.length * 3 ? stackLocs.subarray(0, nLocs) : stackLocs.slice(0, nLocs),
      weight: weight.finish(),
    },
    adjustCallers: true,
    warnings,
  };
  if (headerLines.length > 0) raw.meta.headerLines = headerLines;
  return raw;
}
