// A heap profile parsed from its chunks as they are read (heap-chunks.ts): the same profile as the
// whole file's parse wherever the chunks split its lines, the same errors, and the preview's sample
// copied out of the chunks as they pass.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeTextBenchInput } from '../../../bench/gen-text.ts';
import { errorOf } from '../../../test/helpers/raw.ts';
import type { RawProfile } from '../types.ts';
import { parseHeap } from './heap.ts';
import { chunkHeap, HeapSampleCollector } from './heap-chunks.ts';
import type { ImporterPreview } from './importer.ts';
import { HEAP_PREVIEW_BYTES, HEAP_SAMPLING, sampledText, TEXT_PREVIEW_WINDOWS } from './text-preview.ts';

const FX = new URL('../../../test/fixtures/heap/', import.meta.url);
const fixture = (f: string) => new Uint8Array(readFileSync(new URL(f, FX)));
const enc = (s: string) => new TextEncoder().encode(s);

/** `bytes` cut at `cuts` (ascending offsets), each piece its own buffer, as a reader hands them. */
function pieces(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    out.push(bytes.slice(at, c));
    at = c;
  }
  return out;
}

/** Parses `bytes` from `parts`, pushed one by one. */
function viaChunks(bytes: Uint8Array, parts: readonly Uint8Array[]): RawProfile {
  const released: ArrayBuffer[] = [];
  const s = chunkHeap(parts[0], bytes.length, (b) => released.push(b));
  if (s === null) throw new Error('no chunked parse');
  for (const p of parts.slice(1)) s.push(p);
  const raw = s.finish({});
  // every chunk is let go of once read; the first ones, when fewer than a byte order mark's
  // bytes, as the one buffer they are joined into
  let joined = 0;
  for (let n = 0; n < 3 && joined < parts.length; joined++) n += parts[joined].length;
  expect(released.length).toBe(parts.length - Math.max(0, joined - 1));
  return raw;
}

/** The columns of two large profiles compared as bytes, the rest as values. */
function expectSame(a: RawProfile, b: RawProfile): void {
  const bytesOf = (x: ArrayBufferView) => Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  const cols = (r: RawProfile) => [
    r.samples.stackStart,
    r.samples.stackLocs,
    ...(r.samples.values ?? []),
    r.locations.addrHi,
    r.locations.addrLo,
  ];
  const [ca, cb] = [cols(a), cols(b)];
  expect(ca.length).toBe(cb.length);
  for (let i = 0; i < ca.length; i++) expect(bytesOf(ca[i]).equals(bytesOf(cb[i])), `column ${i}`).toBe(true);
  const rest = (r: RawProfile) => ({
    ...r,
    samples: { count: r.samples.count },
    locations: null,
    labels: null,
  });
  expect(rest(a)).toEqual(rest(b));
  const labels = (r: RawProfile) =>
    (r.labels ?? []).map((l) => ({ ...l, value: bytesOf(l.value as Float64Array) }));
  expect(labels(a)).toEqual(labels(b));
}

const every = (n: number, step: number) =>
  Array.from({ length: Math.ceil(n / step) - 1 }, (_, i) => (i + 1) * step);

const HEAD = 'heap profile:    4:    400 [   8:   800] @ heap_v2/524288\n';
const MAPS = '\nMAPPED_LIBRARIES:\n00400000-00404000 r-xp 00000000 08:01 1234     /opt/p\n';
const LINES = [
  '     1:      100 [     2:      200] @ 0x401000 0x402000 0x403000',
  '\t3:\t600000 [\t8:1600000]\t@\t0x401100 0x00000000000000402000\t0X',
  '\v    1:      100 [     2:      200] @ 0x401000 0x402000 0x403000',
  '# a comment',
  '     0:        0 [     0:0000000000000000] @ 0xffffffffffffffff 0x0',
  '    -1:      -50 [     0:        0] @ 0x401300\v',
];
const SMALL: Record<string, string> = {
  lf: `${HEAD}${LINES.join('\n')}${MAPS}`,
  crlf: `\r\n${HEAD.replace('\n', '\r\n')}${LINES.join('\r\n')}\r\n--- Memory map: ---\r\n00400000-00404000 r-xp 00000000 08:01 1234 /opt/p\r\n`,
  bom: `\uFEFF${HEAD}${LINES[0]}\n${LINES[4]}${MAPS}`,
  'cut last line': `${HEAD}${LINES[0]}\n${LINES[4]}`,
  'no maps, final newline': `${HEAD}${LINES[0]}\n`,
  'maps sentinel last, no newline': `${HEAD}${LINES[0]}\nMAPPED_LIBRARIES:`,
  'utf-8 in the maps': `${HEAD}${LINES[0]}\nMAPPED_LIBRARIES:\n00400000-00404000 r-xp 00000000 08:01 1234 /opt/ünï€/p\n`,
};

describe('heap profiles parsed from chunks', () => {
  it('gives the whole parse wherever two or three chunks split the file', () => {
    for (const [what, text] of Object.entries(SMALL)) {
      const bytes = enc(text);
      const whole = parseHeap(bytes);
      for (let i = 1; i < bytes.length; i++) {
        expect(viaChunks(bytes, pieces(bytes, [i])), `${what}: cut at ${i}`).toEqual(whole);
        const j = Math.min(bytes.length - 1, i + 1 + (i % 7));
        if (j > i)
          expect(viaChunks(bytes, pieces(bytes, [i, j])), `${what}: cut at ${i}, ${j}`).toEqual(whole);
      }
    }
  });

  it('gives the whole parse of real profiles read a byte at a time, and in chunks of several sizes', () => {
    for (const f of ['xz.0001.heap', 'allocs.0004.heap', 'synthetic-v2.heap']) {
      const bytes = fixture(f);
      const whole = parseHeap(bytes);
      expect(whole.samples.count, f).toBeGreaterThan(0);
      for (const size of [1, 7, 64, 1000]) {
        expect(viaChunks(bytes, pieces(bytes, every(bytes.length, size))), `${f} in ${size}s`).toEqual(whole);
      }
    }
  });

  it('fails as the whole parse does, at the same line', () => {
    for (const text of [
      'hello\nworld\n',
      '\n\n   \nheap profile: nonsense\n',
      '\n \n',
      'heap profile: 1: 2 [3: 4] @ heapprofile\nbad\nworse\n',
    ]) {
      const bytes = enc(text);
      const whole = errorOf(() => parseHeap(bytes));
      for (let i = 1; i < bytes.length; i++) {
        const e = errorOf(() => viaChunks(bytes, pieces(bytes, [i])));
        expect(e.describe(), `${text}: cut at ${i}`).toBe(whole.describe());
        expect(e.line).toBe(whole.line);
      }
    }
    expect(errorOf(() => parseHeap(enc('hello\nworld\n'))).describe()).toMatch(/\(at line 1\)/);
    // a read cut short says where
    const bytes = enc(SMALL.lf);
    const s = chunkHeap(bytes.subarray(0, 10), bytes.length);
    expect(errorOf(() => s!.finish({})).describe()).toMatch(/ends at byte 10 of \d+.*\(at byte 10\)/);
  });
});

describe('the preview sample of a heap profile read in chunks', () => {
  const BUDGET = 16 << 10;
  const WINDOWS = 16;
  const BIG = makeTextBenchInput('heap', 1 << 20);
  const sampleOf = (bytes: Uint8Array, cuts: readonly number[]) => {
    const c = new HeapSampleCollector(bytes.length, BUDGET, WINDOWS);
    let at = 0;
    for (const p of pieces(bytes, cuts)) {
      c.add(p, at);
      at += p.length;
    }
    return c.take();
  };

  it('is the sample sampledText takes when the file has no maps section, wherever chunks split it', () => {
    const text = new TextDecoder().decode(BIG);
    const noMaps = enc(`\n  ${text.slice(0, text.indexOf('MAPPED_LIBRARIES:'))}`);
    const want = sampledText(noMaps, HEAP_SAMPLING, BUDGET, WINDOWS);
    expect(want).not.toBeNull();
    for (const size of [1 << 20, 65536, 4099, 1000]) {
      const got = sampleOf(noMaps, every(noMaps.length, size));
      expect(got?.share, `chunks of ${size}`).toBe(want!.share);
      expect(Buffer.from(got!.text).equals(Buffer.from(want!.text)), `chunks of ${size}`).toBe(true);
    }
  });

  it('is that sample when lines are longer than the windows are apart (a window starts where one ended)', () => {
    const line = (i: number) =>
      `1: 2 [3: 4] @${' 0x4010'.repeat(300 + ((i * 37) % 200))} 0x${i.toString(16)}\n`;
    const long = enc(HEAD + Array.from({ length: 16 }, (_, i) => line(i)).join(''));
    const want = sampledText(long, HEAP_SAMPLING, BUDGET, WINDOWS);
    expect(want).not.toBeNull();
    for (const size of [long.length - 1, 3001, 97]) {
      const got = sampleOf(long, every(long.length, size));
      expect(got?.share, `chunks of ${size}`).toBe(want!.share);
      expect(Buffer.from(got!.text).equals(Buffer.from(want!.text)), `chunks of ${size}`).toBe(true);
    }
  });

  it('holds the header, whole lines before the maps section, and the maps section', () => {
    const whole = parseHeap(BIG);
    const bodyEnd = HEAP_SAMPLING.bodyEnd!(BIG);
    const bodyStart = HEAP_SAMPLING.bodyStart!(BIG);
    for (const size of [1 << 20, 4099]) {
      const s = sampleOf(BIG, every(BIG.length, size));
      expect(s).not.toBeNull();
      const raw = parseHeap(s!.text);
      expect(raw.meta.mappings).toEqual(whole.meta.mappings);
      expect(raw.meta.period).toEqual(whole.meta.period);
      expect(raw.warnings).toEqual([]);
      // the share is of the records' bytes: the sample's bytes less the header and maps, over them
      const kept = s!.text.length - bodyStart - (BIG.length - bodyEnd);
      expect(s!.share).toBeCloseTo(kept / (bodyEnd - bodyStart), 12);
      expect(s!.share).toBeGreaterThan((BUDGET * 0.9) / BIG.length);
      expect(s!.share).toBeLessThan((BUDGET * 1.5) / BIG.length);
      expect(raw.samples.count / whole.samples.count).toBeGreaterThan(s!.share * 0.6);
      expect(raw.samples.count / whole.samples.count).toBeLessThan(s!.share * 1.6);
    }
  });

  it('is none for a file too small to sample', () => {
    const bytes = fixture('xz.0001.heap');
    expect(sampleOf(bytes, [100, 5000])).toBeNull();
  });

  it('is pictured by finish before the rest is parsed, as the whole file is (above 32 MB)', () => {
    // large enough for a preview, and for columns sized from the file's first sixteenth
    const bytes = makeTextBenchInput('heap', 33 << 20);
    const parts = pieces(bytes, every(bytes.length, (4 << 20) + 7));
    const s = chunkHeap(parts[0], bytes.length);
    for (const p of parts.slice(1)) s!.push(p);
    const previews: ImporterPreview[] = [];
    const raw = s!.finish({ fileName: 'h', onPreview: (p) => previews.push(p) });
    expectSame(raw, parseHeap(bytes));
    expect(previews).toHaveLength(1);
    const [p] = previews;
    const every1 = Math.round(bytes.length / HEAP_PREVIEW_BYTES);
    expect(p.sampledEvery).toBeGreaterThan(every1 * 0.8);
    expect(p.sampledEvery).toBeLessThan(every1 * 1.25);
    // weighed up to about the file's total
    const total = raw.samples.weight.reduce((a, b) => a + b, 0);
    expect(p.profile.meta.totalSamples / total).toBeGreaterThan(0.8);
    expect(p.profile.meta.totalSamples / total).toBeLessThan(1.25);
    expect(TEXT_PREVIEW_WINDOWS).toBeGreaterThan(1);
    // with symbol files the preview would not name frames as the fold will: none
    const again = chunkHeap(bytes, bytes.length);
    const none: ImporterPreview[] = [];
    again!.finish({ withSymbols: true, onPreview: (x) => none.push(x) });
    expect(none).toEqual([]);
  });
});
