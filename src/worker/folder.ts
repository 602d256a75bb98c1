// A dropped folder in the worker: of its files (Blobs, none read yet), the ones that symbolize the
// open profile are chosen by core/symbols/pick.ts from their paths and, for name candidates, their
// first 64 KB; only those are read whole. A 2 GB sysroot costs a few reads.

import { HEAD_BYTES, pickFromFolder } from '../core/symbols/pick';
import { basename } from '../core/text/names';
import { type Mapping, ProfileError } from '../core/types';
import type { FileBuffer, FolderNote } from './protocol';

/** The files of a folder drop to read whole for these mappings, and what to tell the user. */
export async function chooseFromFolder(
  mappings: readonly Mapping[],
  folder: readonly FileBuffer[],
  onProgress?: (fraction: number) => void,
): Promise<{ files: FileBuffer[]; note: FolderNote }> {
  const name = folder[0]?.inFolder ?? 'folder';
  let heads = 0;
  const pick = await pickFromFolder(
    mappings,
    folder.map((f) => f.name),
    async (i) => {
      onProgress?.(Math.min(0.9, ++heads / Math.max(1, mappings.length * 2)));
      const d = folder[i].data;
      return d instanceof Blob
        ? new Uint8Array(await d.slice(0, HEAD_BYTES).arrayBuffer())
        : new Uint8Array(d, 0, Math.min(d.byteLength, HEAD_BYTES));
    },
  );
  const note: FolderNote = {
    name,
    files: folder.length,
    headsRead: pick.headsRead,
    read: pick.chosen.map((i) => folder[i].name),
    mappings: pick.mappings,
  };
  if (pick.chosen.length === 0) {
    const wanted = [...new Set(pick.mappings.map((m) => basename(m.path)))].slice(0, 6).join(', ');
    throw new ProfileError(
      `${name}: none of its ${folder.length} files is an object the profile maps (it looks for ${wanted || 'nothing: the profile maps no files'}; by build-id, path or name)`,
      'unknown',
    );
  }
  return { files: pick.chosen.map((i) => folder[i]), note };
}
