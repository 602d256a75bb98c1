// Format detection by sniffing bytes (never the file name) and dispatch to the importers.
// gzip input (1f 8b) is decompressed first.

import { Inflate } from 'fflate';
import type { FormatId, RawProfile } from '../types.ts';
import { ProfileError } from '../types.ts';
import { looksLikeDcpi, parseDcpi } from './dcpi.ts';
import { parseDcpiWithPreview } from './dcpi-preview.ts';
import { foldedMisfit, looksLikeFolded, parseFolded } from './folded.ts';
import { looksLikeGperftools, parseGperftools } from './gperftools.ts';
import { chunkGperftools, parseGperftoolsWithPreview, streamGperftools } from './gperftools-preview.ts';
import type { ChunkSource } from './gperftools-sample.ts';
import { looksLikeHeap, parseHeap } from './heap.ts';
import { chunkHeap } from './heap-chunks.ts';
import type {
  Importer,
  ImporterChunks,
  ImporterPreview,
  ImporterStream,
  ParseInProgress,
  ParseProfileOptions,
  TextSampling,
} from './importer.ts';
import { boundedInflate, INFLATE_LIMITS, type InflateLimits } from './inflate.ts';
import { looksLikePerfData, parsePerfData } from './perfdata.ts';
import { perfDataWithPreview } from './perfdata-preview.ts';
import { looksLikePerfScript, parsePerfScript } from './perfscript.ts';
import { looksLikePprof, parsePprof } from './pprof.ts';
import { sampledPprof } from './pprof-preview.ts';
import { looksLikePprofRaw, parsePprofRaw } from './pprofraw.ts';
import { sayNoSamples, usableValues } from './sanitize.ts';
import { looksLikeSnapshot, parseSnapshot } from './snapshot.ts';
import {
  byRecords,
  FOLDED_SAMPLING,
  HEAP_PREVIEW_BYTES,
  HEAP_SAMPLING,
  PERF_SCRIPT_SAMPLING,
  previewOfSample,
  sampledFrom,
  sampledParseWithPreview,
  TEXT_PREVIEW_BYTES,
  TEXT_PREVIEW_FROM,
  TEXT_PREVIEW_WINDOWS,
  UNREAD_HEAD,
} from './text-preview.ts';

export type { Importer, ImporterPreview, ImporterStream, ParseProfileOptions };

// A new format: write formats/NAME.ts exporting looksLikeNAME(bytes) and parseNAME(bytes), then add
// it to IMPORTERS below (text formats before 'folded', the loosest sniff). Nothing outside
// formats/ names a format: the worker, the CLI and the bench reach importers through parseProfile.

/**
 * A text importer's previews, read or not yet read: from its records sampled by `how`, about
 * `budget` bytes in `windows` windows.
 */
function byRecordsPreview(
  parse: (bytes: Uint8Array) => RawProfile,
  how: TextSampling,
  budget = TEXT_PREVIEW_BYTES,
  windows = TEXT_PREVIEW_WINDOWS,
): Pick<Importer, 'sampling' | 'parseWithPreview'> {
  return {
    sampling: { how, budget, windows },
    parseWithPreview: sampledParseWithPreview(parse, byRecords(how, budget, windows)),
  };
}

/** In order of trust: binary magic first, the loosest text format last. */
export const IMPORTERS: readonly Importer[] = [
  { id: 'snapshot', sniff: looksLikeSnapshot, parse: (b) => parseSnapshot(b) },
  {
    id: 'gperftools',
    sniff: (b) => looksLikeGperftools(b) || startsWithZeroWord(b),
    parse: parseGperftools,
    parseWithPreview: parseGperftoolsWithPreview,
    stream: streamGperftools,
    chunks: chunkGperftools,
  },
  {
    id: 'perf-data',
    sniff: looksLikePerfData,
    parse: (b) => parsePerfData(b),
    parseWithPreview: perfDataWithPreview(),
    previewSymbolizes: true,
  },
  // Text is no profile.proto (whose tags and lengths are control bytes: a Sample's tag is 0x12),
  // however its first bytes happen to decode: folded text our own writer wrote was taken for one.
  {
    id: 'pprof',
    sniff: (b) => looksLikePprof(b) && !isPlainText(b),
    parse: (b) => parsePprof(b),
    parseWithPreview: sampledParseWithPreview(parsePprof, sampledPprof),
  },
  { id: 'dcpi', sniff: looksLikeDcpi, parse: (b) => parseDcpi(b), parseWithPreview: parseDcpiWithPreview },
  { id: 'pprof-raw', sniff: looksLikePprofRaw, parse: (b) => parsePprofRaw(b) },
  {
    id: 'heap',
    sniff: looksLikeHeap,
    parse: (b) => parseHeap(b),
    ...byRecordsPreview(parseHeap, HEAP_SAMPLING, HEAP_PREVIEW_BYTES),
    chunks: chunkHeap,
  },
  {
    id: 'perf-script',
    sniff: looksLikePerfScript,
    parse: (b) => parsePerfScript(b),
    ...byRecordsPreview(parsePerfScript, PERF_SCRIPT_SAMPLING),
  },
  {
    id: 'folded',
    sniff: looksLikeFolded,
    parse: (b) => parseFolded(b),
    // a two-count file's preview is a comparison too, of its sample's two columns
    ...byRecordsPreview(parseFolded, FOLDED_SAMPLING),
  },
];

/** Whether the first 4 KB hold no control byte but tab, newline and carriage return. */
function isPlainText(b: Uint8Array): boolean {
  const n = Math.min(b.length, 4096);
  for (let i = 0; i < n; i++) {
    const c = b[i];
    if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f) return false;
  }
  return true;
}

export const NOT_RECOGNISED =
  'not a recognised profile: expected a gperftools CPU or heap profile, pprof profile.proto (.pb.gz), DCPI profile, ' +
  '`pprof --raw` output, perf.data, `perf script` text or folded stacks';

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * The data of a gzip member. The deflate stream is inflated on its own, its output growing as it
 * goes: fflate's gunzipSync sizes its output by the trailer's length field, so a damaged trailer
 * made it allocate up to 4 GB, or cut the data short without an error. Throws a ProfileError at the
 * byte where the member broke: where a cut file ends, or where its deflate data turns invalid.
 */
function gunzip(bytes: Uint8Array, limits: InflateLimits): Uint8Array {
  const broken = (why: string, offset: number) =>
    new ProfileError(`corrupt gzip data: ${why}`, 'unknown', { offset });
  if (bytes.length < 10) throw broken('header cut short', bytes.length);
  if (bytes[2] !== 8) throw broken(`unknown compression method ${bytes[2]}`, 2);
  const flags = bytes[3];
  let start = 10;
  if (flags & 4) start += (bytes[10] | (bytes[11] << 8)) + 2; // FEXTRA
  for (const flag of [8, 16]) {
    // FNAME, FCOMMENT: zero-terminated
    if (!(flags & flag)) continue;
    while (start < bytes.length && bytes[start] !== 0) start++;
    start++;
  }
  if (flags & 2) start += 2; // FHCRC
  if (start >= bytes.length) throw broken('header cut short', bytes.length);
  // The deflate data and what follows (the trailer): inflating stops at the stream's last block.
  const data = bytes.subarray(start);
  try {
    return boundedInflate(data, 'the gzip data', 0, limits);
  } catch (e) {
    if (e instanceof ProfileError) throw e; // a limit passed
    const at = deflateBreak(data);
    if (at === data.length)
      throw broken('cut short (the compressed stream stops before its last block)', bytes.length);
    throw broken(e instanceof Error ? e.message : String(e), start + at);
  }
}

/**
 * Where deflate data that does not inflate breaks: the offset of the byte at which fflate's
 * streaming inflater fails when given the data in ever smaller pieces (64 KB, then 4 KB, 256, 16
 * and 1 byte from the piece that failed: at most 16 pushes a stage, as a push whose block header is
 * not whole yet parses that header again, milliseconds for a damaged one: 512 pushes of a byte
 * took 1.3 s on a 454-byte file), or `data.length` when no byte is invalid and the stream just
 * ends too soon.
 */
function deflateBreak(data: Uint8Array): number {
  let from = 0;
  for (const step of [1 << 16, 1 << 12, 1 << 8, 1 << 4, 1]) {
    const at = failingPiece(data, from, step);
    if (at === null) return from === 0 ? data.length : from;
    from = at;
  }
  return from;
}

/** The start of the first piece of `step` bytes from `from` on whose inflation fails, or null. */
function failingPiece(data: Uint8Array, from: number, step: number): number | null {
  const inflater = new Inflate(() => {});
  try {
    if (from > 0) inflater.push(data.subarray(0, from));
  } catch {
    return null;
  }
  for (let at = from; at < data.length; at += step) {
    try {
      inflater.push(data.subarray(at, Math.min(at + step, data.length)));
    } catch {
      return at;
    }
  }
  return null;
}

/** Decompresses gzip input; other input is returned as is. Throws a ProfileError for broken gzip. */
export function maybeGunzip(bytes: Uint8Array, limits: InflateLimits = INFLATE_LIMITS): Uint8Array {
  return isGzip(bytes) ? gunzip(bytes, limits) : bytes;
}

/** A binary file starting with a zero word is sent to the gperftools importer for a precise error. */
function startsWithZeroWord(b: Uint8Array): boolean {
  return b.length >= 8 && b[0] === 0 && b[1] === 0 && b[2] === 0 && b[3] === 0;
}

function sniff(bytes: Uint8Array): Importer | null {
  for (const imp of IMPORTERS) if (imp.sniff(bytes)) return imp;
  return null;
}

/** The format of the bytes (gzip is looked through), or null when none matches. */
export function detectFormat(bytes: Uint8Array): FormatId | null {
  if (bytes.length === 0) return null;
  let data = bytes;
  if (isGzip(bytes)) {
    try {
      data = gunzip(bytes, INFLATE_LIMITS);
    } catch {
      return null;
    }
  }
  return sniff(data)?.id ?? null;
}

/**
 * A parse to begin on the buffer a large file is being read into, as soon as its first `head`
 * bytes are in: when they are no gzip and the format they show can be parsed so (an importer's
 * `stream`). Feed it with `advance`, then give it to parseProfile as `stream` once all are in.
 */
export function streamingParse(bytes: Uint8Array, head: number): ImporterStream | null {
  const first = bytes.subarray(0, head);
  if (first.length === 0 || isGzip(first)) return null;
  return sniff(first)?.stream?.(bytes) ?? null;
}

/**
 * Whether a large file whose first bytes are `head` can be parsed while it is read: from its
 * chunks (chunkedParse) or on the buffer it is read into (streamingParse).
 */
export function parsesWhileRead(head: Uint8Array): boolean {
  if (head.length === 0 || isGzip(head)) return false;
  const imp = sniff(head);
  return imp?.chunks !== undefined || streamingParse(head, head.length) !== null;
}

/**
 * A parse from chunks (ImporterChunks) of a file of `size` bytes whose first chunk is `first`, when
 * they are no gzip and the format they show can be parsed so; push the other chunks in order, then
 * give it to parseProfile as `stream`. `release` frees a chunk's buffer once it is parsed.
 */
export function chunkedParse(
  first: Uint8Array,
  size: number,
  release?: (buffer: ArrayBuffer) => void,
): ImporterChunks | null {
  if (first.length === 0 || isGzip(first)) return null;
  return sniff(first)?.chunks?.(first, size, release) ?? null;
}

/**
 * A first picture of a file not yet read (`src` reads its bytes at any offset), when its format's
 * records can be sampled where they lie (Importer.sampling) and it is large enough to be previewed:
 * windows of its records read and pictured as `parseWithPreview`'s preview pictures them from the
 * whole bytes. Null when not: gzip, another format, too small, or the sample does not read or parse
 * (the parse of the whole file says what is wrong).
 */
export async function previewUnread(
  src: ChunkSource,
  opts: ParseProfileOptions,
): Promise<ImporterPreview | null> {
  if (src.size < TEXT_PREVIEW_FROM) return null;
  const t0 = performance.now();
  try {
    const head = await src.read(0, Math.min(src.size, UNREAD_HEAD));
    const imp = isGzip(head) ? null : sniff(head);
    if (!imp?.sampling) return null;
    const { how, budget, windows } = imp.sampling;
    const s = await sampledFrom(src, how, budget, windows, head);
    return s && previewOfSample(s, (b) => imp.parse(b, {}), opts, t0);
  } catch {
    return null;
  }
}

/**
 * Detects the format (gzip looked through) and parses. With `onPreview`, an importer that can
 * preview a large file posts a coarse picture first. With `stream` (streamingParse's, fed with all
 * of `bytes`), the parse begun while they were read is finished instead. Throws ProfileError for
 * empty, unrecognised or unusable input.
 */
export function parseProfile(
  bytes: Uint8Array,
  opts: ParseProfileOptions & { onPreview?: (p: ImporterPreview) => void; stream?: ParseInProgress } = {},
): RawProfile {
  // Every reader's profile: samples whose values are no usable numbers and mappings past 64 bits
  // are left out with a warning (sanitize.ts), so no writer meets them; one with nothing to draw says so.
  if (opts.stream) return checkedProfile(opts.stream.finish(opts));
  if (bytes.length === 0) throw new ProfileError('empty file', 'unknown', { offset: 0 });
  const data = maybeGunzip(bytes);
  if (data.length === 0) throw new ProfileError('empty file (after gunzip)', 'unknown', { offset: 0 });
  const imp = sniff(data);
  if (!imp) {
    // Stacks with a stray line among them: where it is, not byte 0.
    const misfit = foldedMisfit(data);
    if (misfit)
      throw new ProfileError(
        `${NOT_RECOGNISED}; read as folded stacks, line ${misfit.line} is not \`stack COUNT\``,
        'unknown',
        misfit,
      );
    throw new ProfileError(NOT_RECOGNISED, 'unknown', { offset: 0 });
  }
  // With symbol files, only a preview folded as the profile will be names its frames alike.
  const onPreview =
    opts.withSymbols === true && !(imp.previewSymbolizes && opts.foldSample) ? undefined : opts.onPreview;
  if (onPreview && imp.parseWithPreview)
    return checkedProfile(imp.parseWithPreview(data, { ...opts, onPreview }));
  return checkedProfile(imp.parse(data, opts));
}

/** A reader's profile as every later stage may take it (sanitize.ts), said when it has nothing to draw. */
export function checkedProfile(raw: RawProfile): RawProfile {
  return sayNoSamples(usableValues(raw));
}
