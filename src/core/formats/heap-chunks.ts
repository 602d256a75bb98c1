// A gperftools heap profile parsed from its chunks once read (Importer.chunks), with no
// buffer of the file's size: each chunk is kept until its lines are read, then let go of. A line
// that runs from one chunk into the next is copied into a seam of its own. The first picture is
// drawn from windows of lines copied out of the chunks as they pass (HeapSampleCollector), as
// text-preview.ts draws it from the whole file.

import { ProfileError, type RawProfile } from '../types.ts';
import { bomLength, HeapLineParser, parseHeap } from './heap.ts';
import type { ImporterChunks, ImporterPreview, ParseProfileOptions } from './importer.ts';
import {
  HEAP_MAPS_WITHIN,
  HEAP_PREVIEW_BYTES,
  HEAP_SAMPLING,
  joinBytes,
  postSampledPreview,
  type Sampled,
  TEXT_PREVIEW_FROM,
  TEXT_PREVIEW_WINDOWS,
} from './text-preview.ts';

/** A chunk waiting for its lines to be read from `pos` on; `base`: the file offset of its byte 0. */
interface Queued {
  bytes: Uint8Array;
  base: number;
  pos: number;
}

/**
 * The heap importer's chunks capability: a file of `size` bytes whose first chunk is `first`;
 * `release` frees a chunk's buffer once its lines are read.
 */
export function chunkHeap(
  first: Uint8Array,
  size: number,
  release?: (buffer: ArrayBuffer) => void,
): ImporterChunks | null {
  if (size === 0) return null;
  const stream = new HeapChunkStream(size, release);
  stream.push(first);
  return stream;
}

/** The parse of a heap profile from its chunks (chunkHeap). */
export class HeapChunkStream implements ImporterChunks {
  private parser: HeapLineParser | null = null;
  /** The file's first bytes while fewer than a byte order mark's are in. */
  private head: Uint8Array | null = null;
  private readonly queue: Queued[] = [];
  /** The start of a line the last chunk read did not end, and its file offset. */
  private seam: Uint8Array | null = null;
  private seamBase = 0;
  /** The bytes pushed so far. */
  private received = 0;
  private readonly sample: HeapSampleCollector;

  constructor(
    private readonly size: number,
    private readonly release?: (buffer: ArrayBuffer) => void,
  ) {
    this.sample = new HeapSampleCollector(size);
  }

  /**
   * The file's next bytes: copied into the preview's sample where it wants them, kept (not copied)
   * until finish reads their lines, after the preview. Read while the file was read (for about the
   * reader's time per chunk, as the gperftools stream does), they delayed the first picture of a
   * 400 MB file on this busy 2-core machine (1.4–2.7 s against 1.0–1.8 s read into one buffer,
   * alternating): the parse's CPU was the reading's. The peak is no higher for it: the chunks
   * held at the read's end are the file, without its columns, freed as the columns fill.
   */
  push(chunk: Uint8Array): void {
    const base = this.received;
    this.received += chunk.length;
    if (this.received > this.size)
      throw new ProfileError(`more bytes than the file's ${this.size}`, 'heap', { offset: this.size });
    this.sample.add(chunk, base);
    if (this.parser === null) {
      // the byte order mark is known once three bytes are in (or the file has fewer)
      const head = this.head === null ? chunk : joinBytes([this.head, chunk]);
      if (head.length < 3 && this.received < this.size) {
        this.head = head;
        return;
      }
      this.head = null;
      this.parser = new HeapLineParser(this.size, bomLength(head));
      this.queue.push({ bytes: head, base: 0, pos: this.parser.first });
    } else {
      this.queue.push({ bytes: chunk, base, pos: 0 });
    }
  }

  /** All bytes are in: the preview (when asked for and the file is large), then the rest of the parse. */
  finish(opts: ParseProfileOptions & { onPreview?: (p: ImporterPreview) => void }): RawProfile {
    if (this.received < this.size) {
      throw new ProfileError(
        `the file ends at byte ${this.received} of ${this.size} (read cut short?)`,
        'heap',
        { offset: this.received },
      );
    }
    // A preview named as the fold will: without symbol files (as parseProfile decides for importers
    // whose preview does not symbolize).
    const onPreview = opts.withSymbols === true ? undefined : opts.onPreview;
    if (onPreview && this.size >= TEXT_PREVIEW_FROM) {
      postSampledPreview(() => this.sample.take(), { ...opts, onPreview }, parseHeap);
    }
    this.sample.clear();
    this.work();
    const parser = this.parser;
    if (parser === null) throw new ProfileError('empty file', 'heap', { offset: 0 });
    const seam = this.seam;
    this.seam = null;
    if (!parser.inMaps) {
      if (seam !== null) parser.lastLine(seam, 0, seam.length, this.seamBase);
      else if (parser.lineCount === 0) parser.lastLine(new Uint8Array(0), 0, 0, this.size);
    }
    return parser.finish();
  }

  /** Reads the queued chunks' lines, each chunk let go of once read. */
  private work(): void {
    const parser = this.parser;
    if (parser === null) return;
    const queue = this.queue;
    while (queue.length > 0) {
      const q = queue[0];
      const { bytes, base } = q;
      if (parser.inMaps) {
        parser.addMaps(bytes.slice(q.pos));
        this.done();
        continue;
      }
      if (this.seam !== null) {
        // the line begun in the chunks before ends at this one's first '\n', if it has one
        const nl = bytes.indexOf(10, q.pos);
        if (nl < 0) {
          this.seam = joinBytes([this.seam, bytes.subarray(q.pos)]);
          this.done();
          continue;
        }
        const line = joinBytes([this.seam, bytes.subarray(q.pos, nl + 1)]);
        this.seam = null;
        parser.lines(line, 0, line.length, this.seamBase);
        q.pos = nl + 1;
        continue;
      }
      q.pos = parser.lines(bytes, q.pos, bytes.length, base);
      if (parser.inMaps) continue;
      if (q.pos < bytes.length) {
        // no '\n' after q.pos: a line that goes on in the next chunk (or the file's last)
        this.seam = bytes.slice(q.pos);
        this.seamBase = base + q.pos;
      }
      this.done();
    }
  }

  /** The queue's first chunk is read: let go of. */
  private done(): void {
    const { bytes } = this.queue.shift() as Queued;
    const buffer = bytes.buffer;
    if (
      this.release &&
      buffer instanceof ArrayBuffer &&
      bytes.byteOffset === 0 &&
      bytes.byteLength === buffer.byteLength
    )
      this.release(buffer);
  }
}

/** One window of the sample: the file's bytes [b, a) (a: -1 while it is being copied, or to the end). */
interface Window {
  b: number;
  a: number;
  parts: Uint8Array[];
}

/**
 * The sample text-preview.ts's sampledText takes of a heap profile (HEAP_SAMPLING: its header,
 * windows of whole lines evenly spread over the records, its maps section), taken from the file's
 * chunks as they pass: the windows are copied out of them, and so are the file's last
 * HEAP_MAPS_WITHIN bytes, where the maps section is looked for once all are in. The windows are
 * spread over the bytes from the header's end to the file's (the maps section's start is not known
 * until the end); those that reach into the maps section are cut at its start, and the share is of
 * the records' bytes, as sampledText's.
 */
export class HeapSampleCollector {
  /** The header's bytes (the file's bytes before the records' start), copied. */
  private head: Uint8Array[] = [];
  /** The records' start (after the first non-blank line), -1 until found. */
  private start = -1;
  private readonly windows: Window[] = [];
  /** The window being looked for (from where a line starts at or after `from`) or copied. */
  private phase: 'start' | 'seek' | 'copy' | 'rest' | 'done' = 'start';
  private from = 0;
  private span = 0;
  private body = 0;
  private tail: Uint8Array | null = null;
  private readonly tailBase: number;

  constructor(
    private readonly size: number,
    private readonly budget = HEAP_PREVIEW_BYTES,
    private readonly count = TEXT_PREVIEW_WINDOWS,
  ) {
    this.tailBase = Math.max(0, size - HEAP_MAPS_WITHIN);
  }

  /** The file's bytes from `base` on. */
  add(chunk: Uint8Array, base: number): void {
    const end = base + chunk.length;
    if (end > this.tailBase) {
      this.tail ??= new Uint8Array(this.size - this.tailBase);
      const from = Math.max(base, this.tailBase);
      this.tail.set(chunk.subarray(from - base), from - this.tailBase);
    }
    let i = 0;
    while (i < chunk.length && this.phase !== 'done') {
      if (this.phase === 'start') {
        // HEAP_SAMPLING.bodyStart: blank bytes, then a line; the records start after its '\n'
        let p = i;
        if (this.head.length === 0 || this.onlyBlanks()) while (p < chunk.length && isBlank(chunk[p])) p++;
        const nl = p < chunk.length ? chunk.indexOf(10, p) : -1;
        const to = nl < 0 ? chunk.length : nl + 1;
        this.head.push(chunk.slice(i, to));
        i = to;
        if (nl >= 0) this.begin(base + nl + 1);
      } else if (this.phase === 'seek') {
        // a window starts at the first line start at or after `from` (lineAfter(from - 1))
        const local = Math.max(i, this.from - 1 - base);
        const nl = local < chunk.length ? chunk.indexOf(10, local) : -1;
        if (nl < 0) return;
        i = nl + 1;
        this.open(base + i);
      } else if (this.phase === 'copy') {
        // to the first line start at or after b + span
        const w = this.windows[this.windows.length - 1];
        const local = Math.max(i, w.b + this.span - 1 - base);
        const nl = local < chunk.length ? chunk.indexOf(10, local) : -1;
        const to = nl < 0 ? chunk.length : nl + 1;
        w.parts.push(chunk.slice(i, to));
        i = to;
        if (nl >= 0) {
          w.a = base + to;
          this.next(w.a);
        }
      } else {
        // 'rest': the window that reaches the file's end
        this.windows[this.windows.length - 1].parts.push(chunk.slice(i));
        i = chunk.length;
      }
    }
  }

  /**
   * The sample, once all the file's bytes are in: header, windows cut at the maps section's start,
   * the maps section; null when the records are too few to sample (sampledText's rule).
   */
  take(): Sampled | null {
    if (this.start < 0 || this.tail === null) return null;
    const end = this.tailBase + (HEAP_SAMPLING.bodyEnd?.(this.tail) ?? this.tail.length);
    if (end - this.start <= this.budget * 2) return null;
    const parts: Uint8Array[] = [...this.head];
    let kept = 0;
    for (const w of this.windows) {
      if (w.b >= end) break;
      const a = w.a < 0 ? (this.phase === 'rest' ? this.size : -1) : w.a;
      if (a < 0) break; // no line ends after it
      const e = Math.min(a, end);
      const bytes = joinBytes(w.parts).subarray(0, e - w.b);
      parts.push(bytes);
      kept += bytes.length;
    }
    if (kept === 0) return null;
    parts.push(this.tail.subarray(end - this.tailBase));
    return { text: joinBytes(parts), share: kept / (end - this.start) };
  }

  /** Lets go of what was copied. */
  clear(): void {
    this.head = [];
    this.windows.length = 0;
    this.tail = null;
    this.phase = 'done';
  }

  private onlyBlanks(): boolean {
    for (const h of this.head) for (let i = 0; i < h.length; i++) if (!isBlank(h[i])) return false;
    return true;
  }

  /** The records start at `start`: the first window starts there. */
  private begin(start: number): void {
    this.start = start;
    this.body = this.size - start;
    if (this.body <= this.budget * 2) {
      this.phase = 'done';
      return;
    }
    this.span = Math.max(1, Math.floor(this.budget / this.count));
    this.open(start);
  }

  /** A window starts at `b`. */
  private open(b: number): void {
    if (b >= this.size) {
      this.phase = 'done';
      return;
    }
    this.windows.push({ b, a: -1, parts: [] });
    this.phase = b + this.span >= this.size ? 'rest' : 'copy';
  }

  /** The window before ended at `last`: the next, if any, is looked for. */
  private next(last: number): void {
    const w = this.windows.length;
    if (w >= this.count) {
      this.phase = 'done';
      return;
    }
    const from = Math.max(last, this.start + Math.floor((w * this.body) / this.count));
    // `last` follows a '\n' (passed already): a line starts there
    if (from === last) {
      this.open(last);
      return;
    }
    this.from = from;
    this.phase = 'seek';
  }
}

const isBlank = (c: number) => c === 10 || c === 13 || c === 32 || c === 9;
