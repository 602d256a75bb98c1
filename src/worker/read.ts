// Reading dropped files in the worker: a File (or a kept Blob) is read in chunks into one buffer
// of its size, with progress, so the page never holds the bytes and a large file shows how far
// reading has come. Bytes already in memory (a fetched link) are used as they are.

import { ProfileError } from '../core/types';
import type { FileBuffer } from './protocol';

const CHUNK = 16 << 20;

/**
 * The files' bytes, read one after another; `onProgress` gets the fraction of all their bytes
 * read. A file that cannot be read (deleted, moved, no permission) or held (larger than the tab can
 * allocate) is a ProfileError naming it.
 */
export async function readFiles(
  files: readonly FileBuffer[],
  onProgress?: (fraction: number) => void,
  chunk = CHUNK,
): Promise<{ name: string; bytes: Uint8Array }[]> {
  const total = files.reduce((t, f) => t + (f.data instanceof Blob ? f.data.size : 0), 0);
  let done = 0;
  const out: { name: string; bytes: Uint8Array }[] = [];
  for (const f of files) {
    if (!(f.data instanceof Blob)) {
      out.push({ name: f.name, bytes: new Uint8Array(f.data) });
      continue;
    }
    const blob = f.data;
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
        throw new ProfileError(
          `${f.name}: could not read the file (at byte ${at}): ${e instanceof Error ? e.message : String(e)}`,
          'unknown',
        );
      }
      bytes.set(new Uint8Array(part), at);
      done += part.byteLength;
      if (total > 0) onProgress?.(done / total);
    }
    out.push({ name: f.name, bytes });
  }
  return out;
}
