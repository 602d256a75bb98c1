// DCPI profiles (Digital Continuous Profiling Infrastructure, dcpiformat(4)), binary layout of versions
// 0.06/0.07: an ASCII header of `<keyword> <value>` lines ended by a `samples` line, then chunks of
// little-endian uint32 counts, one per address, and an 8-byte footer. Samples have no call chain, so the
// profile is flat: one location and one single-frame sample per address with a non-zero count.
// Decisions on the format's ambiguities are written up in docs/formats/dcpi.md.

import { F64Builder, splitBig } from '../address';
import { type Mapping, ProfileError, type ProfileWarning, type RawProfile } from '../types';

/** The seven keywords the grammar requires, each exactly once (`period` may repeat: see the docs). */
export const DCPI_REQUIRED = ['image', 'epoch', 'platform', 'event', 'period', 'tsize', 'cpuspeed'] as const;
/** Optional keywords of the grammar, plus `version` and `tstart` from the older revision of the text. */
export const DCPI_OPTIONAL = ['cpuamask', 'cpuimplv', 'cpucount', 'path', 'version', 'tstart'] as const;

const KNOWN = new Set<string>([...DCPI_REQUIRED, ...DCPI_OPTIONAL]);
/** Keywords whose value is hex / decimal digits (trailing blanks tolerated: see the docs). */
const HEX_KEYS = new Set(['image', 'cpuamask', 'tstart']);
const DEC_KEYS = new Set(['period', 'tsize', 'cpuspeed', 'cpuimplv', 'cpucount']);
/** Keywords that may not repeat (a second one would make the value ambiguous). */
const ONCE_KEYS = new Set(['image', 'epoch', 'platform', 'event', 'tsize', 'cpuspeed', 'version', 'tstart']);

/** How far `looksLikeDcpi` reads. Real headers are a few hundred bytes. */
const SNIFF_BYTES = 8192;
/** A header longer than this is not a DCPI header (guards against scanning a huge text file). */
const MAX_HEADER_BYTES = 1 << 20;

const TWO32 = 4294967296;
const MAX_U64 = (1n << 64n) - 1n;

/** One line of the ASCII header. `value` is the rest of the line after the blanks, verbatim. */
export interface DcpiHeaderLine {
  key: string;
  value: string;
  known: boolean;
  /** The whole line as written (without its newline): what a writer must preserve. */
  raw: string;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
}

export interface DcpiHeader {
  lines: DcpiHeaderLine[];
  /** Byte offset where the binary section starts (right after the `samples` line's newline). */
  binaryOffset: number;
  /** 1-based line number of the `samples` terminator. */
  terminatorLine: number;
  /** Byte offset of the `samples` terminator line. */
  terminatorOffset: number;
}

function fail(message: string, where: { offset?: number; line?: number }): never {
  throw new ProfileError(message, 'dcpi', where);
}

/** Where a header line is, for errors: its line number and byte offset. */
const at = (h: DcpiHeaderLine) => ({ line: h.line, offset: h.offset });

const isBlank = (b: number): boolean => b === 0x20 || b === 0x09;
/** Bytes a header line may not contain: control characters other than tab (the newline ends the line). */
const isControl = (b: number): boolean => (b < 0x20 && b !== 0x09) || b === 0x7f;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Header text: UTF-8 when it is valid UTF-8, else Latin-1 (one char per byte, so nothing is lost). */
function decodeText(bytes: Uint8Array, start: number, end: number): string {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (bytes[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (!ascii) {
    try {
      return utf8.decode(bytes.subarray(start, end));
    } catch {
      // not UTF-8: fall through to Latin-1
    }
  }
  let s = '';
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/** True when bytes[start, end) is `samples` followed only by blanks. */
function isTerminator(bytes: Uint8Array, start: number, end: number): boolean {
  if (end - start < 7) return false;
  for (let i = 0; i < 7; i++) if (bytes[start + i] !== 'samples'.charCodeAt(i)) return false;
  for (let i = start + 7; i < end; i++) if (!isBlank(bytes[i])) return false;
  return true;
}

/** The keyword of a `<word> <space>+ <rest_of_line>` line, or null when the line is not one. */
function lineKeyword(bytes: Uint8Array, start: number, end: number): string | null {
  let k = start;
  while (k < end && !isBlank(bytes[k])) k++;
  if (k === start || k === end) return null;
  let v = k;
  while (v < end && isBlank(bytes[v])) v++;
  if (v === end) return null;
  return decodeText(bytes, start, k);
}

/**
 * A cheap sniff: the first line is a known DCPI keyword with a value, and either a `samples` terminator
 * line follows within the first 8 KB, or at least three known keyword lines open the file (so that a
 * damaged DCPI file still gets a DCPI error message rather than "unknown format").
 */
export function looksLikeDcpi(bytes: Uint8Array): boolean {
  const limit = Math.min(bytes.length, SNIFF_BYTES);
  let pos = 0;
  let known = 0;
  let lines = 0;
  while (pos < limit) {
    let end = pos;
    while (end < limit && bytes[end] !== 0x0a) {
      if (isControl(bytes[end])) return known >= 3;
      end++;
    }
    if (end === limit) break; // the window ends inside a line
    if (lines > 0 && isTerminator(bytes, pos, end)) return true;
    const key = lineKeyword(bytes, pos, end);
    if (key === null || (lines === 0 && !KNOWN.has(key))) return lines > 0 && known >= 3;
    if (KNOWN.has(key)) known++;
    lines++;
    pos = end + 1;
  }
  return known >= 3;
}

/**
 * Reads the ASCII header up to and including the `samples` line. Checks only the line grammar
 * (`<word> <space>+ <rest_of_line>`), not the keywords: see `parseDcpi` for those.
 */
export function readDcpiHeader(bytes: Uint8Array): DcpiHeader {
  const lines: DcpiHeaderLine[] = [];
  let pos = 0;
  let lineNo = 0;
  for (;;) {
    lineNo++;
    if (pos >= bytes.length) {
      fail(
        lineNo === 1
          ? 'The file is empty.'
          : `The header has no 'samples' line: the file ends after line ${lineNo - 1}.`,
        { line: lineNo, offset: pos },
      );
    }
    if (pos > MAX_HEADER_BYTES) {
      fail(`No 'samples' line within the first ${MAX_HEADER_BYTES} bytes: this is not a DCPI header.`, {
        line: lineNo,
        offset: pos,
      });
    }
    let end = pos;
    while (end < bytes.length && bytes[end] !== 0x0a) {
      const b = bytes[end];
      if (isControl(b)) {
        if (b === 0x0d) {
          fail(
            `A header line ends in a carriage return: DCPI headers use bare newlines. The file was probably ` +
              'converted as text, which also damages its binary part.',
            { line: lineNo, offset: end },
          );
        }
        fail(
          `A header line holds binary data (byte 0x${b.toString(16).padStart(2, '0')}) before any ` +
            "'samples' line: the header's 'samples' terminator is missing, or this is not a DCPI profile.",
          { line: lineNo, offset: end },
        );
      }
      end++;
    }
    if (end === bytes.length) {
      fail(`The header has no 'samples' line: line ${lineNo} runs to the end of the file.`, {
        line: lineNo,
        offset: pos,
      });
    }
    if (isTerminator(bytes, pos, end)) {
      if (lines.length === 0)
        fail("The header is empty: the first line is 'samples'.", { line: lineNo, offset: pos });
      return { lines, binaryOffset: end + 1, terminatorLine: lineNo, terminatorOffset: pos };
    }
    let k = pos;
    while (k < end && !isBlank(bytes[k])) k++;
    if (k === pos) {
      fail(
        end === pos
          ? `A header line is empty: every header line must be '<keyword> <value>'.`
          : `A header line starts with a blank: every header line must be '<keyword> <value>'.`,
        { line: lineNo, offset: pos },
      );
    }
    let v = k;
    while (v < end && isBlank(bytes[v])) v++;
    const key = decodeText(bytes, pos, k);
    if (v === end) fail(`The header line '${key}' has no value.`, { line: lineNo, offset: pos });
    lines.push({
      key,
      value: decodeText(bytes, v, end),
      known: KNOWN.has(key),
      raw: decodeText(bytes, pos, end),
      line: lineNo,
      offset: pos,
    });
    pos = end + 1;
  }
}

/** The value of a typed field, without trailing blanks (header padding; see the docs). */
function trimEnd(s: string): string {
  let e = s.length;
  while (e > 0 && (s.charCodeAt(e - 1) === 0x20 || s.charCodeAt(e - 1) === 0x09)) e--;
  return s.slice(0, e);
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** YYYY-MM-DDTHH:MM:SSZ, or null when the fields do not form a real date and time. */
function isoOf(y: number, mo: number, d: number, h: number, mi: number, s: number): string | null {
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  t.setUTCFullYear(y); // Date.UTC maps years 0..99 to 1900..1999
  if (
    t.getUTCFullYear() !== y ||
    t.getUTCMonth() !== mo - 1 ||
    t.getUTCDate() !== d ||
    t.getUTCHours() !== h ||
    t.getUTCMinutes() !== mi ||
    t.getUTCSeconds() !== s
  ) {
    return null;
  }
  return `${String(y).padStart(4, '0')}-${pad2(mo)}-${pad2(d)}T${pad2(h)}:${pad2(mi)}:${pad2(s)}Z`;
}

interface EpochReading {
  iso: string | null;
  form: string;
}

/** Reads a digits-only epoch of 10, 12 or 14 digits (UTC). */
function readEpoch(d: string): EpochReading {
  const n = (a: number, b: number): number => Number(d.slice(a, b));
  if (d.length === 10) {
    const yy = n(0, 2);
    const y = yy >= 69 ? 1900 + yy : 2000 + yy; // the POSIX %y pivot
    return { iso: isoOf(y, n(2, 4), n(4, 6), n(6, 8), n(8, 10), 0), form: 'YYMMDDHHMM' };
  }
  if (d.length === 12) {
    const long = isoOf(n(0, 4), n(4, 6), n(6, 8), n(8, 10), n(10, 12), 0);
    if (long !== null) return { iso: long, form: 'YYYYMMDDHHMM' };
    const yy = n(0, 2);
    const y = yy >= 69 ? 1900 + yy : 2000 + yy;
    return { iso: isoOf(y, n(2, 4), n(4, 6), n(6, 8), n(8, 10), n(10, 12)), form: 'YYMMDDHHMMSS' };
  }
  return { iso: isoOf(n(0, 4), n(4, 6), n(6, 8), n(8, 10), n(10, 12), n(12, 14)), form: 'YYYYMMDDHHMMSS' };
}

/** What the chunks' scan found, before the columns are filled: enough for a picture of the heavy addresses. */
export interface DcpiScanned {
  /** Samples in all, and addresses with samples. */
  total: number;
  addresses: number;
  /**
   * The profile of only the addresses holding at least `heavyFraction` of all samples (in address
   * order), its meta the whole file's; its warnings empty.
   */
  heavy: RawProfile;
}

/** Asks parseDcpi for the heavy addresses once the chunks are scanned (see DcpiScanned). */
export interface DcpiHeavyRequest {
  heavyFraction: number;
  onScanned: (s: DcpiScanned) => void;
}

/**
 * Parses a DCPI profile (binary layout 0.06/0.07) into a flat RawProfile. Throws ProfileError with the
 * header line or the byte offset of the first problem; keeps the data and warns when only the footer is off.
 *
 * The header's lines checked (validHeader), the text segment and epoch read (textSegment), the
 * binary section's chunks checked and counted without allocating from the file's numbers
 * (scanChunks, footerWarnings; with `heavy`, the addresses that may be heavy kept on the way and
 * given to `heavy.onScanned`), then exact-size columns filled (readCounts).
 */
export function parseDcpi(bytes: Uint8Array, heavy?: DcpiHeavyRequest): RawProfile {
  const header = readDcpiHeader(bytes);
  const warnings: ProfileWarning[] = [];
  const first = validHeader(header, warnings);
  const value = (key: string): string | undefined => {
    const h = first.get(key);
    return h === undefined ? undefined : trimEnd(h.value);
  };
  const text = textSegment(first, value, warnings);
  const candidates = heavy ? new HeavyCandidates(heavy.heavyFraction) : null;
  const scan = scanChunks(bytes, header.binaryOffset, text, candidates);
  warnings.push(...footerWarnings(scan, text.tsize, header.binaryOffset));
  const meta: RawProfile['meta'] = {
    periodUs: 0,
    mappings: [imageMapping(text, value('path'))],
    headerLines: header.lines.map((h) => ({ key: h.key, value: h.value, known: h.known })),
    extra: metadata(header, value, text, scan),
  };
  if (heavy && candidates) {
    const kept = candidates.heavy(scan.total);
    heavy.onScanned({
      total: scan.total,
      addresses: scan.nonZero,
      heavy: flatProfile(meta, addressesOf(kept.offsets, text.tstart), kept.counts, []),
    });
  }
  const { addrHi, addrLo, weight } = readCounts(bytes, header.binaryOffset, scan, text.tstart);
  return flatProfile(meta, { addrHi, addrLo }, weight, warnings);
}

/** A flat profile: address i is location i and the one frame of sample i, of weight `weight[i]`. */
function flatProfile(
  meta: RawProfile['meta'],
  { addrHi, addrLo }: { addrHi: Uint32Array; addrLo: Uint32Array },
  weight: Float64Array,
  warnings: ProfileWarning[],
): RawProfile {
  const n = weight.length;
  const stackStart = new Uint32Array(n + 1);
  const stackLocs = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    stackStart[i + 1] = i + 1;
    stackLocs[i] = i;
  }
  return {
    format: 'dcpi',
    meta,
    locations: {
      count: n,
      addrHi,
      addrLo,
      hasAddr: new Uint8Array(n).fill(1),
      locName: new Int32Array(n).fill(-1),
    },
    strings: [],
    samples: { count: n, stackStart, stackLocs, weight },
    adjustCallers: false,
    flat: true,
    warnings,
  };
}

/**
 * The counts that may hold `fraction` of all samples, kept during the scan: a count at least
 * `fraction` of the total so far (itself included). The total only grows, so every count at least
 * `fraction` of the final total is among them; each one kept grows the total by that share, so
 * there are at most about ln(total) / fraction of them (usually a few thousand).
 */
class HeavyCandidates {
  readonly offsets = new F64Builder(4096);
  readonly counts = new F64Builder(4096);
  constructor(readonly fraction: number) {}

  keep(offset: number, count: number): void {
    this.offsets.push(offset);
    this.counts.push(count);
  }

  /** The kept counts of at least `fraction` of `total`, in the order scanned. */
  heavy(total: number): { offsets: Float64Array; counts: Float64Array } {
    const threshold = total * this.fraction;
    const { offsets, counts } = this;
    let n = 0;
    for (let i = 0; i < counts.length; i++) if (counts.data[i] >= threshold) n++;
    const o = new Float64Array(n);
    const c = new Float64Array(n);
    n = 0;
    for (let i = 0; i < counts.length; i++) {
      if (counts.data[i] < threshold) continue;
      o[n] = offsets.data[i];
      c[n++] = counts.data[i];
    }
    return { offsets: o, counts: c };
  }
}

/** The addresses tstart + offset of chunk offsets (each below 2^33). */
function addressesOf(offsets: Float64Array, tstart: bigint): { addrHi: Uint32Array; addrLo: Uint32Array } {
  const [tHi, tLo] = splitBig(tstart);
  const addrHi = new Uint32Array(offsets.length);
  const addrLo = new Uint32Array(offsets.length);
  for (let i = 0; i < offsets.length; i++) setAddress(addrHi, addrLo, i, tHi, tLo + offsets[i]);
  return { addrHi, addrLo };
}

/** Address `i` = tstart + offset, given tstart's high word and `low` = its low word + the offset (below 2^35: exact). */
function setAddress(addrHi: Uint32Array, addrLo: Uint32Array, i: number, tHi: number, low: number): void {
  const carry = Math.floor(low / TWO32);
  addrHi[i] = tHi + carry;
  addrLo[i] = low - carry * TWO32;
}

/** Each known key's first line, checked: once-only keys, number forms, epoch, version, required keys. */
function validHeader(header: DcpiHeader, warnings: ProfileWarning[]): Map<string, DcpiHeaderLine> {
  const first = new Map<string, DcpiHeaderLine>();
  for (const h of header.lines) {
    const prev = first.get(h.key);
    if (prev !== undefined) {
      if (ONCE_KEYS.has(h.key)) {
        fail(
          `'${h.key}' appears twice (lines ${prev.line} and ${h.line}); it must appear exactly once.`,
          at(h),
        );
      }
      if (h.known) {
        warnings.push({
          message:
            `'${h.key}' appears more than once (lines ${prev.line} and ${h.line}); using the first, ` +
            `'${trimEnd(prev.value)}'.`,
          line: h.line,
        });
      }
      continue;
    }
    first.set(h.key, h);
    checkValue(h);
  }
  for (const key of DCPI_REQUIRED) {
    if (!first.has(key)) {
      fail(`The header has no '${key}' line; it is required.`, {
        line: header.terminatorLine,
        offset: header.terminatorOffset,
      });
    }
  }
  return first;
}

function checkValue(h: DcpiHeaderLine): void {
  const v = trimEnd(h.value);
  if (HEX_KEYS.has(h.key) && !/^[0-9a-fA-F]+$/.test(v)) {
    fail(`'${h.key}' must be hexadecimal digits, not '${v}'.`, at(h));
  }
  if (DEC_KEYS.has(h.key) && !/^[0-9]+$/.test(v)) {
    fail(`'${h.key}' must be decimal digits, not '${v}'.`, at(h));
  }
  if (h.key === 'epoch' && !/^(?:[0-9]{10}|[0-9]{12}|[0-9]{14})$/.test(v)) {
    fail(`'epoch' must be a UTC time YYMMDDHHMM (10 digits), not '${v}'.`, at(h));
  }
  if (h.key === 'version') {
    const m = /^pdb-([0-9]+)\.([0-9]+)$/.exec(v);
    if (m === null) {
      fail(`'version' must look like 'pdb-0.07', not '${v}'.`, at(h));
    }
    if (Number(m[1]) !== 0) {
      fail(
        `Version ${v} is not supported. Only the binary layout of versions 0.06/0.07 is ` +
          'documented; the layout of major version 1 is not.',
        at(h),
      );
    }
  }
}

interface TextSegment {
  imageId: string;
  tsize: bigint;
  tstart: bigint;
  tstartText: string | undefined;
  version: string | undefined;
  epoch: EpochReading;
  epochText: string;
}

/** The image's text segment (tstart, tsize), version and epoch, with warnings for what is assumed. */
function textSegment(
  first: Map<string, DcpiHeaderLine>,
  value: (key: string) => string | undefined,
  warnings: ProfileWarning[],
): TextSegment {
  const imageId = value('image')!.toLowerCase();
  const tsize = BigInt(value('tsize')!);
  const tstartText = value('tstart');
  const tstart = tstartText === undefined ? 0n : BigInt(`0x${tstartText}`);
  if (tstart > MAX_U64) {
    fail(`'tstart' ${tstartText} is beyond 64 bits.`, {
      ...at(first.get('tstart')!),
    });
  }
  if (tstart + tsize > MAX_U64 + 1n) {
    fail(`the text segment (tstart + tsize) runs past the 64-bit end.`, {
      ...at(first.get('tsize')!),
    });
  }
  const version = value('version');
  if (version === undefined) {
    warnings.push({ message: "No 'version' line: assuming the binary layout of versions 0.06/0.07." });
  }
  if (tstartText === undefined) {
    warnings.push({
      message: "No 'tstart' line: addresses are shown as offsets from the start of the text segment.",
    });
  }
  const epochLine = first.get('epoch')!;
  const epochText = trimEnd(epochLine.value);
  const epoch = readEpoch(epochText);
  if (epoch.form !== 'YYMMDDHHMM') {
    warnings.push({
      message:
        `'epoch' ${epochText} is not in the YYMMDDHHMM form the format defines; read as ${epoch.form}` +
        (epoch.form === 'YYYYMMDDHHMMSS' ? " (a form the format marks 'not yet supported')." : '.'),
      line: epochLine.line,
    });
  }
  if (epoch.iso === null) {
    warnings.push({ message: `'epoch' ${epochText} is not a valid date and time.`, line: epochLine.line });
  }
  return { imageId, tsize, tstart, tstartText, version, epoch, epochText };
}

interface ChunkScan {
  footerPos: number;
  chunks: number;
  entries: number;
  nonZero: number;
  total: number;
  outside: number;
  footOffsets: number;
  footSamples: number;
}

/**
 * Pass 1 over the binary section: checks the chunks' structure and counts, allocating nothing (but
 * the few `candidates` when asked).
 */
function scanChunks(
  bytes: Uint8Array,
  base: number,
  text: TextSegment,
  candidates: HeavyCandidates | null,
): ChunkScan {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length - base < 8) {
    fail(`The binary section is ${bytes.length - base} bytes long, too short for the 8-byte footer.`, {
      offset: base,
    });
  }
  const footerPos = bytes.length - 8;
  const misaligned = (bytes.length - base) % 4;
  const hint =
    misaligned === 0
      ? ''
      : ` The binary section is ${bytes.length - base} bytes, not a whole number of 4-byte values: ` +
        "stray bytes after the 'samples' line or at the end of the file?";
  const { tsize, tstart } = text;
  const tsizeNum = tsize > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(tsize);
  let p = base;
  let lastOff = -1;
  let lastEnd = -1;
  let lastChunkPos = -1;
  let chunks = 0;
  let entries = 0;
  let nonZero = 0;
  let total = 0;
  let outside = 0;
  const fraction = candidates?.fraction ?? 2; // above 1: no count is a candidate
  while (p < footerPos) {
    if (footerPos - p < 8) {
      fail(
        `Chunk ${chunks + 1} is cut off: only ${footerPos - p} bytes remain before the 8-byte footer, and a ` +
          `chunk needs at least 12.${hint}`,
        { offset: p },
      );
    }
    const off = dv.getUint32(p, true);
    const num = dv.getUint32(p + 4, true);
    const room = Math.floor((footerPos - p - 8) / 4);
    if (num === 0) {
      fail(
        `Chunk ${chunks + 1} (offset 0x${off.toString(16)}) has no counts; every chunk needs at least one.${hint}`,
        { offset: p + 4 },
      );
    }
    if (num > room) {
      fail(
        `Chunk ${chunks + 1} (offset 0x${off.toString(16)}) claims ${num} counts, but only ${room} fit ` +
          `before the footer: the file is truncated or damaged.${hint}`,
        { offset: p + 4 },
      );
    }
    if (off <= lastOff) {
      fail(
        `Chunk ${chunks + 1} has offset 0x${off.toString(16)}, not above the previous chunk's ` +
          `0x${lastOff.toString(16)}: chunk offsets must increase.${hint}`,
        { offset: p },
      );
    }
    if (off < lastEnd) {
      fail(
        `Chunk ${chunks + 1} (offset 0x${off.toString(16)}) overlaps the previous chunk, which ends at ` +
          `0x${lastEnd.toString(16)}.${hint}`,
        { offset: p },
      );
    }
    const q = p + 8;
    const end = q + 4 * num;
    // Most counts are zero (a chunk spans the text between sampled addresses): two at a time, a
    // pair of zeros is one test (100 MB, node: 24–33 ms against 41–44 one at a time; the floor's
    // plain sum is 29–31 ms). A count is kept when at least `fraction` of the samples so far:
    // every count heavy in the end is (the total only grows), and few others are.
    let r = q;
    for (; r + 8 <= end; r += 8) {
      const a = dv.getUint32(r, true);
      const b = dv.getUint32(r + 4, true);
      if ((a | b) === 0) continue;
      if (a !== 0) {
        nonZero++;
        total += a;
        if (a >= total * fraction) candidates!.keep(off + (r - q) / 4, a);
      }
      if (b !== 0) {
        nonZero++;
        total += b;
        if (b >= total * fraction) candidates!.keep(off + (r - q) / 4 + 1, b);
      }
    }
    if (r < end) {
      const c = dv.getUint32(r, true);
      if (c !== 0) {
        nonZero++;
        total += c;
        if (c >= total * fraction) candidates!.keep(off + num - 1, c);
      }
    }
    // the counts beyond the text segment (usually none: only a chunk that runs past it is read again)
    for (let k = Math.max(0, tsizeNum - off); k < num; k++)
      if (dv.getUint32(q + 4 * k, true) !== 0) outside++;
    entries += num;
    chunks++;
    lastOff = off;
    lastEnd = off + num;
    lastChunkPos = p;
    p = end;
  }
  if (chunks > 0 && tstart + BigInt(lastEnd - 1) > MAX_U64) {
    fail('The last chunk reaches addresses beyond 64 bits (tstart + offset).', { offset: lastChunkPos });
  }
  const footOffsets = dv.getUint32(footerPos, true);
  const footSamples = dv.getUint32(footerPos + 4, true);
  return { footerPos, chunks, entries, nonZero, total, outside, footOffsets, footSamples };
}

/** Where the footer disagrees with the chunks (the chunks are shown), and counts beyond the text. */
function footerWarnings(scan: ChunkScan, tsize: bigint, base: number): ProfileWarning[] {
  const { footOffsets, footSamples, footerPos, nonZero, entries, total, outside } = scan;
  const warnings: ProfileWarning[] = [];
  if (footOffsets !== nonZero) {
    warnings.push({
      message:
        `The footer says ${footOffsets} addresses have samples, but the chunks have ${nonZero}` +
        (footOffsets === entries && entries !== nonZero
          ? ` (${entries} is the number of entries including zero counts).`
          : '.') +
        ' Showing the chunks.',
      offset: footerPos,
    });
  }
  // The footer's field is 32 bits: a total past 2^32 is written modulo 2^32.
  if (footSamples !== total % TWO32) {
    warnings.push({
      message:
        `The footer says ${footSamples} samples in total, but the counts add up to ${total}. ` +
        'Showing the counts.',
      offset: footerPos + 4,
    });
  }
  if (outside > 0) {
    warnings.push({
      message: `${outside} addresses with samples lie beyond the text size (tsize ${tsize}).`,
      offset: base,
    });
  }
  return warnings;
}

/** Pass 2: the non-zero counts and their addresses (tstart + offset + i), in exact-size columns. */
function readCounts(
  bytes: Uint8Array,
  base: number,
  scan: ChunkScan,
  tstart: bigint,
): { addrHi: Uint32Array; addrLo: Uint32Array; weight: Float64Array } {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [tHi, tLo] = splitBig(tstart);
  const addrHi = new Uint32Array(scan.nonZero);
  const addrLo = new Uint32Array(scan.nonZero);
  const weight = new Float64Array(scan.nonZero);
  let n = 0;
  let p = base;
  while (p < scan.footerPos) {
    const off = dv.getUint32(p, true);
    const num = dv.getUint32(p + 4, true);
    const q = p + 8;
    for (let k = 0; k < num; k++) {
      const c = dv.getUint32(q + 4 * k, true);
      if (c === 0) continue;
      setAddress(addrHi, addrLo, n, tHi, tLo + off + k);
      weight[n] = c;
      n++;
    }
    p = q + 4 * num;
  }
  return { addrHi, addrLo, weight };
}

function imageMapping(text: TextSegment, path: string | undefined): Mapping {
  return {
    start: text.tstart,
    end: text.tstart + text.tsize,
    offset: 0n,
    path: path !== undefined && path !== '' ? path : `image-${text.imageId}`,
    // DCPI addresses are the image's own text addresses (tstart + offset): an ELF of the image
    // resolves them directly, not through a run-time mapping.
    linkTimeAddresses: text.tstartText !== undefined,
  };
}

/** The metadata panel's facts: the header's values explained, and what the chunks held. */
function metadata(
  header: DcpiHeader,
  value: (key: string) => string | undefined,
  text: TextSegment,
  scan: ChunkScan,
): Record<string, string> {
  const { tstart, tstartText, tsize, epoch, epochText } = text;
  const event = value('event')!;
  const period = value('period')!;
  const extra: Record<string, string> = {
    'image id': text.imageId,
    version: text.version ?? 'none (assumed 0.06/0.07)',
    epoch: epoch.iso ?? epochText,
    'epoch as written': epochText,
    platform: value('platform')!,
    event,
    period: `${period} ${event} events per sample`,
    'weights are': `sample counts (one sample every ${period} ${event} events), not time`,
    cpuspeed: value('cpuspeed')!,
    'text start':
      tstartText === undefined ? 'unknown (no tstart line; shown as 0x0)' : `0x${tstart.toString(16)}`,
    'text size': `${tsize} bytes (0x${tsize.toString(16)})`,
    'address unit': '1 per index (address = tstart + offset + i)',
    chunks: String(scan.chunks),
    'addresses with samples': String(scan.nonZero),
    'total samples': String(scan.total),
    footer: `${scan.footOffsets} addresses, ${scan.footSamples} samples`,
  };
  for (const key of ['path', 'cpucount', 'cpuamask', 'cpuimplv']) {
    const v = value(key);
    if (v !== undefined) extra[key] = v;
  }
  const unknown = header.lines.filter((h) => !h.known);
  if (unknown.length > 0) extra['unknown header lines'] = unknown.map((h) => h.raw).join('\n');
  return extra;
}
