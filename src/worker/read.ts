// Reading dropped files in the worker, so the page never holds their bytes: a File (or a kept
// Blob) is read in one call, or, when large, in chunks into one buffer of its size with progress.
// Bytes already in memory (a fetched link) are used as they are.

import { looksLikeGperftools } from '../core/formats/gperftools';
import { sampleGperftools } from '../core/formats/gperftools-sample';
import type { DroppedFile } from '../core/symbols/symbolize';
import { ProfileError } from '../core/types';
import type { FileBuffer } from './protocol';

const CHUNK = 64 << 20;

export interface ReadLimits {
  /** Files up to this size are read whole (the 2 GB bench profile opens in 3.5 GB of RSS). */
  maxWhole: number;
  /** A larger gperftools profile is sampled down to about this many bytes of records. */
  sampledBudget: number;
  /**
   * Files up to this size are read in one call (fastest: chunks cost ~70 ms more per 100 MB in
   * Chromium); larger ones in chunks of `chunk` bytes, with progress.
   */
  oneRead: number;
  chunk: number;
}

export const READ_LIMITS: ReadLimits = {
  maxWhole: 2 ** 31,
  sampledBudget: 2 ** 30,
  oneRead: 256 << 20,
  chunk: CHUNK,
};

/**
 * The files' bytes, read one after another; `onProgress` gets the fraction of all their bytes
 * read. A file that cannot be read (deleted, moved, no permission) or held (larger than the tab can
 * allocate) is a ProfileError naming it.
 */
export async function readFiles(
  files: readonly FileBuffer[],
  onProgress?: (fraction: number) => void,
  limits: Partial<ReadLimits> = {},
): Promise<DroppedFile[]> {
  const { maxWhole, sampledBudget, oneRead, chunk } = { ...READ_LIMITS, ...limits };
  const total = files.reduce((t, f) => t + (f.data instanceof Blob ? f.data.size : 0), 0);
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
      const read = async (at: number, len: number) =>
        new Uint8Array(await blob.slice(at, Math.min(blob.size, at + len)).arrayBuffer());
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
    if (blob.size <= oneRead) {
      try {
        out.push({ name: f.name, bytes: new Uint8Array(await blob.arrayBuffer()) });
      } catch (e) {
        throw failed(0, e);
      }
      done += blob.size;
      if (total > 0) onProgress?.(done / total);
      continue;
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
    for (let at = 0; at < blob.size; at += chunk) {
      let part: ArrayBuffer;
      try {
        part = await blob.slice(at, Math.min(blob.size, at + chunk)).arrayBuffer();
      } catch (e) {
        throw failed(at, e);
      }
      bytes.set(new Uint8Array(part), at);
      done += part.byteLength;
      if (total > 0) onProgress?.(done / total);
    }
    out.push({ name: f.name, bytes });
  }
  return out;
}
