import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorOf, rawStacks } from '../../../test/helpers/raw.ts';
import { parseGperftools, parseMapsText } from './gperftools.ts';

/**
 * Builds a gperftools profile from slots (bigint or number) and a maps text (by default one line
 * mapping the test addresses: without one, the parser warns that the text is missing).
 */
function build(
  slots: (number | bigint)[],
  opts: { ws?: 4 | 8; le?: boolean; text?: string } = {},
): Uint8Array {
  const ws = opts.ws ?? 8;
  const le = opts.le ?? true;
  const text = new TextEncoder().encode(opts.text ?? '400000-500000 r-xp 00000000 00:00 1 /bin/prog\n');
  const out = new Uint8Array(slots.length * ws + text.length);
  const dv = new DataView(out.buffer);
  slots.forEach((v, i) => {
    const b = BigInt(v);
    if (ws === 8) dv.setBigUint64(i * 8, b, le);
    else dv.setUint32(i * 4, Number(b), le);
  });
  out.set(text, slots.length * ws);
  return out;
}

const HEADER = [0, 3, 0, 10000, 0];
const TRAILER = [0, 1, 0];

describe('parseGperftools', () => {
  const records = [5, 3, 0x400100, 0x400200, 0x400300, 2, 2, 0x400110, 0x400300];
  const expected = new Map([
    ['400300;400200;400100', 5],
    ['400300;400110', 2],
  ]);

  for (const ws of [4, 8] as const) {
    for (const le of [true, false]) {
      it(`reads ${ws * 8}-bit ${le ? 'little' : 'big'} endian`, () => {
        const raw = parseGperftools(build([...HEADER, ...records, ...TRAILER], { ws, le }));
        expect(raw.meta.wordSize).toBe(ws * 8);
        expect(raw.meta.byteOrder).toBe(le ? 'little' : 'big');
        expect(raw.meta.periodUs).toBe(10000);
        expect(raw.adjustCallers).toBe(true);
        expect(rawStacks(raw)).toEqual(expected);
        expect(raw.warnings).toEqual([]);
      });
    }
  }

  it('keeps 64-bit addresses exact above 2^53', () => {
    const hiAddr = 0xffffffffff600123n;
    const raw = parseGperftools(build([...HEADER, 1, 2, hiAddr, 0x7fffffffffffff01n, ...TRAILER]));
    expect(rawStacks(raw)).toEqual(new Map([['7fffffffffffff01;ffffffffff600123', 1]]));
  });

  it('works on a subarray with an odd byte offset', () => {
    const b = build([...HEADER, ...records, ...TRAILER], { le: false });
    const padded = new Uint8Array(b.length + 3);
    padded.set(b, 3);
    expect(rawStacks(parseGperftools(padded.subarray(3)))).toEqual(expected);
  });

  it('skips extra header slots', () => {
    const raw = parseGperftools(build([0, 5, 0, 10000, 0, 77, 88, ...records, ...TRAILER]));
    expect(rawStacks(raw)).toEqual(expected);
  });

  it('accepts period 0 with a warning', () => {
    const raw = parseGperftools(build([0, 3, 0, 0, 0, ...records, ...TRAILER]));
    expect(raw.meta.periodUs).toBe(0);
    expect(raw.warnings.map((w) => w.message)).toEqual(['period is 0: showing sample counts without time']);
  });

  it('rejects bad headers', () => {
    expect(errorOf(() => parseGperftools(new Uint8Array(0))).message).toBe('empty file');
    expect(errorOf(() => parseGperftools(build([1, 3, 0, 100, 0, ...TRAILER]))).message).toMatch(
      /not a gperftools/,
    );
    expect(errorOf(() => parseGperftools(build([0, 3, 2, 100, 0, ...TRAILER]))).message).toMatch(/version 2/);
    expect(errorOf(() => parseGperftools(build([0, 1n << 40n, 0, 100, 0], { text: '' }))).message).toMatch(
      /header/,
    );
    const short = errorOf(() => parseGperftools(build([0, 3, 0], { text: '' })));
    expect(short.message).toMatch(/ends inside the gperftools header/);
    expect(short.offset).toBe(24);
  });

  it('ends only at the exact trailer; a leaf PC 0 elsewhere is data with a warning', () => {
    const raw = parseGperftools(build([...HEADER, 4, 2, 0, 0x400300, ...records, ...TRAILER]));
    expect(rawStacks(raw).get('400300;0')).toBe(4);
    expect(raw.samples.count).toBe(3);
    expect(raw.warnings).toHaveLength(1);
    expect(raw.warnings[0].offset).toBe(40);
  });

  it('skips num_pcs 0 records with a warning and ignores count 0 records', () => {
    const raw = parseGperftools(build([...HEADER, 9, 0, 0, 2, 1, 2, ...records, ...TRAILER]));
    expect(rawStacks(raw)).toEqual(expected);
    expect(raw.warnings).toEqual([expect.objectContaining({ offset: 40 })]);
  });

  it('stops at a corrupt record and keeps what came before, without allocating', () => {
    const raw = parseGperftools(build([...HEADER, ...records, 1, 1n << 40n, 1, 2, 3, ...TRAILER]));
    expect(rawStacks(raw)).toEqual(expected);
    expect(raw.warnings[0].message).toMatch(/^corrupt record at byte 112/);
    expect(raw.warnings[0].offset).toBe(112);
  });

  it('keeps complete records of a truncated file and warns', () => {
    const full = build([...HEADER, ...records, ...TRAILER]);
    const cut = parseGperftools(full.subarray(0, 40 + 5 * 8 + 12));
    expect(rawStacks(cut)).toEqual(new Map([['400300;400200;400100', 5]]));
    expect(cut.warnings[0].message).toMatch(/^truncated at byte 80/);
    const noTrailer = parseGperftools(build([...HEADER, ...records], { text: '' }));
    expect(rawStacks(noTrailer)).toEqual(expected);
    expect(noTrailer.warnings[0].message).toMatch(/^truncated at byte 112: no trailer/);
    expect(noTrailer.meta.mappings).toEqual([]);
    // Said plainly: the addresses have no module, whatever symbols are given.
    for (const r of [cut, noTrailer]) {
      expect(r.warnings.at(-1)?.message).toMatch(/^no mapped-objects text .*bare addresses .*no module/);
    }
    // A whole file says nothing of the kind.
    expect(parseGperftools(full).warnings).toEqual([]);
  });

  it('reports progress', () => {
    const seen: number[] = [];
    parseGperftools(build([...HEADER, ...records, ...TRAILER]), { onProgress: (f) => seen.push(f) });
    expect(seen.at(-1)).toBe(1);
  });

  it('reads the maps text after the trailer', () => {
    const text =
      '00400000-00401000 r-xp 00001000 08:01 1 /opt/demo/bin/demo\n' +
      '00401000-00402000 rw-p 00002000 08:01 1 /opt/demo/bin/demo\n' +
      '7f0000000000-7f0000100000 r-xp 00026000 08:01 2 /usr/lib/libc.so.6\n';
    const raw = parseGperftools(build([...HEADER, ...records, ...TRAILER], { text }));
    expect(raw.meta.mappings).toEqual([
      { start: 0x400000n, end: 0x401000n, offset: 0x1000n, path: '/opt/demo/bin/demo' },
      { start: 0x7f0000000000n, end: 0x7f0000100000n, offset: 0x26000n, path: '/usr/lib/libc.so.6' },
    ]);
  });
});

describe('parseMapsText', () => {
  it('follows the spec for build= and $build', () => {
    const text = [
      'build=/first',
      '  build=/last',
      '00400000-00401000 r-xp 00000000 08:01 1 $build/bin/demo',
      '00500000-00501000 r-xp 00000000 08:01 1 $build_x/lib.so',
      '00600000-00601000 r-xp 00000000 08:01 1 $build',
      '  00700000-00701000 r-xp 00000000 08:01 1 /indented/ignored.so',
      '00800000-00801000 r-xp 00000000 08:01 1 /with space/lib.so (deleted)',
      '00900000-00901000 r-xp 00000000 00:00 0',
      'junk line',
    ].join('\r\n');
    const { mappings, build } = parseMapsText(text);
    expect(build).toBe('/last');
    expect(mappings.map((m) => m.path)).toEqual([
      '/last/bin/demo',
      '$build_x/lib.so',
      '/last',
      '/with space/lib.so (deleted)',
      '',
    ]);
  });

  it('reads long fields in linear time (fuzz: a heap profile with a 75 000-character device took 2.7 s)', () => {
    const t0 = performance.now();
    const { mappings } = parseMapsText(
      [
        `00400000-00401000 r-xp 00000000 ${'00:'.repeat(50_000)}0 /dev/long`, // no inode after it
        `00400000-00401000 r-xp 00000000 0${':0'.repeat(50_000)} /no/inode`,
        `00400000-00401000 r-xp 00000000 00:00 ${'1'.repeat(100_000)} /path\rwith/cr`,
        `00500000-00501000 r-xp 00000000 08:01 1${' '.repeat(100_000)}/blanks`,
      ].join('\n'),
    );
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(mappings.map((m) => m.path)).toEqual(['/path\rwith/cr', '/blanks']);
  });

  it('merges many short records by stack before interning: the same stacks and weights', () => {
    // Real profiles, 64- and 32-bit, and one with many repeats (a stack 100 times, a different
    // stack of the same length and first PC, a prefix of it).
    const fx = (p: string) =>
      new Uint8Array(readFileSync(new URL(`../../../test/fixtures/${p}`, import.meta.url)));
    const repeats = build([
      ...HEADER,
      ...Array.from({ length: 100 }, () => [1, 3, 0x400100, 0x400200, 0x400300]).flat(),
      ...[2, 3, 0x400100, 0x400200, 0x400301],
      ...[4, 2, 0x400100, 0x400200],
      ...[0, 3, 0x400100, 0x400200, 0x400300],
      ...TRAILER,
    ]);
    for (const bytes of [
      fx('gperf-own/sorter.prof'),
      fx('debian/python3.prof'),
      fx('bad/real_tiny32_be.prof'),
      repeats,
    ]) {
      const plain = parseGperftools(bytes, { dedupeMinRecords: Number.POSITIVE_INFINITY });
      const merged = parseGperftools(bytes, { dedupeMinRecords: 1 });
      expect(merged.samples.count).toBeLessThanOrEqual(plain.samples.count);
      expect(rawStacks(merged)).toEqual(rawStacks(plain));
      expect(merged.meta.extra).toEqual(plain.meta.extra);
    }
    const r = parseGperftools(repeats, { dedupeMinRecords: 1 });
    expect(r.samples.count).toBe(3);
    expect(rawStacks(r)).toEqual(
      new Map([
        ['400300;400200;400100', 100],
        ['400301;400200;400100', 2],
        ['400200;400100', 4],
      ]),
    );
  });
});
