// Folders dropped or picked: their files as (path, File) pairs, none read. The worker chooses the
// few that symbolize the profile (worker/folder.ts) and reads only those.

import type { FileBuffer } from '../worker/protocol';

/** A file of a dropped or picked folder, by its path inside it (`sysroot/usr/lib/libc.so.6`). */
export interface FolderFile {
  path: string;
  file: File;
  folder: string;
}

/** All the files under the entries of a drop: loose files, and those inside folders by path. */
export async function filesOfEntries(
  entries: readonly FileSystemEntry[],
): Promise<{ loose: File[]; inFolder: FolderFile[] }> {
  const loose: File[] = [];
  const inFolder: FolderFile[] = [];
  const fileOf = (e: FileSystemFileEntry) => new Promise<File>((res, rej) => e.file(res, rej));
  const walk = async (dir: FileSystemDirectoryEntry, folder: string): Promise<void> => {
    const reader = dir.createReader();
    for (;;) {
      // readEntries gives a batch (up to 100 in Chromium) per call, and [] at the end.
      const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      if (batch.length === 0) return;
      for (const e of batch) {
        if (e.isDirectory) await walk(e as FileSystemDirectoryEntry, folder);
        else if (e.isFile)
          inFolder.push({
            path: e.fullPath.replace(/^\//, ''),
            file: await fileOf(e as FileSystemFileEntry),
            folder,
          });
      }
    }
  };
  for (const e of entries) {
    if (e.isDirectory) await walk(e as FileSystemDirectoryEntry, e.name);
    else if (e.isFile) loose.push(await fileOf(e as FileSystemFileEntry));
  }
  return { loose, inFolder };
}

/** The files of a directory input (`webkitdirectory`): each with its `webkitRelativePath`. */
export function filesOfDirectoryInput(files: readonly File[]): FolderFile[] {
  return files.map((file) => {
    const path = file.webkitRelativePath || file.name;
    return { path, file, folder: path.split('/')[0] };
  });
}

/** What the worker gets: loose files as they are, a folder's files named by path and marked. */
export function folderBuffers(inFolder: readonly FolderFile[]): FileBuffer[] {
  return inFolder.map((f) => ({ name: f.path, data: f.file, inFolder: f.folder }));
}
