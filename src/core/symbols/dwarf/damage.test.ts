// Damaged DWARF never breaks symbolization: the file still gives its ELF symbol names, and a
// warning in the report names the section that was skipped and why. Seeded fuzzing of the
// .debug_* bytes of a real fixture: nothing throws, nothing hangs.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { executableMappings } from '../../../../test/helpers/maps';
import { prng } from '../../../../test/helpers/prng.ts';
import type { Mapping, Symbolizer } from '../../types.ts';
import { readElf } from '../elf.ts';
import { symbolizerFromFiles } from '../symbolize.ts';

const DIR = new URL('../../../../test/fixtures/dwarf/', import.meta.url).pathname;
const load = (rel: string) => new Uint8Array(readFileSync(DIR + rel));

function mappingsOf(profile: string): Mapping[] {
  return executableMappings(load(`${profile}.prof`));
}

/** The profile's sampled addresses (already PC − 1 for callers) as [hi, lo]. */
function sampled(name: string): [number, number][] {
  return new TextDecoder()
    .decode(load(`${name}.addrs.txt`))
    .trim()
    .split('\n')
    .map((l) => {
      const a = BigInt(l.split(' ')[0]);
      return [Number(a >> 32n), Number(a & 0xffffffffn)];
    });
}

/** [start, end) of a section's bytes in the file. */
function sectionRange(bytes: Uint8Array, name: string): [number, number] {
  const s = readElf(bytes, 'x').dwarf!.sections.get(name)!;
  const start = s.bytes.byteOffset - bytes.byteOffset;
  return [start, start + s.bytes.length];
}

const NAME = 'inline5';
const MAPS = mappingsOf(NAME);
const ADDRS = sampled(NAME);
const original = load(`bin/${NAME}`);
const bySymbols = symbolizerFromFiles(MAPS, [{ name: NAME, bytes: original }], { dwarf: false }).symbolizer;
const symbolNames = ADDRS.map(([hi, lo]) => bySymbols.lookup(hi, lo));

function symbolize(bytes: Uint8Array): { s: Symbolizer; warnings: string[] } {
  const { symbolizer, report } = symbolizerFromFiles(MAPS, [{ name: NAME, bytes }]);
  return { s: symbolizer, warnings: report.warnings };
}

/** Looks every sampled address up (which parses what DWARF it needs); returns the names. */
function lookAll(s: Symbolizer): (string[] | null)[] {
  return ADDRS.map(([hi, lo]) => {
    s.lookupFrames?.(hi, lo);
    return s.lookup(hi, lo);
  });
}

describe('damaged DWARF: symbol names and a warning naming the section', () => {
  it('.debug_info with an unsupported unit version: no DWARF at all', () => {
    const b = original.slice();
    const [start] = sectionRange(b, '.debug_info');
    b[start + 4] = 99; // version (little endian u16 after the 32-bit unit length)
    b[start + 5] = 0;
    const { s, warnings } = symbolize(b);
    expect(lookAll(s)).toEqual(symbolNames);
    expect(s.lookupFrames).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/inline5: \.debug_info: unsupported DWARF version 99/);
  });

  it('.debug_info DIEs overwritten after the unit DIE: found when a lookup parses the unit', () => {
    const b = original.slice();
    const [start, end] = sectionRange(b, '.debug_info');
    b.fill(0xff, start + 200, end - 16);
    const { s, warnings } = symbolize(b);
    expect(warnings).toEqual([]); // the unit DIE and the index are fine
    expect(lookAll(s)).toEqual(symbolNames);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^inline5: \.debug_info: unit at offset 0 skipped: /);
  });

  it('.debug_abbrev overwritten: the unit (indexed by .debug_aranges) cannot be read', () => {
    const b = original.slice();
    const [start, end] = sectionRange(b, '.debug_abbrev');
    b.fill(0x7f, start, end);
    const { s, warnings } = symbolize(b);
    expect(lookAll(s)).toEqual(symbolNames);
    expect(warnings).toEqual([
      'inline5: .debug_info: unit at offset 0 skipped: .debug_abbrev: unexpected end of data in LEB128 (at offset 2565)',
    ]);
  });

  it('.debug_line with a bad header: inline chains keep their names, the innermost frame loses file:line', () => {
    const b = original.slice();
    const [start] = sectionRange(b, '.debug_line');
    b[start + 4] = 77;
    const { s, warnings } = symbolize(b);
    const names = lookAll(s);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^inline5: \.debug_line: line program at offset 0 skipped: .*version 77/);
    for (let i = 0; i < ADDRS.length; i++) {
      expect(names[i]![0]).toBe(symbolNames[i]![0].replace(/\.cold$/, ''));
      const f = s.lookupFrames!(ADDRS[i][0], ADDRS[i][1])!;
      expect(f[f.length - 1].line).toBeUndefined();
    }
  });

  it('a unit length running past the section', () => {
    const b = original.slice();
    const [start] = sectionRange(b, '.debug_info');
    b.set([0xf0, 0xff, 0xff, 0x0f], start);
    const { s, warnings } = symbolize(b);
    expect(lookAll(s)).toEqual(symbolNames);
    expect(warnings.join('\n')).toMatch(/\.debug_info: unit length \d+ runs past the section/);
  });

  it('a compressed .debug_info whose zlib stream is damaged (gcc -gz)', () => {
    const b = load('bin/inlinegz');
    const [start, end] = sectionRange(b, '.debug_info');
    b.fill(0x33, start + 40, end - 40);
    const { symbolizer, report } = symbolizerFromFiles(mappingsOf('inlinegz'), [
      { name: 'inlinegz', bytes: b },
    ]);
    expect(report.warnings.join('\n')).toMatch(
      /inlinegz: \.debug_info skipped: \.debug_info: cannot decompress/,
    );
    const [hi, lo] = sampled('inlinegz')[0];
    expect(symbolizer.lookup(hi, lo)).not.toBe(null);
  });
});

describe('compression headers', () => {
  it('a decompressed size no zlib stream can reach is refused before allocating', () => {
    const b = load('bin/inlinegz');
    const [start] = sectionRange(b, '.debug_info');
    b.set([0, 0, 0, 0x40, 0, 0, 0, 0], start + 8); // Elf64_Chdr.ch_size = 1 GiB
    const { report } = symbolizerFromFiles(mappingsOf('inlinegz'), [{ name: 'inlinegz', bytes: b }]);
    expect(report.warnings.join('\n')).toMatch(/decompressed size 1073741824 is not plausible/);
  });
});

describe('unsupported files', () => {
  it('a relocatable object (ET_REL): DWARF not used, with a warning', () => {
    const b = original.slice();
    b[16] = 1; // e_type = ET_REL
    const { s, warnings } = symbolize(b);
    expect(s.lookupFrames).toBeUndefined();
    expect(warnings).toEqual([
      'inline5: relocatable object: its DWARF is not used (relocations are not applied)',
    ]);
  });
});

describe('fuzzed .debug_* bytes', () => {
  it('never throw out of symbolization, and every lookup answers with names or null', () => {
    const rnd = prng(2024);
    const sections = [
      '.debug_info',
      '.debug_abbrev',
      '.debug_line',
      '.debug_rnglists',
      '.debug_str',
      '.debug_aranges',
    ].map((n) => sectionRange(original, n));
    let warned = 0;
    for (let iter = 0; iter < 120; iter++) {
      const b = original.slice();
      const [start, end] = sections[iter % sections.length];
      const flips = 1 + Math.floor(rnd() * 24);
      for (let k = 0; k < flips; k++) {
        const at = start + Math.floor(rnd() * (end - start));
        b[at] = rnd() < 0.3 ? 0xff : Math.floor(rnd() * 256);
      }
      const { s, warnings } = symbolize(b);
      for (const names of lookAll(s)) {
        if (names === null) continue;
        expect(names.length).toBeGreaterThan(0);
        for (const n of names) expect(typeof n).toBe('string');
      }
      if (warnings.length > 0) warned++;
    }
    expect(warned).toBeGreaterThan(10);
  });
});
