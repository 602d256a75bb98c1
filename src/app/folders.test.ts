// Walking dropped folders: the entries API gives a directory's children in batches (Chromium: 100
// per readEntries call) and [] at the end; every file is found with its path, none is read.

import { describe, expect, it } from 'vitest';
import { filesOfDirectoryInput, filesOfEntries, folderBuffers } from './folders';

type Tree = { [name: string]: Tree | string };

/** Entries over an in-memory tree, readEntries answering in batches of 3. */
function entry(name: string, node: Tree | string, path: string): FileSystemEntry {
  const fullPath = `${path}/${name}`;
  if (typeof node === 'string') {
    return {
      name,
      fullPath,
      isFile: true,
      isDirectory: false,
      file: (ok: (f: File) => void) => ok(new File([node], name)),
    } as unknown as FileSystemEntry;
  }
  const children = Object.entries(node).map(([n, c]) => entry(n, c, fullPath));
  return {
    name,
    fullPath,
    isFile: false,
    isDirectory: true,
    createReader: () => {
      let at = 0;
      return {
        readEntries: (ok: (e: FileSystemEntry[]) => void) => {
          const batch = children.slice(at, at + 3);
          at += batch.length;
          setTimeout(() => ok(batch), 0);
        },
      };
    },
  } as unknown as FileSystemEntry;
}

describe('filesOfEntries', () => {
  it('lists every file of nested folders by path, in batches, and keeps loose files apart', async () => {
    const libs: Tree = {};
    for (let i = 0; i < 8; i++) libs[`lib${i}.so`] = `elf ${i}`;
    const root = entry(
      'sysroot',
      { usr: { lib: libs, bin: { prog: 'p' } }, '.build-id': { ab: { 'cdef.debug': 'd' } } },
      '',
    );
    const loose = entry('out.prof', 'profile', '');
    const { loose: l, inFolder } = await filesOfEntries([root, loose]);
    expect(l.map((f) => f.name)).toEqual(['out.prof']);
    expect(inFolder.map((f) => f.path).sort()).toEqual([
      'sysroot/.build-id/ab/cdef.debug',
      'sysroot/usr/bin/prog',
      ...Array.from({ length: 8 }, (_, i) => `sysroot/usr/lib/lib${i}.so`),
    ]);
    expect(new Set(inFolder.map((f) => f.folder))).toEqual(new Set(['sysroot']));
    const buffers = folderBuffers(inFolder);
    expect(buffers[0].inFolder).toBe('sysroot');
    expect(buffers[0].data).toBeInstanceOf(Blob);
  });

  it('a directory input names files by their relative path', () => {
    const f = new File(['x'], 'libc.so.6');
    Object.defineProperty(f, 'webkitRelativePath', { value: 'sysroot/usr/lib/libc.so.6' });
    expect(filesOfDirectoryInput([f])).toEqual([
      { path: 'sysroot/usr/lib/libc.so.6', file: f, folder: 'sysroot' },
    ]);
  });
});
