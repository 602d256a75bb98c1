// gperftools (Google CPU profiler) binary profiles: header, records, trailer, mapped-objects text.
// See docs: cpuprofile-fileformat. 32/64-bit × little/big endian, detected from the header.
// Never allocates from a count read from the file: every record is checked against what remains.

import { AddrTable, addressLocations, U32Builder } from '../address.ts';
import type { ByteOrder, Mapping, ProfileWarning, RawMeta, RawProfile } from '../types.ts';
import { ProfileError } from '../types.ts';

export interface ParseOptions {
  /** Called with 0..1 every few MB of records. */
  onProgress?: (fraction: number) => void;
  /**
   * Records from this many on, when they are short, are merged by stack before their PCs are
   * interned (default DEDUPE_MIN_RECORDS; tests lower it).
   */
  dedupeMinRecords?: number;
}

/**
 * A profile of many short records (a long-running server's: ~1.2M records of ~8 PCs per 100 MB,
 * over ~100k distinct stacks) repeats each stack many times: such records are merged by their
 * raw words first (one hash per record, as cheap as reading them), and only the distinct stacks'
 * PCs are interned and folded, a tenth of the work. Long records (deep stacks, mostly distinct)
 * are interned as they come.
 */
const DEDUPE_MIN_RECORDS = 65_536;
const DEDUPE_MAX_MEAN_PCS = 32;

/**
 * Root-side PCs per record kept aside by the scan (GperftoolsScan.heads) for the preview, which
 * groups records level by level from the root and reads them all.
 */
export const HEAD_PCS = 8;

/** Header words above this are treated as corrupt (the profiler writes 3). */
const MAX_HEADER_WORDS = 0x10000;
/** A num_pcs up to this that runs past the end of the file is a truncation; above it, corruption. */
const MAX_PLAUSIBLE_DEPTH = 0x10000;
/** Individual warnings of one kind before they are summarised. */
const MAX_REPEATED_WARNINGS = 5;
const PROGRESS_STEP_BYTES = 4 << 20;

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export interface Layout {
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
export function detectLayouts(bytes: Uint8Array): Layout[] {
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

/** The first `n` values: a view when they fill nearly all of `a`, else a compact copy. */
function fitted<T extends Uint32Array | Float64Array>(a: T, n: number): T {
  return (n >= a.length * 0.9 ? a.subarray(0, n) : a.slice(0, n)) as T;
}

/** A copy of `a` with room for at least `min` values (doubling). */
function grownWords(a: Uint32Array, min: number): Uint32Array {
  const b = new Uint32Array(Math.max(min, a.length * 2));
  b.set(a);
  return b;
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
  // Linear: the device's first colon (`\S[^\s:]*:`, not `\S+:`) and the rest of the line
  // (`[\s\S]*`, not `.*`, which backtracked over the inode and blanks at a CR inside the path) cannot
  // backtrack quadratically, as they did on a long device field (75 000 characters: 2.7 s).
  const rx =
    /^([0-9a-fA-F]+)-([0-9a-fA-F]+)\s+(\S{4})\s+([0-9a-fA-F]+)\s+(\S[^\s:]*:\S+)\s+(\d+)\s*([\s\S]*)$/;
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

/**
 * What one walk over the record headers finds: enough to intern the PCs (internGperftools) or to
 * preview the profile (model/gperftools-preview.ts) without reading the headers again.
 */
export interface GperftoolsScan {
  /** The file as uint32 words in host order (a view of the bytes when it can be one). */
  words: Uint32Array;
  /**
   * 64-bit slots (`wide`): the PC in slot i is words 2i + hiWord (high half) and 2i + loWord (low
   * half). 32-bit slots: it is word i.
   */
  wide: boolean;
  hiWord: 0 | 1;
  loWord: 0 | 1;
  /**
   * The records that hold samples (count > 0, num_pcs > 0), in file order: record r's PCs are
   * the slots pcStart[r] .. pcStart[r] + numPcs[r], leaf first, and it weighs weight[r] samples.
   */
  recordCount: number;
  pcStart: Uint32Array;
  numPcs: Uint32Array;
  weight: Float64Array;
  /** The sum and the largest of numPcs: each record was checked to fit in the file, so both are too. */
  totalPcs: number;
  maxPcs: number;
  meta: RawMeta;
  warnings: ProfileWarning[];
  /**
   * Each record's first HEAD_PCS PCs from the root (all of a shorter one), as (lo, hi) pairs in
   * root-first order: record r's are pairs start[r] … start[r + 1] − 1 of `pcs`. Kept by the scan
   * while it is at the record (the root side ends where the next record's header begins, which it
   * reads anyway), where the preview would read them again one cache miss per record (~90 ms of a
   * 400 MB file's ~170 ms preview). Absent for a file of many short records (never previewed whole).
   */
  heads?: { start: Uint32Array; pcs: Uint32Array };
  /**
   * A file parsed from its chunks keeps no words (`words` is empty): record r's PCs are its
   * interned locations stackLocs[stackStart[r] …] (leaf first), each the address (hi, lo)[loc].
   */
  interned?: {
    stackStart: Uint32Array;
    stackLocs: Uint32Array;
    hi: Uint32Array;
    lo: Uint32Array;
    /** Records 0 … done − 1 are interned; the others' words are in `segments` (in file order). */
    done: number;
    segments: readonly WordSegment[];
  };
}

/**
 * Walks the header and the record headers of a gperftools CPU profile (every validity rule, every
 * warning, the trailer and the mapped-objects text), without reading the PCs: 10–25 ms for the 70k
 * records of a 100 MB file (a cache miss per header, ~1.5 KB apart). Throws ProfileError when
 * nothing usable is found.
 */
export function scanGperftools(bytes: Uint8Array): GperftoolsScan {
  return new GperftoolsScanner(bytes).finish();
}

/**
 * scanGperftools, resumable: `advance(n)` walks the records that lie wholly in the first n bytes
 * (the rest of the buffer may not be read yet), `finish()` the rest, with the file's end and the
 * mapped-objects text. The records found so far are `pcStart`/`numPcs`/`weight` up to `kept`.
 */
export class GperftoolsScanner {
  /**
   * The file's words, or (read in chunks: GperftoolsChunkStream) a window of them: slot i is at
   * word (i − base)·(wide ? 2 : 1).
   */
  words: Uint32Array;
  /** The slot of the window's first word (0 for the whole file). */
  base = 0;
  readonly wide: boolean;
  readonly hiWord: 0 | 1;
  readonly loWord: 0 | 1;
  /** The words are a view of the bytes (host byte order): records read later show up in them. */
  readonly inPlace: boolean;
  pcStart: Uint32Array;
  numPcs: Uint32Array;
  weight: Float64Array;
  kept = 0;
  /** The PCs of the records kept so far. */
  totalPcs = 0;
  private readonly bytes: Uint8Array;
  private readonly layout: Layout;
  private readonly ws: 4 | 8;
  private readonly nslots: number;
  private readonly periodUs: number;
  private readonly warnings: ProfileWarning[] = [];
  private maxPcs = 0;
  /** The slot where the next record starts. */
  private i: number;
  private records = 0;
  private trailerEnd = -1;
  private zeroPcsRecords = 0;
  private zeroLeafRecords = 0;
  /** Where reading stopped without a trailer (truncated or corrupt), else -1. */
  private stoppedAt = -1;
  /** GperftoolsScan.heads as they are gathered (headLen pairs of headPcs used); null: not kept. */
  private headStart: Uint32Array | null;
  private headPcs: Uint32Array | null;
  private headLen = 0;
  private done = false;

  /**
   * `bytes`: the file, or (with `size`, the file's length) its first bytes, later ones given to
   * `rebase` as they come.
   */
  constructor(
    bytes: Uint8Array,
    readonly size = bytes.length,
  ) {
    const layouts = detectLayouts(bytes);
    if (layouts.length === 0) throw notAProfile(bytes);
    const layout = layouts[0];
    const { wordSize: ws, le } = layout;
    if (layout.version !== 0) {
      const msg =
        layout.version === 1
          ? 'unsupported gperftools format version 1 (the Java variant)'
          : `unsupported gperftools format version ${layout.version < 0 ? '(huge)' : layout.version} (expected 0)`;
      throw new ProfileError(msg, 'gperftools', { offset: 2 * ws });
    }
    const nslots = Math.floor(size / ws);
    const hdrLen = 2 + layout.hdrWords;
    if (hdrLen > nslots || hdrLen * ws > bytes.length) {
      throw new ProfileError(
        `file ends inside the gperftools header (needs ${hdrLen * ws} bytes, has ${size})`,
        'gperftools',
        { offset: size },
      );
    }
    this.bytes = bytes;
    this.layout = layout;
    this.ws = ws;
    this.nslots = nslots;
    this.words = wordsOf(bytes, le);
    this.inPlace = this.words.buffer === bytes.buffer;
    this.wide = ws === 8;
    // For 64-bit slot i: words 2i and 2i+1, in file order. LE: low word first.
    this.loWord = le ? 0 : 1;
    this.hiWord = le ? 1 : 0;
    this.periodUs = this.slotNum(3);
    if (this.periodUs === 0) {
      this.warnings.push({ message: 'period is 0: showing sample counts without time', offset: 3 * ws });
    }
    this.i = hdrLen;
    // Grown as records are found (never sized from a count read from the file): to the number of
    // records the file's size and the records so far predict, not by doublings (a 100 MB file of
    // short records holds 1.2M).
    this.pcStart = new Uint32Array(Math.min(1 << 16, nslots));
    this.numPcs = new Uint32Array(this.pcStart.length);
    this.weight = new Float64Array(this.pcStart.length);
    this.headStart = new Uint32Array(this.pcStart.length + 1);
    this.headPcs = new Uint32Array(Math.min(this.pcStart.length * HEAD_PCS, nslots) * 2 + 16);
  }

  private slotHi(i: number): number {
    return this.wide ? this.words[2 * (i - this.base) + this.hiWord] : 0;
  }

  private slotLo(i: number): number {
    return this.wide ? this.words[2 * (i - this.base) + this.loWord] : this.words[i - this.base];
  }

  /** The slot where the next record starts (its words must stay in the window). */
  get nextSlot(): number {
    return this.i;
  }

  /** Whether the walk is over: the trailer, or where reading stopped. */
  get finished(): boolean {
    return this.done;
  }

  /** The byte where the mapped-objects text begins (after the trailer), or −1 (none found yet). */
  get textStart(): number {
    return this.trailerEnd;
  }

  /** The window moved: `words` (host order) now start at slot `base` (no later than nextSlot). */
  rebase(words: Uint32Array, base: number): void {
    this.words = words;
    this.base = base;
  }

  private slotNum(i: number): number {
    return this.slotHi(i) * 4294967296 + this.slotLo(i);
  }

  private grow(slotsRead: number): void {
    const { kept, nslots } = this;
    const predicted = Math.ceil((kept / Math.max(1, slotsRead)) * nslots * 1.1);
    const cap = Math.min(Math.max(predicted, kept * 2), Math.ceil(nslots / 3) + 1);
    const ps = new Uint32Array(cap);
    ps.set(this.pcStart);
    const np = new Uint32Array(cap);
    np.set(this.numPcs);
    const wt = new Float64Array(cap);
    wt.set(this.weight);
    [this.pcStart, this.numPcs, this.weight] = [ps, np, wt];
    if (this.headStart !== null && this.headPcs !== null) {
      const used = this.headStart[kept]; // pairs of the records kept so far
      const hs = new Uint32Array(cap + 1);
      hs.set(this.headStart);
      this.headStart = hs;
      // Room for the heads of as many records (no more pairs than the file has PCs): one copy
      // per predicted growth, not one per doubling.
      const pairs = Math.min(cap * HEAD_PCS, nslots);
      if (2 * pairs + 16 > this.headPcs.length) {
        const hp = new Uint32Array(2 * pairs + 16);
        hp.set(this.headPcs.subarray(0, 2 * used));
        this.headPcs = hp;
      }
    }
  }

  /**
   * Walks the records that lie wholly in the first `available` bytes (the whole file: to its end,
   * the file's end being a truncation where a record runs past it).
   */
  advance(available = this.size): void {
    if (this.done) return;
    const { ws, nslots, size } = this;
    const whole = available >= size;
    const limit = whole ? nslots : Math.floor(available / ws);
    let i = this.i;
    // A record whose leaf is 0 but is no trailer, once warned of: kept as data as the others are.
    let zeroLeaf = -1;
    for (;;) {
      i = this.ordinaryRecords(i, limit, zeroLeaf);
      const at = i * ws;
      if (i + 2 > limit) {
        if (!whole) break;
        const what =
          i === nslots && size === at
            ? `no trailer after ${this.records} records`
            : `incomplete record (the file ends at byte ${size}), no trailer`;
        this.warnings.push({ message: `truncated at byte ${at}: ${what}`, offset: at });
        this.stoppedAt = at;
        this.done = true;
        break;
      }
      const count = this.slotNum(i);
      const nHi = this.slotHi(i + 1);
      const n = this.slotLo(i + 1);
      const remaining = nslots - i - 2;
      // Wait for the rest of a record that is not all in (a record of no PCs is its two slots).
      if (!whole && nHi === 0 && n <= remaining && i + 2 + n > limit) break;
      if (nHi !== 0 || n > remaining) {
        if (nHi === 0 && n <= MAX_PLAUSIBLE_DEPTH) {
          this.warnings.push({
            message:
              `truncated at byte ${at}: the record there needs ${n} PCs but the file ends at byte ` +
              `${size}; kept the ${this.records} complete records`,
            offset: at,
          });
        } else {
          this.warnings.push({
            message:
              `corrupt record at byte ${at}: num_pcs ${nHi === 0 ? n : 'above 2^32'} is larger than the rest ` +
              `of the file; stopped reading there, kept the ${this.records} earlier records`,
            offset: at,
          });
        }
        this.stoppedAt = at;
        this.done = true;
        break;
      }
      if (n === 0) {
        if (++this.zeroPcsRecords <= MAX_REPEATED_WARNINGS) {
          this.warnings.push({
            message: `record at byte ${at} has no PCs (num_pcs 0); its ${count} samples were skipped`,
            offset: at,
          });
        }
        i += 2;
        continue;
      }
      const p = i + 2;
      if (this.slotHi(p) === 0 && this.slotLo(p) === 0) {
        if (count === 0 && n === 1) {
          this.trailerEnd = (i + 3) * ws;
          this.done = true;
          break;
        }
        if (++this.zeroLeafRecords <= MAX_REPEATED_WARNINGS) {
          this.warnings.push({
            message: `record at byte ${at} has PC 0 as its leaf (not the trailer); kept as data`,
            offset: at,
          });
        }
        zeroLeaf = i;
      }
    }
    this.i = i;
  }

  /**
   * Walks the records from slot i that hold PCs, lie wholly before slot `limit` and whose leaf is
   * not 0 (but for the one at `zeroLeaf`, which advance has warned of), keeping those with
   * samples, with the words in locals (a file of short records has 1.2M of them). Returns the slot
   * of the first record it leaves to advance, whose checks say what it is (or the end).
   */
  private ordinaryRecords(i: number, limit: number, zeroLeaf: number): number {
    const { words: w, wide, hiWord: hw, loWord: lw, base: o } = this;
    let { kept, totalPcs, maxPcs, records } = this;
    let { pcStart, numPcs, weight, headStart, headPcs } = this;
    for (;;) {
      if (i + 2 > limit) break;
      let count: number;
      let n: number;
      if (wide) {
        if (w[2 * (i - o) + 2 + hw] !== 0) break; // num_pcs ≥ 2^32
        count = w[2 * (i - o) + hw] * 4294967296 + w[2 * (i - o) + lw];
        n = w[2 * (i - o) + 2 + lw];
      } else {
        count = w[i - o];
        n = w[i - o + 1];
      }
      const p = i + 2;
      if (n === 0 || p + n > limit) break;
      // The trailer, or a leaf 0
      if (i !== zeroLeaf && (wide ? (w[2 * (p - o) + hw] | w[2 * (p - o) + lw]) === 0 : w[p - o] === 0))
        break;
      i = p + n;
      records++;
      if (count === 0) continue;
      if (kept === pcStart.length) {
        this.kept = kept;
        this.grow(i);
        ({ pcStart, numPcs, weight, headStart, headPcs } = this);
      }
      pcStart[kept] = p;
      numPcs[kept] = n;
      weight[kept] = count;
      if (kept === DEDUPE_MIN_RECORDS && headStart !== null && totalPcs < kept * DEDUPE_MAX_MEAN_PCS) {
        // Many short records: their heads would take as much room as the records, for a preview
        // drawn from a sample of them (which reads its own).
        this.headStart = this.headPcs = headStart = headPcs = null;
      }
      if (headStart !== null) {
        // The root-side PCs, root first: the record's last slots, just before the next header.
        let h = headStart[kept];
        const m = n < HEAD_PCS ? n : HEAD_PCS;
        if (2 * (h + m) > headPcs!.length) {
          this.headPcs = headPcs = grownWords(headPcs!, 2 * (h + m));
        }
        const hp = headPcs!;
        for (let slot = p + n - 1, e = slot - m; slot > e; slot--, h++) {
          hp[2 * h] = wide ? w[2 * (slot - o) + lw] : w[slot - o];
          hp[2 * h + 1] = wide ? w[2 * (slot - o) + hw] : 0;
        }
        headStart[kept + 1] = h;
      }
      kept++;
      totalPcs += n;
      if (n > maxPcs) maxPcs = n;
    }
    Object.assign(this, { kept, totalPcs, maxPcs, records });
    if (headStart !== null) this.headLen = headStart[kept];
    return i;
  }

  /** Walks the rest of the file (all of it must be in), then reads what follows the trailer. */
  finish(text?: Uint8Array): GperftoolsScan {
    this.advance();
    const { ws, bytes, layout, warnings, records, stoppedAt, trailerEnd } = this;
    if (this.zeroPcsRecords > MAX_REPEATED_WARNINGS) {
      warnings.push({
        message: `${this.zeroPcsRecords - MAX_REPEATED_WARNINGS} more records with num_pcs 0 skipped`,
      });
    }
    if (this.zeroLeafRecords > MAX_REPEATED_WARNINGS) {
      warnings.push({
        message: `${this.zeroLeafRecords - MAX_REPEATED_WARNINGS} more records with leaf PC 0`,
      });
    }
    if (stoppedAt >= 0 && records > 0) {
      // The mapped-objects text follows the trailer: without it no address has a module.
      warnings.push({
        message:
          'no mapped-objects text (the file ends before it): frames are bare addresses (0x…) with no ' +
          'module; drop the binaries and place them at their load addresses (Symbols panel)',
        offset: stoppedAt,
      });
    }
    let mappings: Mapping[] = [];
    const headerLines: { key: string; value: string; known: boolean }[] = [];
    const extra: Record<string, string> = { records: String(records) };
    if (layout.hdrWords !== 3) extra['header words'] = String(layout.hdrWords);
    if (trailerEnd >= 0) {
      const maps = parseMapsText(new TextDecoder('utf-8').decode(text ?? bytes.subarray(trailerEnd)));
      mappings = maps.mappings;
      if (maps.build !== undefined) headerLines.push({ key: 'build', value: maps.build, known: true });
      extra['mapped-objects lines'] = String(maps.lines);
      if (mappings.length === 0 && records > 0) {
        warnings.push({
          message:
            'no mapped-objects text after the trailer (the file was cut there?): frames are bare ' +
            'addresses (0x…) with no module; drop the binaries and place them at their load addresses ' +
            '(Symbols panel)',
          offset: trailerEnd,
        });
      }
    }
    const byteOrder: ByteOrder = layout.le ? 'little' : 'big';
    const meta: RawMeta = {
      wordSize: ws === 8 ? 64 : 32,
      byteOrder,
      periodUs: this.periodUs,
      mappings,
      extra,
    };
    if (headerLines.length > 0) meta.headerLines = headerLines;
    const kept = this.kept;
    const heads =
      this.headStart !== null && this.headPcs !== null
        ? { start: fitted(this.headStart, kept + 1), pcs: fitted(this.headPcs, 2 * this.headLen) }
        : undefined;
    this.headStart = this.headPcs = null; // the scan's now (the preview's): held no longer here
    return {
      words: this.words,
      wide: this.wide,
      hiWord: this.hiWord,
      loWord: this.loWord,
      recordCount: kept,
      pcStart: fitted(this.pcStart, kept),
      numPcs: fitted(this.numPcs, kept),
      weight: fitted(this.weight, kept),
      totalPcs: this.totalPcs,
      maxPcs: this.maxPcs,
      meta,
      warnings,
      ...(heads && { heads }),
    };
  }
}

/** Many short records: merged by stack before interning, and no preview (the parse is as quick). */
export function manyShortRecords(scan: GperftoolsScan, minRecords = DEDUPE_MIN_RECORDS): boolean {
  return scan.recordCount >= minRecords && scan.totalPcs < scan.recordCount * DEDUPE_MAX_MEAN_PCS;
}

/**
 * The second phase of parsing: interns every PC of the scanned records into unique locations
 * (the parser's cost: 13M PCs in a 100 MB file), many short records merged by stack first.
 */
export function internGperftools(scan: GperftoolsScan, opts: ParseOptions = {}): RawProfile {
  const dedupe = manyShortRecords(scan, opts.dedupeMinRecords);
  const { records, weight } = dedupe ? distinctRecords(scan) : { records: null, weight: scan.weight };
  const count = records ? records.length : scan.recordCount;
  let totalPcs = scan.totalPcs;
  if (records) {
    totalPcs = 0;
    for (let i = 0; i < count; i++) totalPcs += scan.numPcs[records[i]];
  }
  const interner = new RecordInterner(scan, count, totalPcs);
  interner.internUpTo(scan, count, records, opts.onProgress);
  opts.onProgress?.(1);
  return interner.profile(scan, weight);
}

/**
 * Interns the PCs of records into unique locations (AddrTable ids, in first-seen order), one
 * record after another, so that a file still being read can be interned as its records come in
 * (GperftoolsStream). Its arrays are sized from the counts it is given: exact ones, or bounds from
 * the file's size (memory the records never reach is never touched).
 */
export class RecordInterner {
  private readonly addrs: AddrTable;
  private readonly stackStart: Uint32Array;
  private readonly stackLocs: Uint32Array;
  private nLocs = 0;
  /** Records interned so far. */
  done = 0;

  constructor(
    /** Where the records' words are (GperftoolsChunkStream moves it from segment to segment). */
    public at: Pick<GperftoolsScan, 'words' | 'wide' | 'hiWord' | 'loWord'> & { base?: number },
    maxRecords: number,
    maxPcs: number,
  ) {
    this.stackStart = new Uint32Array(maxRecords + 1);
    this.stackLocs = new Uint32Array(maxPcs);
    // Sized for about one address in 256 PCs (the bench's long runs: one in 300), so that a large
    // file's table is not rebuilt eight times as it grows.
    let capacity = 4096;
    while (capacity < 1 << 20 && capacity * 256 < maxPcs) capacity *= 2;
    this.addrs = new AddrTable(capacity);
  }

  /**
   * Interns records `done` … `count − 1` of the scan (or, with `records`, those of the scan it
   * lists, in its order).
   */
  internUpTo(
    scan: Pick<GperftoolsScan, 'pcStart' | 'numPcs'>,
    count: number,
    records: Uint32Array | null = null,
    onProgress?: (fraction: number) => void,
    deadline = Number.POSITIVE_INFINITY,
  ): void {
    const { words: w, wide, hiWord, loWord, base = 0 } = this.at;
    const { pcStart, numPcs } = scan;
    const { addrs, stackStart, stackLocs } = this;
    let nLocs = this.nLocs;
    const slotBytes = wide ? 8 : 4;
    const progressStepPcs = Math.max(1, Math.floor(PROGRESS_STEP_BYTES / slotBytes));
    let nextProgress = nLocs + progressStepPcs;
    let i = this.done;
    for (; i < count; i++) {
      if (nLocs >= nextProgress) {
        onProgress?.(nLocs / stackLocs.length);
        nextProgress = nLocs + progressStepPcs;
        // Every 4 MB of PCs: stop here when past the deadline (the records left wait for the next call).
        if (performance.now() > deadline) break;
      }
      const r = records ? records[i] : i;
      const p = pcStart[r] - base;
      const end = p + numPcs[r];
      if (wide) {
        for (let k = 2 * p, e = 2 * end; k < e; k += 2)
          stackLocs[nLocs++] = addrs.intern(w[k + hiWord], w[k + loWord]);
      } else {
        for (let k = p; k < end; k++) stackLocs[nLocs++] = addrs.intern(0, w[k]);
      }
      stackStart[i + 1] = nLocs;
    }
    this.nLocs = nLocs;
    this.done = i;
  }

  /** The records interned so far, as the preview reads them when no words of the file are kept. */
  interned(): Pick<NonNullable<GperftoolsScan['interned']>, 'stackStart' | 'stackLocs' | 'hi' | 'lo'> {
    return { stackStart: this.stackStart, stackLocs: this.stackLocs, hi: this.addrs.hi, lo: this.addrs.lo };
  }

  /** The RawProfile of the records interned, weighing `weight` (one per record). */
  profile(scan: GperftoolsScan, weight: Float64Array): RawProfile {
    const count = this.done;
    return {
      format: 'gperftools',
      meta: scan.meta,
      locations: addressLocations(this.addrs),
      strings: [],
      samples: {
        count,
        stackStart: fitted(this.stackStart, count + 1),
        stackLocs: fitted(this.stackLocs, this.nLocs),
        weight,
      },
      adjustCallers: true,
      warnings: scan.warnings,
    };
  }
}

/**
 * A gperftools profile parsed while it is read (a large local file, read in chunks into one buffer
 * of its size): `advance(n)` as its first n bytes come in walks the records there and interns
 * their PCs, `finish()` once all are in gives what parseGperftools would. The reading then hides
 * most of the parse. Interned as they come only in a file that looks like one of long records:
 * one of many short records is merged by stack first, which needs them all (and should the
 * guess be wrong, the records are interned again at the end, as parseGperftools would).
 */
export class GperftoolsStream {
  readonly scanner: GperftoolsScanner;
  private interner: RecordInterner | null = null;
  private shortRecords = false;

  /** Null when the file cannot be read in place (another byte order or an unaligned buffer). */
  static open(bytes: Uint8Array): GperftoolsStream | null {
    try {
      const s = new GperftoolsStream(new GperftoolsScanner(bytes));
      return s.scanner.inPlace ? s : null;
    } catch {
      return null; // the parse at the end reports what is wrong
    }
  }

  private constructor(scanner: GperftoolsScanner) {
    this.scanner = scanner;
  }

  /**
   * The first `available` bytes are in: their records are walked, and interned for at most
   * `budgetMs` (the rest, after the next call's, or at the end: the preview should not wait for
   * the interning to catch up with the reading).
   */
  advance(available: number, budgetMs = Number.POSITIVE_INFINITY): void {
    const deadline = performance.now() + budgetMs;
    const sc = this.scanner;
    sc.advance(available);
    if (this.shortRecords || sc.kept === 0) return;
    if (this.interner === null) {
      // Decided on the first records seen: short ones (under DEDUPE_MAX_MEAN_PCS on average) are
      // left to the end, to be merged by stack first.
      if (sc.totalPcs < sc.kept * DEDUPE_MAX_MEAN_PCS) {
        this.shortRecords = true;
        return;
      }
      // Bounds from the file: a record takes 3 slots or more, a PC one slot.
      const nslots = Math.floor(sc.words.length / (sc.wide ? 2 : 1));
      this.interner = new RecordInterner(sc, Math.ceil(nslots / 3) + 1, nslots);
    }
    this.interner.internUpTo(sc, sc.kept, null, undefined, deadline);
  }

  /** The scan of the whole file (all of it must be in). */
  finishScan(): GperftoolsScan {
    return this.scanner.finish();
  }

  /** The parse, from the whole file's scan (finishScan's). */
  finish(scan: GperftoolsScan, opts: ParseOptions = {}): RawProfile {
    const interner = this.interner;
    if (interner === null || manyShortRecords(scan, opts.dedupeMinRecords))
      return internGperftools(scan, opts);
    interner.internUpTo(scan, scan.recordCount, null, opts.onProgress);
    opts.onProgress?.(1);
    return interner.profile(scan, scan.weight);
  }
}

/**
 * Words of a file read in chunks (GperftoolsChunkStream): slot i is at word (i − base)·(wide ? 2 :
 * 1); the records recStart … recEnd − 1 (scan order) lie wholly in them.
 */
export interface WordSegment {
  words: Uint32Array;
  base: number;
  recStart: number;
  recEnd: number;
}

/**
 * A gperftools profile parsed from its chunks as they are read, with no buffer of the file's size
 * (ImporterChunks). Each chunk is a segment of words read where it lies (no copy): its record
 * headers are walked when it comes, and its records' PCs interned when there is time (`budgetMs`),
 * the rest after the preview, as GperftoolsStream does. A record running from one chunk into the
 * next is copied into a segment of its own (the seam). A segment is let go of once its records are
 * interned. Only for a file of long records in this machine's byte order, read in chunks of whole
 * slots: `open` says null otherwise (many short records are merged by stack first, which needs
 * them all; another byte order, a copy), and the file is then read into one buffer. A record
 * longer than a chunk grows its seam with each chunk it runs into; a chunk that is not whole slots
 * throws (the caller reads the file whole).
 */
export class GperftoolsChunkStream {
  /** Segments whose records are not all interned yet, in file order. */
  private segments: WordSegment[] = [];
  /** Bytes that have come in. */
  private end = 0;
  /** The bytes after the trailer once it is found (null before). */
  private text: Uint8Array[] | null = null;
  private interner: RecordInterner | null = null;
  /** The words a record not yet walked begins in (the last chunk or seam walked). */
  private last: { words: Uint32Array; base: number } | null = null;
  private readonly ws: 4 | 8;

  /** The stream, its first chunk pushed; null when the file is not one to parse from chunks. */
  static open(
    first: Uint8Array,
    size: number,
    minMeanPcs = DEDUPE_MAX_MEAN_PCS,
    /** Frees a chunk's buffer once parsed (rather than at a collection the busy parse may not get to). */
    release: (buffer: ArrayBuffer) => void = () => {},
  ): GperftoolsChunkStream | null {
    let sc: GperftoolsScanner;
    try {
      sc = new GperftoolsScanner(first, size);
    } catch {
      return null; // the parse of the whole file reports what is wrong
    }
    if (!sc.inPlace) return null;
    const s = new GperftoolsChunkStream(sc, minMeanPcs, release);
    try {
      return s.push(first, 0) ? s : null;
    } catch {
      return null;
    }
  }

  private constructor(
    private readonly scanner: GperftoolsScanner,
    /** Records of fewer PCs on average in the first chunk: declined (a test's 0 takes all). */
    private readonly minMeanPcs: number,
    private readonly release: (buffer: ArrayBuffer) => void,
  ) {
    this.ws = scanner.wide ? 8 : 4;
  }

  /**
   * Parses the next chunk (a view of it is kept until its records are interned: the caller must
   * not reuse it), interning for about `budgetMs`. Returns false (the stream is then of no use)
   * when it is the first and shows many short records.
   */
  push(chunk: Uint8Array, budgetMs = Number.POSITIVE_INFINITY): boolean {
    const deadline = performance.now() + budgetMs;
    const sc = this.scanner;
    const { ws } = this;
    const before = this.end;
    this.end += chunk.length;
    if (this.text !== null) {
      this.text.push(chunk);
      return true;
    }
    if (sc.finished) return true; // stopped before a trailer: nothing after it is read
    if (before % ws !== 0 || (chunk.length % ws !== 0 && this.end < sc.size) || chunk.byteOffset % 4 !== 0)
      throw new Error('gperftools chunks: a chunk of part slots');
    const words = new Uint32Array(chunk.buffer, chunk.byteOffset, chunk.length >>> 2);
    const chunkSlot = before / ws;
    if (sc.nextSlot < chunkSlot) this.seam(words, chunkSlot);
    // The chunk's own records (unless the seam's record runs past it).
    if (sc.nextSlot >= chunkSlot && !sc.finished) {
      this.walk(words, chunkSlot);
      this.setLast({ words, base: chunkSlot });
    }
    if (this.interner === null && sc.kept > 0) {
      // Decided on the first chunk: many short records are merged by stack before interning (by
      // the parse of the whole file). Later, or should the guess be wrong, they are interned as
      // they are (the same profile once folded; parseGperftools's has fewer, merged records).
      if (before === 0 && sc.totalPcs < sc.kept * this.minMeanPcs) return false;
      const nslots = Math.floor(sc.size / ws);
      this.interner = new RecordInterner(sc, Math.ceil(nslots / 3) + 1, nslots);
    }
    if (sc.finished && sc.textStart >= 0) this.text = [chunk.subarray(Math.max(0, sc.textStart - before))];
    this.intern(deadline);
    return true;
  }

  /** Walks the records in `words` (slots from `base`, up to the bytes in) as a segment of its own. */
  private walk(words: Uint32Array, base: number): void {
    const sc = this.scanner;
    const recStart = sc.kept;
    sc.rebase(words, base);
    sc.advance(Math.min(this.end, (base + words.length / (this.ws / 4)) * this.ws));
    if (sc.kept > recStart) this.segments.push({ words, base, recStart, recEnd: sc.kept });
  }

  /**
   * The record at the scanner's next slot, begun before this chunk (whose words are `words`, from
   * slot `chunkSlot`): its words copied into a seam of their own, up to its end if it ends in this
   * chunk (else to the chunk's end: the next chunk's seam goes on from this one), and walked.
   */
  private seam(words: Uint32Array, chunkSlot: number): void {
    const sc = this.scanner;
    const per = this.ws / 4;
    const from = sc.nextSlot;
    const last = this.last;
    if (last === null || last.base > from) throw new Error('gperftools chunks: the seam was not kept');
    const head = last.words.subarray((from - last.base) * per, (chunkSlot - last.base) * per);
    const chunkEnd = chunkSlot + words.length / per;
    let end = chunkEnd;
    if (head.length + words.length >= 2 * per) {
      // Its length, from its header (num_pcs: the second slot).
      const at = (k: number) => (k < head.length ? head[k] : words[k - head.length]);
      const nHi = per === 2 ? at(per + sc.hiWord) : 0;
      const n = at(per + (per === 2 ? sc.loWord : 0));
      if (nHi === 0 && from + 2 + n <= chunkEnd) end = from + 2 + n;
    }
    const seam = new Uint32Array((end - from) * per);
    seam.set(head);
    seam.set(words.subarray(0, seam.length - head.length), head.length);
    this.walk(seam, from);
    this.setLast({ words: seam, base: from });
  }

  /** The words a record not walked yet begins in; the last ones are freed if no segment holds them. */
  private setLast(last: { words: Uint32Array; base: number } | null): void {
    const old = this.last;
    this.last = last;
    if (old !== null && old.words !== last?.words) this.free(old.words);
  }

  /** Frees a chunk's buffer (not a seam's) that neither a segment nor `last` needs any more. */
  private free(words: Uint32Array): void {
    if (this.last?.words === words || this.segments.some((g) => g.words === words)) return;
    if (words.buffer instanceof ArrayBuffer && words.byteLength === words.buffer.byteLength)
      this.release(words.buffer);
  }

  /** Interns the walked records, segment by segment, until `deadline`. */
  private intern(deadline: number, onProgress?: (fraction: number) => void): void {
    const interner = this.interner;
    if (interner === null) return;
    const sc = this.scanner;
    while (this.segments.length > 0) {
      const seg = this.segments[0];
      interner.at = { words: seg.words, base: seg.base, wide: sc.wide, hiWord: sc.hiWord, loWord: sc.loWord };
      interner.internUpTo(sc, seg.recEnd, null, onProgress, deadline);
      if (interner.done < seg.recEnd) return;
      this.segments.shift();
      this.free(seg.words);
    }
  }

  /**
   * The scan of the whole file (all of it must have been pushed), with its records' PCs as far as
   * interned and the segments that hold the rest (the preview reads them).
   */
  finishScan(): GperftoolsScan {
    const parts = this.text ?? [];
    const text = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      text.set(p, at);
      at += p.length;
    }
    this.text = null;
    // Walked to the end first (a file cut inside a slot may still have its last words to walk).
    const scan = this.scanner.finish(text);
    this.setLast(null);
    scan.words = new Uint32Array(0);
    this.interner ??= new RecordInterner(scan, 0, 0);
    scan.interned = { ...this.interner.interned(), done: this.interner.done, segments: this.segments };
    return scan;
  }

  /** The parse, from finishScan's scan: the records left interned. */
  finish(scan: GperftoolsScan, opts: ParseOptions = {}): RawProfile {
    scan.interned = undefined;
    this.intern(Number.POSITIVE_INFINITY, opts.onProgress);
    opts.onProgress?.(1);
    return this.interner!.profile(scan, scan.weight);
  }
}

/**
 * The records with distinct stacks (the first of each, in file order) and their summed weights.
 * Each distinct stack's words are copied to a compact array and found again through an
 * open-addressing table of their hashes, sized to the distinct stacks (it grows), not to the
 * records: both stay in cache, where comparing with a record far back in a 100 MB file would miss
 * it every time. Equal hashes are confirmed word by word.
 */
function distinctRecords(scan: GperftoolsScan): { records: Uint32Array; weight: Float64Array } {
  const { words: w, wide, pcStart, numPcs, recordCount: n } = scan;
  const per = wide ? 2 : 1;
  let mask = (1 << 14) - 1;
  let table = new Int32Array(mask + 1).fill(-1); // distinct index
  const records = new Uint32Array(n);
  const weight = new Float64Array(n);
  // Per distinct stack: its hash, and where its words start in `copy`.
  const hashes = new U32Builder(1 << 13);
  const start = new U32Builder(1 << 13);
  const copy = new U32Builder(1 << 16);
  start.push(0);
  let count = 0;
  for (let r = 0; r < n; r++) {
    const from = pcStart[r] * per;
    const len = numPcs[r] * per;
    // Multiply-rotate per word (a multiply alone moves bits only upwards: the table's low bits
    // would see only the addresses' low bits), then murmur3's finalizer.
    let h = 0x811c9dc5 ^ len;
    for (let k = from, e = from + len; k < e; k++) {
      h = Math.imul(h ^ w[k], 0x9e3779b1);
      h = (h << 13) | (h >>> 19);
    }
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h = (h ^ (h >>> 16)) >>> 0;
    let slot = h & mask;
    const hs = hashes.data;
    const st = start.data;
    const cp = copy.data;
    for (;;) {
      const i = table[slot];
      if (i === -1) break;
      if (hs[i] === h && st[i + 1] - st[i] === len) {
        const at = st[i];
        let k = 0;
        while (k < len && cp[at + k] === w[from + k]) k++;
        if (k === len) break;
      }
      slot = (slot + 1) & mask;
    }
    const found = table[slot];
    if (found !== -1) {
      weight[found] += scan.weight[r];
      continue;
    }
    // A new stack: its words, hash and slot.
    if (copy.length + len > copy.data.length) copy.grow(copy.length + len);
    copy.data.set(w.subarray(from, from + len), copy.length);
    copy.length += len;
    start.push(copy.length);
    hashes.push(h);
    table[slot] = count;
    records[count] = r;
    weight[count] = scan.weight[r];
    count++;
    if (count * 2 > mask) {
      // Keep the table at most half full: twice the size, every stack placed again.
      mask = mask * 2 + 1;
      table = new Int32Array(mask + 1).fill(-1);
      for (let i = 0; i < count; i++) {
        let t = hashes.data[i] & mask;
        while (table[t] !== -1) t = (t + 1) & mask;
        table[t] = i;
      }
    }
  }
  return { records: records.slice(0, count), weight: weight.slice(0, count) };
}

/** Parses a gperftools CPU profile. Throws ProfileError when nothing usable is found. */
export function parseGperftools(bytes: Uint8Array, opts: ParseOptions = {}): RawProfile {
  return internGperftools(scanGperftools(bytes), opts);
}
