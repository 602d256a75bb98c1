// The benchmark's synthetic binary (bench/gen-elf.ts) is a valid ELF that our reader and
// symbolizer accept, and it names every address of the synthetic profile's main binary.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { benchElfOptions, makeSyntheticElf } from '../bench/gen-elf';
import { makeSyntheticProfile } from '../bench/gen-synthetic';
import { foldProfile } from '../src/core/model/fold';
import { frameNames } from '../src/core/model/frames';
import { parse } from '../src/core/pipeline';
import { type Demangle, loadDemangler } from '../src/core/symbols/demangle';
import { ET_DYN, readElf } from '../src/core/symbols/elf';
import { symbolizerFromFiles } from '../src/core/symbols/symbolize';

const SYMBOLS = 5000;
const elfBytes = makeSyntheticElf(benchElfOptions(SYMBOLS));

function hasReadelf(): boolean {
  try {
    execFileSync('readelf', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('bench/gen-elf', () => {
  let demangle: Demangle;
  beforeAll(async () => {
    demangle = await loadDemangler();
  });

  it('is deterministic', () => {
    // Buffer.equals: toEqual compares a 9 MB array element by element, for seconds.
    const same = (a: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(elfBytes);
    expect(same(makeSyntheticElf(benchElfOptions(SYMBOLS)))).toBe(true);
    expect(same(makeSyntheticElf(benchElfOptions(SYMBOLS, 8)))).toBe(false);
  });

  it('reads back: one PT_LOAD for the text, symbols tiling it', () => {
    const o = benchElfOptions(SYMBOLS);
    const e = readElf(elfBytes, 'bench');
    expect(e.warnings).toEqual([]);
    expect(e.is64 && e.littleEndian).toBe(true);
    expect(e.type).toBe(ET_DYN);
    expect(e.symbolSource).toBe('symtab');
    const text = e.loadSegments.find((s) => s.flags & 1)!;
    expect(text).toMatchObject({ offset: o.fileOffset, filesz: o.textSize, vaddr: BigInt(o.textStart) });
    const t = e.symbols;
    expect(t.count).toBe(SYMBOLS);
    expect(t.startLo[0]).toBe(o.textStart);
    for (let i = 1; i < t.count; i++) expect(t.startLo[i]).toBe(t.endLo[i - 1]);
    expect(t.endLo[t.count - 1]).toBe(o.textStart + o.textSize);
    expect(t.names[0]).toMatch(/^_ZN5bench\d+\w+8fn_00000E/);
    expect(demangle(t.names[0])).toMatch(/^bench::\w+::fn_00000\(/);
  });

  it.runIf(hasReadelf())('binutils readelf reads it without complaint', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-elf-'));
    try {
      const path = join(dir, 'bench');
      writeFileSync(path, elfBytes);
      const run = (...args: string[]) => execFileSync('readelf', [...args, path], { encoding: 'utf8' });
      const headers = run('-hlSW');
      expect(headers).toMatch(/Type:\s+DYN/);
      expect(headers).toMatch(/Machine:\s+Advanced Micro Devices X86-64/);
      expect(headers).toMatch(/LOAD\s+0x001000 0x0000000000001000 0x0000000000001000 0x400000 0x400000 R E/);
      expect(headers).toMatch(/\.text\s+PROGBITS\s+0000000000001000 001000 400000/);
      const syms = run('-sW');
      expect(syms).toContain(`Symbol table '.symtab' contains ${SYMBOLS + 1} entries`);
      expect(syms.match(/ FUNC {4}GLOBAL DEFAULT {4}1 _ZN5bench/g)?.length).toBe(SYMBOLS);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('symbolizes every main-binary frame of a small synthetic profile, demangled', () => {
    const { raw } = parse(makeSyntheticProfile(2 * 1024 * 1024, 42), 'synthetic.prof');
    const before = foldProfile(raw, { fileName: 'synthetic.prof' });
    expect(frameNames(before.frames).some((n) => n.startsWith('bench+0x'))).toBe(true);

    const r = symbolizerFromFiles(raw.meta.mappings, [{ name: 'bench', bytes: elfBytes }], { demangle });
    expect(r.errors).toEqual([]);
    expect(r.report.matched).toEqual([{ mappingPath: '/opt/bench/bin/bench', elfFile: 'bench', by: 'name' }]);
    const after = foldProfile(raw, { fileName: 'synthetic.prof', symbolizer: r.symbolizer });
    const names = frameNames(after.frames);
    expect(names.filter((n) => n.startsWith('bench+0x'))).toEqual([]);
    const named = names.filter((n) => n.startsWith('bench::'));
    expect(named.length).toBeGreaterThan(1000);
    for (const n of named) expect(n).toMatch(/^bench::\w+::fn_\d{5}\(.*\)$/);
    // libc stays unsymbolized: no binary for it was given.
    expect(names.some((n) => n.startsWith('libc.so.6+0x'))).toBe(true);
    expect(after.meta.totalSamples).toBe(before.meta.totalSamples);
  });
});
