// The matching policy on its own (match.ts): which file serves which mapping, never an address.
// Files are the fixture `tiny` read once and renamed, given build-ids or made debug files: the
// policy reads only names, build-ids, debug links and the kind of each file.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Mapping } from '../types.ts';
import { type ElfFile, readElf } from './elf.ts';
import {
  matchSymbolFiles,
  mergeDebugFiles,
  type SymbolSource,
  sharedTail,
  withRecordedBuildIds,
} from './match.ts';
import { nmToElfLike } from './nm.ts';

const FIX = new URL('../../../test/fixtures/symbols/', import.meta.url);
const load = (rel: string) => new Uint8Array(readFileSync(new URL(rel, FIX).pathname));
const TINY = readElf(load('bin/tiny'), 'tiny');
const NM = load('nm/tiny.nm');

/** `tiny` under another name, with another build-id (or none), maybe as a separate debug file. */
function elf(fileName: string, over: Partial<ElfFile> = {}): ElfFile {
  const { buildId: _, ...rest } = TINY;
  return { ...rest, fileName, ...over };
}
const nm = (fileName: string): SymbolSource => nmToElfLike(NM, fileName);

let next = 0x10000;
function mapping(path: string, buildId?: string): Mapping {
  const start = BigInt(next++) << 16n;
  const m: Mapping = { start, end: start + 0x1000n, offset: 0n, path };
  if (buildId !== undefined) m.buildId = buildId;
  return m;
}

const chosen = (r: ReturnType<typeof matchSymbolFiles>) =>
  r.choices.map((c) => (c === null ? null : `${c.source.fileName} by ${c.by}`));

describe('matchSymbolFiles', () => {
  it('takes the file with the mapping build-id whatever its name, the library before its debug file', () => {
    const maps = [mapping('/usr/lib/libc.so.6', 'ABCD01')];
    const files = [
      elf('libc.so.6', { buildId: 'ffff' }),
      elf('x.debug', { buildId: 'abcd01', isDebugFile: true }),
    ];
    expect(chosen(matchSymbolFiles(maps, files))).toEqual(['x.debug by build-id']);
    expect(matchSymbolFiles(maps, files).matched[0].debugFile).toBe('x.debug');
    files.push(elf('renamed.bin', { buildId: 'abcd01' }));
    const r = matchSymbolFiles(maps, files);
    expect(chosen(r)).toEqual(['renamed.bin by build-id']);
    expect(r.unmatchedFiles).toEqual(['libc.so.6', 'x.debug']);
  });

  it('takes a library dropped under its soname (the link ldd lists) for the file it names, after one of its own name', () => {
    // perf.data and /proc/PID/maps name the file (libstdc++.so.6.0.30); ldd names the link
    // (libstdc++.so.6), and a copy of the link is a file of that name
    const maps = [mapping('/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30')];
    expect(chosen(matchSymbolFiles(maps, [elf('libstdc++.so.6')]))).toEqual(['libstdc++.so.6 by name']);
    expect(matchSymbolFiles(maps, [elf('libstdc++.so.6')]).unmatchedFiles).toEqual([]);
    expect(chosen(matchSymbolFiles(maps, [elf('libstdc++.so.6'), elf('libstdc++.so.6.0.30')]))).toEqual([
      'libstdc++.so.6.0.30 by name',
    ]);
    // the rest of the name is version numbers, not any suffix
    for (const other of ['libstdc++.so.60', 'libstdc++.so.6.0.30x', 'libstdc++.so.6.0.30.debug.so'])
      expect(chosen(matchSymbolFiles([mapping(`/usr/lib/${other}`)], [elf('libstdc++.so.6')]))).toEqual([
        null,
      ]);
    // and it is refused when the mapping's build-id says another build
    const r = matchSymbolFiles(
      [mapping('/usr/lib/liblzma.so.5.4.1', 'aaaa')],
      [elf('liblzma.so.5', { buildId: 'bbbb' })],
    );
    expect(chosen(r)).toEqual([null]);
    expect(r.mismatched.map((m) => m.elfFile)).toEqual(['liblzma.so.5']);
  });

  it('refuses a same-named file with another build-id and says which', () => {
    const maps = [mapping('/usr/bin/app', 'aaaa')];
    const r = matchSymbolFiles(maps, [elf('app', { buildId: 'bbbb' })]);
    expect(chosen(r)).toEqual([null]);
    expect(r.unsymbolizedMappings).toEqual(['/usr/bin/app']);
    expect(r.mismatched).toEqual([
      { mappingPath: '/usr/bin/app', mappingBuildId: 'aaaa', elfFile: 'app', fileBuildId: 'bbbb' },
    ]);
    expect(r.warnings).toEqual(["app: build-id bbbb differs from /usr/bin/app's aaaa: not used for it"]);
    // a file without a build-id does not contradict the mapping's
    expect(chosen(matchSymbolFiles(maps, [elf('app', { buildId: 'bbbb' }), elf('dir/app')]))).toEqual([
      'dir/app by name',
    ]);
  });

  it('takes a build-id a bundle recorded for the path as the mapping own', () => {
    const maps = withRecordedBuildIds(
      [mapping('/usr/bin/app'), mapping('/usr/lib/libm.so.6', 'cccc')],
      [
        { name: '/usr/bin/app', recordedBuildId: 'aaaa' },
        { name: '/usr/lib/libm.so.6', recordedBuildId: 'dddd' },
      ],
    );
    expect(maps.map((m) => m.buildId)).toEqual(['aaaa', 'cccc']); // a mapping's own id wins
    const r = matchSymbolFiles(maps, [elf('app', { buildId: 'bbbb' })]);
    expect(chosen(r)).toEqual([null, null]);
    expect(r.mismatched.map((m) => m.mappingBuildId)).toEqual(['aaaa']);
  });

  it('of several files with the name, takes the one sharing the longest path tail', () => {
    const maps = [mapping('/usr/lib/x86_64-linux-gnu/libc.so.6'), mapping('/opt/app')];
    const files = [
      elf('sysroot/usr/lib/i386-linux-gnu/libc.so.6'),
      elf('sysroot/usr/lib/x86_64-linux-gnu/libc.so.6'),
      elf('app'),
    ];
    expect(chosen(matchSymbolFiles(maps, files))).toEqual([
      'sysroot/usr/lib/x86_64-linux-gnu/libc.so.6 by path',
      'app by name',
    ]);
    expect(sharedTail('a/usr/lib/libc.so.6.debug', '/usr/lib/libc.so.6')).toBe(3);
    expect(sharedTail('libc.so.6', '/lib/libc.so.6')).toBe(1);
    expect(sharedTail('other', '/lib/libc.so.6')).toBe(0);
  });

  it('serves a library with a debug file named after it, alone', () => {
    const r = matchSymbolFiles([mapping('/lib/libc.so.6')], [elf('libc.so.6.debug', { isDebugFile: true })]);
    expect(chosen(r)).toEqual(['libc.so.6.debug by name']);
    // only a debug file: `libc.so.6.debug` that is a whole library is not libc.so.6
    expect(chosen(matchSymbolFiles([mapping('/lib/libc.so.6')], [elf('libc.so.6.debug')]))).toEqual([null]);
  });

  it('chooses once per path: mappings of one file share the choice', () => {
    const maps = [mapping('/bin/app'), mapping('/bin/app'), mapping('/lib/libz.so.1')];
    const r = matchSymbolFiles(maps, [elf('app')]);
    expect(r.choices[0]).not.toBeNull();
    expect(r.choices[1]).toBe(r.choices[0]);
    expect(r.matched).toEqual([{ mappingPath: '/bin/app', elfFile: 'app', by: 'name' }]);
    expect(r.unsymbolizedMappings).toEqual(['/lib/libz.so.1']);
  });

  it('gives nm listings to the mapping named like them, else to the main executable', () => {
    const maps = [mapping('/lib/libz.so.1'), mapping('[vdso]'), mapping('/bin/app'), mapping('/bin/tool')];
    expect(chosen(matchSymbolFiles(maps, [nm('libz.so.1.nm'), nm('symbols.txt')]))).toEqual([
      'libz.so.1.nm by nm',
      null,
      'symbols.txt by nm',
      null,
    ]);
    // a listing named like a mapping is that mapping's only
    expect(chosen(matchSymbolFiles(maps, [nm('tool.nm')]))).toEqual([null, null, null, 'tool.nm by nm']);
    // nmTarget overrides the names
    expect(chosen(matchSymbolFiles(maps, [nm('symbols.txt')], 'tool'))).toEqual([
      null,
      null,
      null,
      'symbols.txt by nm',
    ]);
  });

  it('prefers an ELF file to an nm listing, and then reports no mismatch', () => {
    const maps = [mapping('/bin/app', 'aaaa')];
    const r = matchSymbolFiles(maps, [nm('app.nm'), elf('app', { buildId: 'bbbb' })]);
    expect(chosen(r)).toEqual(['app.nm by nm']);
    expect(r.mismatched).toEqual([]);
    expect(r.warnings).toHaveLength(1);
    expect(chosen(matchSymbolFiles(maps, [nm('app.nm'), elf('app')]))).toEqual(['app by name']);
  });
});

describe('mergeDebugFiles', () => {
  const withSyms = (e: ElfFile) => e.symbols.count;

  it('merges a debug file into the library with its build-id', () => {
    const lib = elf('libc.so.6', { buildId: 'aaaa' });
    const dbg = elf('aaaa.debug', { buildId: 'aaaa', isDebugFile: true });
    const out = mergeDebugFiles([lib, dbg, elf('other.debug', { buildId: 'bbbb', isDebugFile: true })]);
    expect(out.map((e) => e.fileName)).toEqual(['libc.so.6', 'other.debug']);
    expect(out[0]).not.toBe(lib);
    expect(withSyms(out[0])).toBeGreaterThanOrEqual(withSyms(lib));
    // The match says which debug file lent the library its symbols (the Symbols panel shows it).
    const r = matchSymbolFiles([mapping('/usr/lib/libc.so.6', 'aaaa')], out);
    expect(r.matched).toEqual([
      { mappingPath: '/usr/lib/libc.so.6', elfFile: 'libc.so.6', by: 'build-id', debugFile: 'aaaa.debug' },
    ]);
    expect(
      matchSymbolFiles([mapping('/usr/lib/libc.so.6', 'aaaa')], [lib]).matched[0].debugFile,
    ).toBeUndefined();
  });

  it('follows .gnu_debuglink when no build-id contradicts it and the CRC matches', () => {
    const link = { file: 'libx.so.debug', crc: 1234 };
    const lib = elf('libx.so', { debugLink: link });
    const dbg = elf('dir/libx.so.debug', { isDebugFile: true });
    const merged = (files: ElfFile[], crc: number) =>
      mergeDebugFiles(files, () => crc).map((e) => e.fileName);
    expect(merged([lib, dbg], 1234)).toEqual(['libx.so']);
    expect(merged([lib, dbg], 999)).toEqual(['libx.so', 'dir/libx.so.debug']);
    const contradicted = [
      elf('libx.so', { debugLink: link, buildId: 'aaaa' }),
      elf('libx.so.debug', { buildId: 'bbbb', isDebugFile: true }),
    ];
    expect(merged(contradicted, 1234)).toEqual(['libx.so', 'libx.so.debug']);
    // without crcOf the name (and build-ids) decide
    expect(mergeDebugFiles([lib, dbg]).map((e) => e.fileName)).toEqual(['libx.so']);
  });
});
