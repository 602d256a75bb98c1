// A dropped folder in the worker: of its files (Blobs, none read yet), the ones that symbolize the
// open profile are chosen by core/symbols/pick.ts from their paths and, for name candidates, their
// first 64 KB; only those are read whole. A 2 GB sysroot costs a few reads.

import { gunzipHead } from '../core/bundle/bundle';
import { detectFormat, isGzip } from '../core/formats/detect';
import { looksLikeElf } from '../core/symbols/elf';
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
  return { files: pick.chosen.map((i) => folder[i]), note };
}

/** Why a folder gave nothing: what the profile looks for. */
export function nothingFromFolder(note: FolderNote): ProfileError {
  const wanted = [...new Set(note.mappings.map((m) => basename(m.path)))].slice(0, 6).join(', ');
  return new ProfileError(
    `${note.name}: none of its ${note.files} files is an object the profile maps (it looks for ${wanted || 'nothing: the profile maps no files'}; by build-id, path or name)`,
    'unknown',
  );
}

/** Names profiles usually have, for files whose first bytes alone do not say. */
const PROFILE_NAME = /\.(prof|pprof|pb|pb\.gz|heap|folded|collapsed|perf|cpu)$/i;
/** How many files' first bytes are looked at for a profile, at most. */
const PROFILE_HEADS = 200;

async function headOf(f: FileBuffer, n: number): Promise<Uint8Array> {
  const d = f.data;
  return d instanceof Blob
    ? new Uint8Array(await d.slice(0, n).arrayBuffer())
    : new Uint8Array(d, 0, Math.min(d.byteLength, n));
}

/**
 * A folder dropped with no profile open and none beside it: the profile among its files near the
 * top (at most two folders down, not in a `.build-id` tree): the first whose first bytes a format
 * recognises, else the first named like a profile. The others found are listed.
 */
export async function findProfileInFolder(
  folder: readonly FileBuffer[],
): Promise<{ profile: FileBuffer; others: string[] } | null> {
  const near = folder
    .filter((f) => f.name.split('/').length <= 3 && !f.name.includes('/.build-id/'))
    .sort((a, b) => a.name.split('/').length - b.name.split('/').length || (a.name < b.name ? -1 : 1))
    .slice(0, PROFILE_HEADS);
  const found: FileBuffer[] = [];
  for (const f of near) {
    const head = await headOf(f, HEAD_BYTES);
    if (head.length === 0 || looksLikeElf(head)) continue;
    const data = isGzip(head) ? gunzipHead(head, HEAD_BYTES) : head;
    if (detectFormat(data) !== null || PROFILE_NAME.test(f.name)) found.push(f);
  }
  if (found.length === 0) return null;
  return { profile: found[0], others: found.slice(1).map((f) => f.name) };
}
