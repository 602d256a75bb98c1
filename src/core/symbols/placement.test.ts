// Placing ELF files in profiles that lost their mapped-objects text: real libprofiler profiles cut
// after their trailer (test/fixtures/debian/xz-no-maps.prof, gperf-own/sorter-no-maps.prof). The
// load addresses are read off the uncut profiles' /proc/maps lines; the placed fold must name every
// frame of the placed files as the uncut profile's fold with the same files does.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { toFoldedText } from '../model/serialize';
import { fold, parse, symbolize } from '../pipeline';
import { parseBase } from './placement';
import type { InputFile } from './symbolize';

const FX = new URL('../../../test/fixtures/', import.meta.url);
const file = (p: string, name = p.split('/').at(-1)!): InputFile => ({
  name,
  bytes: new Uint8Array(readFileSync(fileURLToPath(new URL(p, FX)))),
});

const XZ = file('heap/bin/xz');
const LZMA = file('sysroot/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1');
const SORTER = file('gperf-own/bin/sorter');

/** Folded text with every frame no placed file names (other modules, bare addresses) as `?`. */
function namedOnly(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.trim().split('\n')) {
    const sp = line.lastIndexOf(' ');
    const key = line
      .slice(0, sp)
      .split(';')
      .map((f) => (f.startsWith('[') || f.startsWith('0x') ? '?' : f))
      .join(';');
    out.set(key, (out.get(key) ?? 0) + Number(line.slice(sp + 1)));
  }
  return out;
}

function folded(profile: InputFile, files: InputFile[], placements?: { file: string; base: bigint }[]) {
  const loaded = parse(profile.bytes, profile.name);
  const symbols = symbolize(loaded.raw, files, { mangled: true, placements });
  return { text: toFoldedText(fold(loaded, { symbols }).profile), symbols };
}

describe('placing ELF files in a profile without mappings', () => {
  it('guesses where PIE xz and liblzma were loaded from the return addresses alone', () => {
    const { symbols } = folded(file('debian/xz-no-maps.prof'), [XZ, LZMA]);
    const hints = symbols!.state.placement!.hints;
    // /proc/maps: 560242d38000-… r-xp 00003000 xz (text at vaddr 0x3000); 7f73047f0000-… r-xp
    // 00004000 liblzma (text at vaddr 0x4000).
    expect(hints.map((h) => [h.file, h.base, h.how, h.fixed])).toEqual([
      ['xz', '0x560242d35000', 'calls', false],
      ['liblzma.so.5.4.1', '0x7f73047ec000', 'calls', false],
    ]);
    for (const h of hints) expect(h.calls).toBe(h.callers);
    // Not placed until the user says so: PIE files could be anywhere.
    expect(symbols!.state.placement!.used).toEqual([]);
  });

  it('placed, names the frames as the uncut profile with its maps does', () => {
    const placements = [
      { file: 'xz', base: 0x560242d35000n },
      { file: 'liblzma.so.5.4.1', base: 0x7f73047ec000n },
    ];
    const placed = folded(file('debian/xz-no-maps.prof'), [XZ, LZMA], placements);
    const whole = folded(file('debian/xz.prof'), [XZ, LZMA]);
    expect(placed.symbols!.state.placement!.used).toEqual([
      { file: 'xz', base: '0x560242d35000' },
      { file: 'liblzma.so.5.4.1', base: '0x7f73047ec000' },
    ]);
    expect(placed.text).toMatch(/lzma_code/);
    expect(namedOnly(placed.text)).toEqual(namedOnly(whole.text));
  });

  it('a one-page program: the guess and the placed fold', () => {
    const { symbols } = folded(file('gperf-own/sorter-no-maps.prof'), [SORTER]);
    // 55a1ba039000-55a1ba03a000 r-xp 00001000 …/sorter, text at vaddr 0x1000.
    expect(symbols!.state.placement!.hints[0]).toMatchObject({ base: '0x55a1ba038000', how: 'calls' });
    const placed = folded(
      file('gperf-own/sorter-no-maps.prof'),
      [SORTER],
      [{ file: 'sorter', base: 0x55a1ba038000n }],
    );
    const whole = folded(file('gperf-own/sorter.prof'), [SORTER]);
    expect(namedOnly(placed.text)).toEqual(namedOnly(whole.text));
  });

  it('a file linked at fixed addresses goes where it was linked, unasked', () => {
    // python3.11 is ET_EXEC (linked at 0x400000): its maps-less profile names its code at once.
    const py = { name: 'python3.11', bytes: gunzipSync(file('debian/bin/python3.11.gz').bytes) };
    const placed = folded(file('debian/python3-no-maps.prof'), [py]);
    expect(placed.symbols!.state.placement).toMatchObject({
      hints: [{ file: 'python3.11', fixed: true, how: 'fixed', base: '0x0' }],
      used: [{ file: 'python3.11', base: '0x0' }],
    });
    expect(placed.text).toMatch(/_PyEval_EvalFrameDefault/);
    expect(namedOnly(placed.text)).toEqual(namedOnly(folded(file('debian/python3.prof'), [py]).text));
  });

  it('reads typed load addresses', () => {
    expect(parseBase('0x7f73047ec000')).toBe(0x7f73047ec000n);
    expect(parseBase(' 55a1ba038000 ')).toBe(0x55a1ba038000n);
    expect(parseBase('0xzz')).toBeNull();
    expect(parseBase('')).toBeNull();
  });
});
