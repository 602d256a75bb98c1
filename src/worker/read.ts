// Reading dropped files in the worker, so the page never holds their bytes: a File (or a kept
// Blob) is read in one call, or, when large, in chunks with progress: parsed from the chunks where
// its format allows (no buffer of its size), else into one buffer of its size. Bytes already in
// memory (a fetched link) are used as they are.

import { chunkedParse, parsesWhileRead, streamingParse } from '../core/formats/detect';
import { looksLikeGperftools } from '../core/formats/gperftools';
import { type ChunkSource, sampleGperftools } from '../core/formats/gperftools-sample';
import type { DroppedFile, ImporterChunks, ImporterStream } from '../core/formats/importer';
import { ProfileError } from '../core/types';
import { startHelper } from './prefault';
import type { FileBuffer } from './protocol';
import type { FromReader, ToReader } from './reader.worker';
import ReaderWorker from './reader.worker.ts?worker&inline';
import { release } from './release';

const CHUNK = 16 << 20;
/** Files from this size may make a tree large enough for prefault.ts's helper (8M frames: 64 MB). */
const PREFAULT_FROM_BYTES = 64 << 20;

export interface ReadLimits {
  /** Files up to this size are read whole (the 2 GB bench profile opens in 3.5 GB of RSS). */
  maxWhole: number;
  /** A larger gperftools profile is sampled down to about this many bytes of records. */
  sampledBudget: number;
  /**
   * Files up to this size are read in one call (fastest when nothing else is to be done meanwhile:
   * chunks cost ~70 ms more per 100 MB in Chromium); larger ones in chunks of `chunk` bytes, with
   * progress.
   */
  oneRead: number;
  /**
   * From this size, a file whose first bytes show a format that can be parsed while read
   * (gperftools, a heap profile) is read in chunks and parsed meanwhile. Below it a read in one
   * call and the parse after it are faster (100 MB: first paint ~0.23 s against ~0.37 s streamed).
   */
  streamFrom: number;
  chunk: number;
}

export const READ_LIMITS: ReadLimits = {
  maxWhole: 2 ** 31,
  sampledBudget: 2 ** 30,
  oneRead: 256 << 20,
  streamFrom: 256 << 20,
  chunk: CHUNK,
};

/** A file's (or a kept Blob's) bytes at any offset, each read its own slice. */
export function blobSource(blob: Blob): ChunkSource {
  return {
    size: blob.size,
    read: async (at, len) =>
      new Uint8Array(await blob.slice(at, Math.min(blob.size, at + len)).arrayBuffer()),
  };
}

/**
 * The files' bytes, read one after another; `onProgress` gets the fraction of all their bytes
 * read. A file that cannot be read (deleted, moved, no permission) or held (larger than the tab can
 * allocate) is a ProfileError naming it. `treeMemory`: the view may ask for a large tree's memory
 * (AnalysisSession's `treeMemoryMayHelp`), so the helper that makes it ready is started.
 */
export async function readFiles(
  files: readonly FileBuffer[],
  onProgress?: (fraction: number) => void,
  limits: Partial<ReadLimits> = {},
  treeMemory = true,
): Promise<DroppedFile[]> {
  const { maxWhole, sampledBudget, oneRead, streamFrom, chunk } = { ...READ_LIMITS, ...limits };
  const total = files.reduce((t, f) => t + (f.data instanceof Blob ? f.data.size : 0), 0);
  // A large profile's tree may want memory made ready by a helper worker, which starts only while
  // this worker is idle: now, while it waits for the reads (worker/prefault.ts). Not for a view
  // that never asks for it (the default one): a worker started for nothing takes CPU from the read
  // and the first picture, on two cores.
  if (treeMemory && total >= PREFAULT_FROM_BYTES) startHelper();
  let done = 0;
  const out: DroppedFile[] = [];
  for (const f of files) {
    if (!(f.data instanceof Blob)) {
      out.push({ name: f.name, bytes: new Uint8Array(f.data) });
      continue;
    }
    const blob = f.data;
    if (blob.size > maxWhole) {
      // Past what a tab holds: a gperftools profile is sampled as it is read; others cannot be.
      const { read } = blobSource(blob);
      const head = await read(0, 64);
      if (!looksLikeGperftools(head)) {
        throw new ProfileError(
          `${f.name}: ${(blob.size / 2 ** 30).toFixed(1)} GB is more than this tab can hold in memory, and only gperftools CPU profiles can be sampled while read`,
          'unknown',
        );
      }
      const s = await sampleGperftools(
        { size: blob.size, read },
        sampledBudget,
        (x) => onProgress?.((done + x * blob.size) / total),
        chunk,
      );
      done += blob.size;
      out.push({ name: f.name, bytes: s.bytes, warnings: [s.warning], size: blob.size });
      continue;
    }
    const failed = (at: number, e: unknown) =>
      new ProfileError(
        `${f.name}: could not read the file (at byte ${at}): ${e instanceof Error ? e.message : String(e)}`,
        'unknown',
      );
    let streams = false;
    if (blob.size >= streamFrom) {
      try {
        streams = parsesWhileRead(await blobSource(blob).read(0, 1 << 16));
      } catch (e) {
        throw failed(0, e);
      }
    }
    if (blob.size <= oneRead && !streams) {
      try {
        out.push({ name: f.name, bytes: new Uint8Array(await blob.arrayBuffer()) });
      } catch (e) {
        throw failed(0, e);
      }
      done += blob.size;
      if (total > 0) onProgress?.(done / total);
      continue;
    }
    if (streams) {
      // Parsed from its chunks as they come, when its format can be (no buffer of its size).
      let counted = 0;
      const read = await readInChunks(blob, chunk, f.name, (n) => {
        counted += n;
        done += n;
        if (total > 0) onProgress?.(done / total);
      });
      if (typeof read === 'object') {
        out.push({ name: f.name, bytes: read.head, size: blob.size, stream: read.stream });
        continue;
      }
      done -= counted; // read again, into one buffer
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(blob.size);
    } catch {
      throw new ProfileError(
        `${f.name}: ${(blob.size / 2 ** 30).toFixed(1)} GB is more than this tab can hold in memory`,
        'unknown',
      );
    }
    // A profile whose format can be parsed while read (gperftools) is: each chunk is walked while
    // the next ones are read (by a reader worker: see readChunks), and the parse at the end only
    // finishes. Each chunk's share of the parse is about the time the reader took to read a chunk,
    // less this worker's own work on it (read here: the time it waited for it), and none when the
    // reader had to wait for this worker: the parse keeps the reading's pace without holding it up
    // (the reader stays its chunks ahead), so the first picture comes when the last chunk is in,
    // and when the parse is the slower, what is left of it waits until after that picture. (A share
    // of only the time waited parsed little of a file read faster than parsed: of 1 GB, half its
    // PCs were interned after the read.)
    const parse: { stream: ImporterStream | null } = { stream: null };
    let at = 0;
    try {
      await readChunks(blob, chunk, (part, waitedMs, reader) => {
        const t0 = performance.now();
        bytes.set(part, at);
        const first = at === 0;
        at += part.length;
        done += part.length;
        if (total > 0) onProgress?.(done / total);
        if (streams && first) parse.stream = streamingParse(bytes, at);
        const pace = reader ? PACE_SHARE * readTimeLeft(reader) - (performance.now() - t0) : 0;
        try {
          parse.stream?.advance(at, first ? MIN_BUDGET_MS : Math.max(MIN_BUDGET_MS, waitedMs, pace));
        } catch {
          parse.stream = null; // only a head start: the parse reads the whole file
        }
      });
    } catch (e) {
      throw failed(at, e);
    }
    out.push({ name: f.name, bytes, ...(parse.stream && { stream: parse.stream }) });
  }
  return out;
}

/**
 * Reads a blob chunk by chunk into a parse from chunks (chunkedParse), each chunk let go of once
 * parsed: `{ head, stream }` (head: the first chunk's first 64 KB, what is looked at to tell the
 * file's kind). 'whole' when the first chunk shows a file that is not parsed so (nothing more is
 * read), 'again' when the parse stopped on something unforeseen: the caller reads the file into one
 * buffer then, as others are. `onRead` gets the bytes of each chunk parsed. A read that fails is a
 * ProfileError naming `name`.
 */
async function readInChunks(
  blob: Blob,
  chunk: number,
  name: string,
  onRead: (bytes: number) => void,
): Promise<{ head: Uint8Array; stream: ImporterChunks } | 'whole' | 'again'> {
  let stream: ImporterChunks | null = null;
  let head: Uint8Array | null = null;
  let at = 0;
  let outcome: 'whole' | 'again' | null = null;
  try {
    let pace = 0;
    const onChunk = (part: Uint8Array, waitedMs: number, reader?: ReaderPace) => {
      if (reader) pace = pace === 0 ? reader.ms : 0.75 * pace + 0.25 * reader.ms;
      try {
        if (stream === null) {
          // A chunk's memory is freed once parsed (a busy worker may not collect for seconds).
          stream = chunkedParse(part, blob.size, (b) => release(new Uint8Array(b)));
          head = part.slice(0, 1 << 16);
        } else {
          // Interned for about the reader's time per chunk (an average), chunks waiting in the
          // queue or not, and no more than the least while the reader is held (the parse is its
          // chunks behind): the one-buffer parse's share, less the time a chunk waited, left half
          // the PCs for after the read (400 MB: ~0.1 s less after it, the read ~0.06 s longer).
          // The reader's own thread: `reader` (absent when the chunks are read here).
          stream.push(
            part,
            reader?.held ? MIN_BUDGET_MS : Math.max(MIN_BUDGET_MS, waitedMs, PACE_SHARE * pace),
          );
        }
      } catch {
        outcome = 'again';
      }
      if (stream === null) outcome ??= 'whole';
      if (outcome !== null) throw new StopReading();
      at += part.length;
      onRead(part.length);
    };
    await readChunks(blob, chunk, onChunk, true); // the stream keeps the chunks it has not parsed
  } catch (e) {
    if (outcome !== null) return outcome;
    throw new ProfileError(
      `${name}: could not read the file (at byte ${at}): ${e instanceof Error ? e.message : String(e)}`,
      'unknown',
    );
  }
  if (stream === null || head === null) return 'whole';
  return { head, stream };
}

/** Thrown by an onChunk to stop readChunks. */
class StopReading extends Error {}

/** Chunks read ahead of the one being handled (each held until handled). */
const AHEAD = 6;
/** The parse's time per chunk read at the least (see readFiles). */
const MIN_BUDGET_MS = 2;
/** The share of a chunk's reading time this worker spends on it at most, when read by a reader. */
const PACE_SHARE = 0.85;

/**
 * What the reader worker says with each chunk: the time its read took, whether it first waited for
 * this worker (its chunks ahead all unacknowledged), and how long the chunk waited in the queue.
 */
interface ReaderPace {
  ms: number;
  held: boolean;
  queuedMs: number;
}

/** The reader's time left after a chunk's wait in the queue: none when it was held or is behind. */
function readTimeLeft({ ms, held, queuedMs }: ReaderPace): number {
  return held ? 0 : Math.max(0, ms - queuedMs);
}

/**
 * Hands `onChunk` the blob's bytes in order, `chunk` bytes at a time. Read by a reader worker
 * (while `onChunk` works on one chunk, the next are being read: a read in this worker would wait
 * for it to be idle), or here, one chunk ahead, where workers cannot start workers.
 */
async function readChunks(
  blob: Blob,
  chunk: number,
  onChunk: (part: Uint8Array, waitedMs: number, reader?: ReaderPace) => void,
  /** onChunk keeps the chunks (else each goes back to the reader once handled). */
  keep = false,
): Promise<void> {
  if (blob.size === 0) return;
  // A reader refused (no nested workers, or a host's policy against blob: workers) before it
  // read anything: the chunks are read here instead.
  if (await readByWorker(blob, chunk, onChunk, keep)) return;
  const read = (at: number) => blob.slice(at, Math.min(blob.size, at + chunk)).arrayBuffer();
  let next: Promise<ArrayBuffer> | null = read(0);
  for (let at = 0; next !== null; ) {
    const t0 = performance.now();
    const part: ArrayBuffer = await next;
    at += part.byteLength;
    next = at < blob.size ? read(at) : null;
    next?.catch(() => {}); // awaited on the next turn, which says its error
    onChunk(new Uint8Array(part), performance.now() - t0);
  }
}

/**
 * readChunks by a reader worker (reader.worker.ts, inlined in this worker's code by Vite's
 * `?worker&inline`: started from a Blob URL); false when none could start (nothing was read).
 */
async function readByWorker(
  blob: Blob,
  chunk: number,
  onChunk: (part: Uint8Array, waitedMs: number, reader: ReaderPace) => void,
  keep: boolean,
): Promise<boolean> {
  if (typeof Worker !== 'function') return false;
  let r: Worker;
  try {
    r = new ReaderWorker({ name: 'flamelens-reader' });
  } catch {
    return false;
  }
  const send = (msg: ToReader, transfer: Transferable[] = []) => r.postMessage(msg, transfer);
  let at = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      let idleSince = performance.now();
      r.onmessage = (e: MessageEvent<FromReader>) => {
        if ('error' in e.data) {
          reject(new Error(e.data.error));
          return;
        }
        const { buf: data, ms, held, sent } = e.data;
        // How long the chunk waited in this worker's queue.
        const queuedMs = performance.timeOrigin + performance.now() - sent;
        try {
          onChunk(new Uint8Array(data), performance.now() - idleSince, { ms, held, queuedMs });
        } catch (err) {
          reject(err);
          return;
        }
        idleSince = performance.now();
        at += data.byteLength;
        if (at >= blob.size) resolve();
        // The chunk goes back with the ack, leaving this worker at once: its memory is the reader's
        // to free (it ends with the read), not garbage here waiting for a collection.
        else send('ack', keep ? [] : [data]);
      };
      r.onerror = (e) => {
        e.preventDefault();
        reject(new ReaderFailed(e.message || 'the reader worker stopped'));
      };
      send({ blob, chunk, ahead: AHEAD });
    });
    return true;
  } catch (e) {
    if (e instanceof ReaderFailed && at === 0) return false;
    throw e;
  } finally {
    r.terminate();
    // Let go of onChunk, which holds the file's buffer (a terminated worker object may live on).
    r.onmessage = null;
    r.onerror = null;
  }
}

/** The reader worker itself failed (not a read it made). */
class ReaderFailed extends Error {}
