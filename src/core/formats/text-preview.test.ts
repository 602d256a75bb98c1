// The sampled first pictures of large text and pprof profiles (text-preview.ts, pprof-preview.ts):
// windows of whole records, parsed and folded as the file is, weighed up to the file; the full
// parse after them unchanged. Sizes are made small here (the app's thresholds are tens of MB).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSyntheticPerfScript } from '../../../bench/gen-perf.ts';
import { makeSyntheticPprof } from '../../../bench/gen-pprof.ts';
import { makeTextBenchInput } from '../../../bench/gen-text.ts';
import { LIGHT_CHILDREN, PREVIEW_FRACTION } from '../model/calltree.ts';
import { foldProfile } from '../model/fold.ts';
import { frameNames } from '../model/frames.ts';
import { withSampleType } from '../model/sample-types.ts';
import { frameName } from '../text/frame-text.ts';
import type { FoldedProfile, RawProfile } from '../types.ts';
import { parseDcpi } from './dcpi.ts';
import { parseDcpiWithPreview } from './dcpi-preview.ts';
import { previewUnread } from './detect.ts';
import { parseFolded } from './folded.ts';
import type { ChunkSource } from './gperftools-sample.ts';
import { parseHeap } from './heap.ts';
import type { ImporterPreview, TextSampling } from './importer.ts';
import { parsePerfScript } from './perfscript.ts';
import { parsePprof } from './pprof.ts';
import { sampledPprof } from './pprof-preview.ts';
import {
  byRecords,
  FOLDED_SAMPLING,
  HEAP_SAMPLING,
  joinBytes,
  PERF_SCRIPT_SAMPLING,
  type Sampled,
  sampledFrom,
  sampledParseWithPreview,
  sampledText,
  TEXT_PREVIEW_FROM,
} from './text-preview.ts';

const dir = mkdtempSync(join(tmpdir(), 'flamelens-preview-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const perfFile = join(dir, 'p.perf.txt');
makeSyntheticPerfScript(perfFile, 2);
const PERF = new Uint8Array(readFileSync(perfFile));
const HEAP = makeTextBenchInput('heap', 2 << 20);
const FOLDED = makeTextBenchInput('folded', 1 << 20);
const PPROF = makeSyntheticPprof(2e6, 1);

const stacksOf = (p: FoldedProfile): Map<string, number> => {
  const out = new Map<string, number>();
  const { start, frames, weight } = p.stacks;
  for (let s = 0; s < p.stacks.count; s++) {
    const key = Array.from(frames.subarray(start[s], start[s + 1]), (f) => frameName(p.frames, f)).join(';');
    out.set(key, (out.get(key) ?? 0) + weight[s]);
  }
  return out;
};
const total = (p: FoldedProfile) => p.stacks.weight.reduce((a, b) => a + b, 0);
const fold = (raw: RawProfile) => foldProfile(raw, { fileName: 'x', granularity: 'functions' });

/** The sample parses, holds fewer records than the file, and only stacks the file has. */
function checkSample(
  bytes: Uint8Array,
  s: Sampled | null,
  parse: (b: Uint8Array) => RawProfile,
): { sample: RawProfile; full: RawProfile } {
  expect(s).not.toBeNull();
  const sample = parse(s!.text);
  const full = parse(bytes);
  expect(s!.share).toBeGreaterThan(0);
  expect(s!.share).toBeLessThan(0.5);
  expect(sample.samples.count).toBeGreaterThan(10);
  expect(sample.samples.count).toBeLessThan(full.samples.count);
  // the records kept are whole: the sample's share of records is about its share of bytes
  expect(sample.samples.count / full.samples.count).toBeGreaterThan(s!.share * 0.6);
  expect(sample.samples.count / full.samples.count).toBeLessThan(s!.share * 1.6);
  expect(sample.warnings).toEqual(full.warnings.filter((w) => !w.message.includes('line')));
  const fullStacks = stacksOf(fold(full));
  for (const [stack, w] of stacksOf(fold(sample))) {
    expect(fullStacks.has(stack), stack).toBe(true);
    expect(w).toBeLessThanOrEqual(fullStacks.get(stack)!);
  }
  return { sample, full };
}

describe('sampled text: windows of whole records', () => {
  it('perf script: whole samples (a header, its frames, the blank line)', () => {
    const s = sampledText(PERF, PERF_SCRIPT_SAMPLING, 64 << 10, 16);
    const { sample } = checkSample(PERF, s, parsePerfScript);
    expect(sample.warnings).toEqual([]);
    expect(new TextDecoder().decode(s!.text.subarray(0, 40))).toMatch(/^bench/);
  });

  it('heap: the header and the maps section with every window', () => {
    const s = sampledText(HEAP, HEAP_SAMPLING, 64 << 10, 16);
    const { sample, full } = checkSample(HEAP, s, parseHeap);
    expect(sample.meta.mappings).toEqual(full.meta.mappings);
    expect(sample.meta.mappings.length).toBe(2);
    expect(sample.meta.period).toEqual(full.meta.period);
  });

  it('heap: the maps section starts at the line of its last sentinel, of either form', () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    const end = (t: string) => HEAP_SAMPLING.bodyEnd!(enc(t));
    const head = 'heap profile: 1: 2 [ 3: 4] @ heapprofile\n1: 2 [3: 4] @ 0x1\n';
    expect(end(`${head}MAPPED_LIBRARIES:\n0-1 r-xp 0 0:0 0 /a\n`)).toBe(head.length);
    expect(end(`${head}--- Memory map: ---\n0-1 r-xp 0 0:0 0 /a\n`)).toBe(head.length);
    // the last one of either form, and from its line's start
    const both = `${head}--- Memory map: ---\nx\n  MAPPED_LIBRARIES:\n0-1 r-xp 0 0:0 0 /a\n`;
    expect(end(both)).toBe(both.indexOf('  MAPPED'));
    const other = `${head}MAPPED_LIBRARIES:\nx\n--- Memory map: ---\n`;
    expect(end(other)).toBe(other.indexOf('---'));
    // near misses are not sentinels; none: the records run to the end
    const none = `${head}MAPPED_LIBRARIES\n--- Memory map\nM-\n`;
    expect(end(none)).toBe(enc(none).length);
  });

  it('folded stacks: whole lines', () => {
    checkSample(FOLDED, sampledText(FOLDED, FOLDED_SAMPLING, 32 << 10, 16), (b) => parseFolded(b));
  });

  it('no sample of a file hardly larger than the budget, nor of perf text without blank lines', () => {
    expect(sampledText(PERF, PERF_SCRIPT_SAMPLING, PERF.length)).toBeNull();
    const oneLine = new TextEncoder().encode(
      Array.from(
        { length: 5000 },
        (_, i) => `prog  1234 ${i}.5: 1 cpu-clock:  4005d0 main+0x10 (/bin/prog)\n`,
      ).join(''),
    );
    expect(sampledText(oneLine, PERF_SCRIPT_SAMPLING, 4096, 8)).toBeNull();
  });
});

describe('pprof: one sample in every, every other field kept', () => {
  it('keeps every location, function and string; the samples evenly', () => {
    const s = sampledPprof(PPROF, 100_000);
    expect(s).not.toBeNull();
    const sample = parsePprof(s!.text);
    const full = parsePprof(PPROF);
    expect(sample.locations.count).toBe(full.locations.count);
    expect(sample.strings).toEqual(full.strings);
    expect(sample.meta.mappings).toEqual(full.meta.mappings);
    const every = Math.round(full.samples.count / sample.samples.count);
    expect(every).toBeGreaterThan(2);
    expect(s!.share).toBeCloseTo(sample.samples.count / full.samples.count, 10);
    // sample i of the sample is sample i·every of the file (its locations' addresses)
    const addrs = (r: RawProfile, i: number) =>
      Array.from(
        r.samples.stackLocs.subarray(r.samples.stackStart[i], r.samples.stackStart[i + 1]),
        (l) => `${r.locations.addrHi[l]}:${r.locations.addrLo[l]}`,
      );
    const e = Math.ceil(full.samples.count / sample.samples.count);
    for (const i of [0, 1, sample.samples.count - 1]) expect(addrs(sample, i)).toEqual(addrs(full, i * e));
  });

  it('no sample of a small profile or of bytes that are no message', () => {
    expect(sampledPprof(PPROF, PPROF.length)).toBeNull();
    expect(sampledPprof(new Uint8Array([0x12, 0xff, 0xff, 0x0f, 1, 2]), 1)).toBeNull();
  });
});

describe('the preview capability', () => {
  const run = (
    bytes: Uint8Array,
    parse: (b: Uint8Array) => RawProfile,
    sample: (b: Uint8Array) => Sampled | null,
  ) => {
    const previews: ImporterPreview[] = [];
    const raw = sampledParseWithPreview(
      parse,
      sample,
      0,
    )(bytes, {
      fileName: 'x',
      granularity: 'functions',
      onPreview: (p) => previews.push(p),
    });
    return { raw, previews };
  };

  it('posts one picture weighed up to the file, then parses the whole file as parse does', () => {
    for (const [bytes, parse, sample] of [
      [PERF, parsePerfScript, byRecords(PERF_SCRIPT_SAMPLING, 128 << 10, 32)],
      [HEAP, parseHeap, byRecords(HEAP_SAMPLING, 128 << 10, 32)],
      [PPROF, parsePprof, (b: Uint8Array) => sampledPprof(b, 200_000)],
    ] as const) {
      const { raw, previews } = run(bytes, parse, sample);
      const full = parse(bytes);
      expect(raw.samples.count).toBe(full.samples.count);
      expect(raw.samples.stackLocs).toEqual(full.samples.stackLocs);
      expect(previews.length).toBe(1);
      const p = previews[0];
      expect(p.sampledEvery).toBeGreaterThanOrEqual(2);
      // weighed up: about the file's total (the records' weights vary: within a third)
      const want = total(fold(full));
      expect(total(p.profile)).toBeGreaterThan(want * 0.67);
      expect(total(p.profile)).toBeLessThan(want * 1.5);
      expect(p.profile.meta.totalSamples).toBeCloseTo(total(p.profile), -1);
      // the same names as the full fold's
      const names = new Set(frameNames(fold(full).frames));
      for (const n of frameNames(p.profile.frames)) expect(names.has(n), n).toBe(true);
      let deepest = 0;
      for (let i = 0; i < p.profile.stacks.count; i++)
        deepest = Math.max(deepest, p.profile.stacks.start[i + 1] - p.profile.stacks.start[i]);
      expect(p.maxDepth).toBe(deepest);
    }
  });

  it('posts nothing for a file below the size, or one whose sample fails', () => {
    const previews: ImporterPreview[] = [];
    sampledParseWithPreview(parsePerfScript, byRecords(PERF_SCRIPT_SAMPLING))(PERF, {
      onPreview: (p) => previews.push(p),
    });
    expect(previews).toEqual([]);
    const broken = () => {
      throw new Error('damaged');
    };
    const r = sampledParseWithPreview(
      parsePerfScript,
      broken,
      0,
    )(PERF, { onPreview: (p) => previews.push(p) });
    expect(previews).toEqual([]);
    expect(r.samples.count).toBe(parsePerfScript(PERF).samples.count);
  });
});

describe('DCPI: the heavy addresses, then one bar for the others', () => {
  it('gives the full fold’s heavy stacks exactly, and the rest as LIGHT_CHILDREN', () => {
    const bytes = makeTextBenchInput('dcpi', 2 << 20);
    const previews: ImporterPreview[] = [];
    const raw = parseDcpiWithPreview(bytes, { fileName: 'x', onPreview: (p) => previews.push(p) }, 1000);
    expect(raw.samples.count).toBe(parseDcpi(bytes).samples.count);
    expect(previews.length).toBe(1);
    const p = previews[0].profile;
    const full = fold(raw);
    const want = total(full);
    expect(p.meta.totalSamples).toBe(want);
    expect(total(p)).toBe(want);
    const threshold = want * PREVIEW_FRACTION;
    const fullStacks = stacksOf(full);
    const heavy = [...fullStacks].filter(([, w]) => w >= threshold);
    const last = p.stacks.count - 1;
    expect(p.stacks.frames[p.stacks.start[last]]).toBe(LIGHT_CHILDREN >>> 0);
    const shown = new Map<string, number>();
    for (let s = 0; s < last; s++)
      shown.set(frameName(p.frames, p.stacks.frames[p.stacks.start[s]]), p.stacks.weight[s]);
    expect(shown).toEqual(new Map(heavy));
    expect(p.stacks.weight[last]).toBe(want - heavy.reduce((a, [, w]) => a + w, 0));
    // below the size, no preview
    parseDcpiWithPreview(bytes, { onPreview: (x) => previews.push(x) });
    expect(previews.length).toBe(1);
  });
});

describe('folded stacks', () => {
  it('pictures a one-count file, and a two-count one as the comparison it opens as', () => {
    const previews: ImporterPreview[] = [];
    const sampling = byRecords(FOLDED_SAMPLING, 32 << 10, 16);
    const preview = sampledParseWithPreview(parseFolded, sampling, 0);
    preview(FOLDED, { onPreview: (p) => previews.push(p) });
    expect(previews.length).toBe(1);
    expect(previews[0].baseline).toBeUndefined();
    const diff = makeTextBenchInput('difffolded', 1 << 20);
    const r = preview(diff, { fileName: 'x', onPreview: (p) => previews.push(p) });
    expect(previews.length).toBe(2);
    expect(r.diffPair).toBe(true);
    const { profile, baseline, sampledEvery } = previews[1];
    expect(sampledEvery).toBeGreaterThan(2);
    // each side: the stacks of its own column of the file; its sample's weighed up by the share
    const { text, share } = sampling(diff)!;
    const sample = parseFolded(text);
    expect(baseline).toBeDefined();
    for (const [side, column] of [
      [profile, 1],
      [baseline!, 0],
    ] as const) {
      const full = stacksOf(fold(withSampleType(r, column)));
      const shown = stacksOf(side);
      expect(shown.size).toBeGreaterThan(10);
      const sampled = stacksOf(fold(withSampleType(sample, column)));
      expect(new Set(shown.keys())).toEqual(new Set(sampled.keys()));
      for (const [stack, w] of shown) {
        expect(full.has(stack), stack).toBe(true);
        expect(w).toBeCloseTo(sampled.get(stack)! / share, 6);
      }
      expect(side.meta.totalSamples).toBeCloseTo(total(side), 3);
    }
    // the two columns differ, so the two pictures do
    expect(total(baseline!)).not.toBe(total(profile));
  });
});

/** `bytes` read at any offset, counting the bytes read. */
function memorySource(bytes: Uint8Array): ChunkSource & { bytesRead: number } {
  const src = {
    size: bytes.length,
    bytesRead: 0,
    read: async (at: number, len: number) => {
      const b = bytes.slice(at, Math.min(bytes.length, at + len));
      src.bytesRead += b.length;
      return b;
    },
  };
  return src;
}

describe('a file not yet read (sampledFrom)', () => {
  const enc = (t: string) => new TextEncoder().encode(t);
  // a heap profile whose maps section runs on for more than the 1 MB looked at first
  const mapLine =
    '7f0000000000-7f0000001000 r-xp 00000000 08:02 173521 /usr/lib/x86_64-linux-gnu/libpadding.so\n';
  const HEAP_LONG_MAPS = joinBytes([HEAP, enc(mapLine.repeat(Math.ceil((1.5 * 2 ** 20) / mapLine.length)))]);
  // folded lines longer than a window's first read (span + 16 KB)
  const LONG_LINES = enc(
    Array.from({ length: 120 }, (_, i) => `${`f${i % 7};`.repeat(6000 + 97 * i)}leaf${i} ${i + 1}\n`).join(
      '',
    ),
  );
  const DIFF = makeTextBenchInput('difffolded', 1 << 20);

  it('reads the windows sampledText takes of the whole file, and little else', async () => {
    for (const [label, bytes, how, budget, windows] of [
      ['perf script', PERF, PERF_SCRIPT_SAMPLING, 128 << 10, 32],
      ['heap', HEAP, HEAP_SAMPLING, 128 << 10, 32],
      ['heap, long maps', HEAP_LONG_MAPS, HEAP_SAMPLING, 128 << 10, 32],
      ['folded', FOLDED, FOLDED_SAMPLING, 64 << 10, 16],
      ['difffolded', DIFF, FOLDED_SAMPLING, 64 << 10, 16],
      ['long lines', LONG_LINES, FOLDED_SAMPLING, 64 << 10, 8],
    ] as [string, Uint8Array, TextSampling, number, number][]) {
      const whole = sampledText(bytes, how, budget, windows);
      const src = memorySource(bytes);
      const early = await sampledFrom(src, how, budget, windows);
      expect(whole, label).not.toBeNull();
      expect(early, label).not.toBeNull();
      expect(early!.share, label).toBe(whole!.share);
      expect(Buffer.from(early!.text).equals(Buffer.from(whole!.text)), label).toBe(true);
      // the head, each window once with its margin (records shorter than it), and a heap's last MB
      const span = budget / windows;
      const reads =
        65536 + windows * (span + Math.max(span, 16 << 10)) + (how === HEAP_SAMPLING ? 1 << 20 : 0);
      if (label === 'long lines') expect(src.bytesRead).toBeGreaterThan(reads);
      else if (label !== 'heap, long maps') expect(src.bytesRead, label).toBeLessThanOrEqual(reads);
    }
  });

  it("finds a heap profile's maps section past the last 1 MB, and reads no window in it", async () => {
    const early = await sampledFrom(memorySource(HEAP_LONG_MAPS), HEAP_SAMPLING, 128 << 10, 32);
    const text = new TextDecoder().decode(early!.text);
    expect(text.split('MAPPED_LIBRARIES:').length).toBe(2);
    expect(text.endsWith(mapLine)).toBe(true);
  });

  it('looks for a trailer without tailBytes in the last 1 MB, read once', async () => {
    expect(PERF.length).toBeGreaterThan(2 << 20);
    const how: TextSampling = { recordAt: PERF_SCRIPT_SAMPLING.recordAt, bodyEnd: (b) => b.length };
    const src = memorySource(PERF);
    const early = await sampledFrom(src, how, 128 << 10, 32);
    expect(early).toEqual(sampledText(PERF, PERF_SCRIPT_SAMPLING, 128 << 10, 32));
    expect(src.bytesRead).toBeLessThanOrEqual(65536 + 32 * (4096 + (16 << 10)) + (1 << 20));
  });

  it('samples nothing of a file too small for a sample, or whose header runs past 64 KB', async () => {
    expect(await sampledFrom(memorySource(FOLDED), FOLDED_SAMPLING, 1 << 20, 16)).toBeNull();
    const longHeader = joinBytes([enc('x'.repeat(70_000)), HEAP]);
    expect(await sampledFrom(memorySource(longHeader), HEAP_SAMPLING, 16 << 10, 8)).toBeNull();
  });

  it('pictures a large folded file before it is read, weighed up to the file (previewUnread)', async () => {
    // the folded input repeated past the size that is previewed, read only where it is sampled
    const times = Math.ceil(TEXT_PREVIEW_FROM / FOLDED.length) + 1;
    const src: ChunkSource & { bytesRead: number } = {
      size: FOLDED.length * times,
      bytesRead: 0,
      read: async (at, len) => {
        const n = Math.min(len, src.size - at);
        const out = new Uint8Array(n);
        for (let i = 0; i < n; ) {
          const o = (at + i) % FOLDED.length;
          const k = Math.min(n - i, FOLDED.length - o);
          out.set(FOLDED.subarray(o, o + k), i);
          i += k;
        }
        src.bytesRead += n;
        return out;
      },
    };
    const p = await previewUnread(src, { fileName: 'x', granularity: 'functions' });
    expect(p).not.toBeNull();
    expect(p!.sampledEvery).toBeGreaterThan(5);
    const want = total(fold(parseFolded(FOLDED))) * times;
    expect(total(p!.profile)).toBeGreaterThan(want * 0.8);
    expect(total(p!.profile)).toBeLessThan(want * 1.25);
    const names = new Set(frameNames(fold(parseFolded(FOLDED)).frames));
    for (const n of frameNames(p!.profile.frames)) expect(names.has(n), n).toBe(true);
    expect(src.bytesRead).toBeLessThan(src.size / 4);
    // not a format sampled where it lies, or too small: no picture
    expect(await previewUnread(memorySource(FOLDED), {})).toBeNull();
    expect(await previewUnread({ ...src, read: async () => Uint8Array.of(0x1f, 0x8b, 8, 0) }, {})).toBeNull();
  });
});
