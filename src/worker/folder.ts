// Drops in the worker, folders included. Of a dropped folder's files (Blobs, none read yet), those
// that symbolize the open profile are chosen by core/symbols/pick.ts from their paths and, for
// name candidates, their first 64 KB; only those are read whole. A 2 GB sysroot costs a few reads.

import { type AnalysisSession, type SessionResult, treeMemoryMayHelp } from '../core/analysis/session';
import { gunzipHead } from '../core/bundle/bundle';
import { detectFormat, isGzip } from '../core/formats/detect';
import type { Progress } from '../core/pipeline';
import { looksLikeElf } from '../core/symbols/elf';
import { HEAD_BYTES, pickFromFolder } from '../core/symbols/pick';
import { basename } from '../core/text/names';
import { type Mapping, ProfileError } from '../core/types';
import type { WorkerView } from '../core/view/schema';
import type { FileBuffer, FolderNote } from './protocol';
import { blobSource, readFiles } from './read';

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
 * top (at most two folders down, not in a `.build-id` tree): the nearest whose first bytes a format
 * with addresses recognises, else a folded-stacks file, else one named like a profile. The others
 * found are listed.
 */
export async function findProfileInFolder(
  folder: readonly FileBuffer[],
): Promise<{ profile: FileBuffer; others: string[] } | null> {
  const near = folder
    .filter((f) => f.name.split('/').length <= 3 && !f.name.includes('/.build-id/'))
    .sort((a, b) => a.name.split('/').length - b.name.split('/').length || (a.name < b.name ? -1 : 1))
    .slice(0, PROFILE_HEADS);
  const found: { f: FileBuffer; rank: number }[] = [];
  for (const f of near) {
    const head = await headOf(f, HEAD_BYTES);
    if (head.length === 0 || looksLikeElf(head)) continue;
    const data = isGzip(head) ? gunzipHead(head, HEAD_BYTES) : head;
    const format = detectFormat(data);
    // Profiles with addresses first (the folder's binaries are for them), text ones after.
    const rank = format === null ? (PROFILE_NAME.test(f.name) ? 3 : -1) : format.startsWith('folded') ? 2 : 1;
    if (rank > 0) found.push({ f, rank });
  }
  if (found.length === 0) return null;
  found.sort((a, b) => a.rank - b.rank); // stable: nearest, then by name, within a rank
  return { profile: found[0].f, others: found.slice(1).map((x) => x.f.name) };
}

/**
 * A drop's files, read and given to the session: loose files as they are; a folder's files after
 * the profile (dropped with it, open already, or found in it), only those that symbolize it.
 * `files` is emptied (a link's transferred buffers: the session holds the only reference).
 */
export async function dropFiles(
  session: AnalysisSession,
  files: FileBuffer[],
  view: WorkerView,
  slot: 'main' | 'base',
  progress: Progress,
): Promise<{ result: SessionResult; folder?: FolderNote }> {
  let inFolder = files.filter((f) => f.inFolder !== undefined);
  const loose = files.filter((f) => f.inFolder === undefined);
  files.length = 0;
  const read = (list: readonly FileBuffer[]) =>
    readFiles(list, (f) => progress('read', f), {}, treeMemoryMayHelp(view));
  let note: string | null = null;
  /** A profile found in the folder goes to the session by its base name; its path, said back. */
  let foundAs: { name: string; path: string } | null = null;
  if (inFolder.length > 0 && loose.length === 0 && !session.mappings()) {
    // Only a folder, and nothing open: the profile is in it.
    const found = await findProfileInFolder(inFolder);
    if (found) {
      const { profile, others } = found;
      foundAs = { name: basename(profile.name), path: profile.name };
      loose.push({ name: foundAs.name, data: profile.data });
      inFolder = inFolder.filter((f) => f !== profile);
      if (others.length > 0)
        note = `${profile.inFolder} holds other profiles too (${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}): opened ${profile.name}`;
    }
  }
  // The loose files first (a drop without a folder is only these, and the session says what is
  // wrong with an empty one).
  let first: SessionResult | null = null;
  if (loose.length > 0 || inFolder.length === 0) {
    // A large text profile dropped alone is pictured from windows of it while the whole is read.
    const alone = loose.length === 1 && inFolder.length === 0 && slot === 'main' ? loose[0].data : null;
    const early =
      alone instanceof Blob
        ? session.previewUnread(loose[0].name, blobSource(alone), view)
        : Promise.resolve(false);
    const [got, previewed] = await Promise.all([read(loose), early]);
    loose.length = 0; // the session holds the only reference to the bytes, and releases them
    if (note !== null) got[0].warnings = [...(got[0].warnings ?? []), { message: note }];
    first = await session.add(got, view, { progress, slot, consume: true, previewed });
    const found = foundAs;
    if (found && first.inputs)
      first.inputs = first.inputs.map((n) => (n.name === found.name ? { ...n, name: found.path } : n));
  }
  if (inFolder.length === 0) return { result: first! };
  const mappings = session.mappings();
  if (!mappings)
    throw new ProfileError(
      `${inFolder[0].inFolder}: a folder gives symbols to a profile: open the profile first, or drop it with the folder`,
      'unknown',
    );
  const chosen = await chooseFromFolder(mappings, inFolder, (f) => progress('symbols', f));
  if (chosen.files.length === 0) {
    // Nothing to symbolize with: an error, unless the folder's own profile just opened.
    if (first === null) throw nothingFromFolder(chosen.note);
    return { result: first, folder: chosen.note };
  }
  const result = await session.add(await read(chosen.files), view, { progress, slot, consume: true });
  const opened = first?.newProfile ? { newProfile: true, fileBytes: first.fileBytes } : {};
  const inputs = [...(first?.inputs ?? []), ...(result.inputs ?? [])];
  return { result: { ...result, ...opened, inputs }, folder: chosen.note };
}
