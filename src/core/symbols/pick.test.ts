// Choosing a folder's files for a profile (pick.ts), on the repo's sysroot copy: the i386 and
// x86_64 libraries share names, debug files sit in a .build-id tree. Only name candidates' heads
// are read; everything else is chosen by path alone.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from '../pipeline';
import { buildIdOfPath, HEAD_BYTES, pickFromFolder } from './pick';

const ROOT = 'test/fixtures';
function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...listFiles(p));
    else out.push(p);
  }
  return out;
}

/** The folder the user drops: fixtures/sysroot, paths as the browser gives them (`sysroot/usr/…`). */
const paths = listFiles(join(ROOT, 'sysroot')).map((p) => relative(ROOT, p));

async function pickFor(profile: string) {
  const { raw } = parse(new Uint8Array(readFileSync(join(ROOT, 'gperf', profile))), profile);
  const read: string[] = [];
  const pick = await pickFromFolder(raw.meta.mappings, paths, async (i) => {
    read.push(paths[i]);
    return new Uint8Array(readFileSync(join(ROOT, paths[i]))).subarray(0, HEAD_BYTES);
  });
  return { pick, read, chosen: pick.chosen.map((i) => paths[i]).sort() };
}

describe('pickFromFolder', () => {
  it('names build-ids from .build-id paths', () => {
    expect(buildIdOfPath('x/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug')).toBe(
      '93ac61ec5a8eb1396f9fbd350e3169a558528a40',
    );
    expect(buildIdOfPath('usr/lib/libc.so.6')).toBeUndefined();
  });

  it('64-bit profile: the x86_64 objects and their .build-id debug files, never the i386 ones', async () => {
    const { pick, read, chosen } = await pickFor('threads.prof');
    expect(chosen).toContain('sysroot/usr/lib/x86_64-linux-gnu/libc.so.6');
    expect(chosen).toContain(
      'sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug',
    );
    expect(chosen.some((p) => p.includes('i386'))).toBe(false);
    // Heads read: one per mapped object found by name (never the i386 twins or the debug files).
    expect(read.some((p) => p.includes('i386') || p.includes('.build-id'))).toBe(false);
    expect(pick.headsRead).toBe(read.length);
    const libc = pick.mappings.find((m) => m.path === '/usr/lib/x86_64-linux-gnu/libc.so.6')!;
    expect(libc).toEqual({
      path: '/usr/lib/x86_64-linux-gnu/libc.so.6',
      file: 'sysroot/usr/lib/x86_64-linux-gnu/libc.so.6',
      by: 'path',
    });
    // The program itself is not in the sysroot: said, not guessed.
    expect(pick.mappings.find((m) => m.path.endsWith('/threads'))?.why).toBe(
      'no file named threads in the folder',
    );
  });

  it('32-bit profile: the i386 objects', async () => {
    const { chosen } = await pickFor('tiny32.prof');
    expect(chosen).toContain('sysroot/usr/lib/i386-linux-gnu/libc.so.6');
    expect(chosen.some((p) => p.includes('x86_64'))).toBe(false);
  });

  it('a mapping with a build-id takes the file of that build, and only its debug file when alone', async () => {
    const libc = 'sysroot/usr/lib/x86_64-linux-gnu/libc.so.6';
    const id = '93ac61ec5a8eb1396f9fbd350e3169a558528a40';
    const m = { start: 0n, end: 0x1000n, offset: 0n, path: '/lib/x86_64-linux-gnu/libc.so.6', buildId: id };
    const head = async (i: number) =>
      new Uint8Array(readFileSync(join(ROOT, paths[i]))).subarray(0, HEAD_BYTES);
    const right = await pickFromFolder([m], paths, head);
    expect(right.mappings[0].by).toBe('build-id');
    expect(right.chosen.map((i) => paths[i])).toContain(libc);
    const other = await pickFromFolder([{ ...m, buildId: 'ab'.repeat(20) }], paths, head);
    expect(other.chosen).toEqual([]);
    expect(other.mappings[0].why).toMatch(/has build-id 93ac61ec.*, the mapping abab/);
    const debugOnly = await pickFromFolder(
      [m],
      paths.filter((p) => p !== libc),
      head,
    );
    expect(debugOnly.mappings[0]).toMatchObject({
      by: 'build-id',
      file: expect.stringContaining('.build-id/93/'),
    });
  });

  it("takes a folder's kallsyms copy for the kernel's mapping of a perf.data recording", async () => {
    const { raw } = parse(
      new Uint8Array(readFileSync(join(ROOT, 'perf-data/syscalls.data'))),
      'syscalls.data',
    );
    const folder = [...paths, 'perf-data/kallsyms.txt', 'perf-data/bin/syscalls'];
    const pick = await pickFromFolder(raw.meta.mappings, folder, async (i) =>
      new Uint8Array(readFileSync(join(ROOT, folder[i]))).subarray(0, HEAD_BYTES),
    );
    expect(pick.mappings.find((m) => m.path === '[kernel.kallsyms]')).toEqual({
      path: '[kernel.kallsyms]',
      file: 'perf-data/kallsyms.txt',
      by: 'name',
    });
    const chosen = pick.chosen.map((i) => folder[i]);
    expect(chosen).toContain('perf-data/kallsyms.txt');
    expect(chosen).toContain('perf-data/bin/syscalls');
  });
});
