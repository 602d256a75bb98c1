// The raw preview of a gperftools profile (model/gperftools-preview.ts), built from the record
// headers before the full parse, against the full parse + fold: the same coarse tree with the
// same names, and the same metadata, on every gperftools fixture (32/64-bit, both byte orders,
// damaged files) and on synthetic profiles like the benchmark's.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeShortRecordsProfile, makeSyntheticProfile } from '../bench/gen-synthetic';
import { bigOf } from '../src/core/address';
import {
  type GperftoolsScan,
  HEAD_PCS,
  parseGperftools,
  scanGperftools,
} from '../src/core/formats/gperftools';
import {
  gperftoolsPreview,
  PREVIEW_SAMPLE_RECORDS,
  parseGperftoolsWithPreview,
  sampledScan,
} from '../src/core/formats/gperftools-preview';
import type { ImporterPreview } from '../src/core/formats/importer';
import { buildCallTree, type CallTree, PREVIEW_FRACTION } from '../src/core/model/calltree';
import { foldProfile } from '../src/core/model/fold';
import { frameNames } from '../src/core/model/frames';
import { treeAndFunctions } from '../src/core/pipeline';
import type { FoldedProfile, Granularity } from '../src/core/types';
import { canonical, coarse, nodesOf } from './helpers/canonical-tree';

const bytesOf = (path: string) => {
  const b = readFileSync(`test/fixtures/${path}`);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};
const inDir = (dir: string, ext: string) =>
  readdirSync(`test/fixtures/${dir}`)
    .filter((f) => f.endsWith(ext))
    .map((f) => `${dir}/${f}`)
    .sort();

function fullFold(bytes: Uint8Array, granularity?: Granularity): FoldedProfile {
  return foldProfile(parseGperftools(bytes), { fileName: 'x.prof', granularity });
}

function preview(bytes: Uint8Array, fraction?: number, granularity?: Granularity): FoldedProfile {
  return gperftoolsPreview(scanGperftools(bytes), { fileName: 'x.prof', fraction, granularity });
}

/** The preview's trees against the full fold's tree cut at the same thresholds. */
function expectSameCoarseTrees(bytes: Uint8Array, fractions = [PREVIEW_FRACTION], granularity?: Granularity) {
  const full = fullFold(bytes, granularity);
  const fullNodes = nodesOf(buildCallTree(full), full);
  const fullKeys = new Set(
    frameNames(full.frames).map((n, f) => `${n}@${full.modules[full.frames.module[f]]}`),
  );
  for (const fraction of fractions) {
    const p = preview(bytes, fraction, granularity);
    const want = canonical(coarse(fullNodes, full.meta.totalSamples * fraction));
    expect(canonical(nodesOf(buildCallTree(p), p))).toBe(want);
    expect(p.meta).toEqual(full.meta);
    expect(p.modules).toEqual(full.modules);
    // Every frame of the preview is a frame of the fold, in the same module.
    const keys = frameNames(p.frames).map((n, f) => `${n}@${p.modules[p.frames.module[f]]}`);
    expect(keys.filter((k) => !fullKeys.has(k))).toEqual([]);
  }
}

const GPERFTOOLS = [
  ...inDir('gperf', '.prof'),
  ...inDir('gperf-own', '.prof'),
  'upstream/cppbench.cpu',
  'upstream/gobench.cpu',
  'upstream/go.crc32.cpu',
];

describe('gperftools raw preview', () => {
  for (const path of GPERFTOOLS) {
    it(`${path}: the coarse tree and the whole tree of the full fold`, () => {
      const bytes = bytesOf(path);
      expectSameCoarseTrees(bytes, [PREVIEW_FRACTION, 1 / 64, 0]);
      // One [MODULE] frame per module (the pipeline's default): named as the fold names them.
      expectSameCoarseTrees(bytes, [PREVIEW_FRACTION, 0], 'functions');
    });
  }

  it('reads 32-bit little endian fixtures as such', () => {
    expect(preview(bytesOf('gperf/tiny32.prof')).meta.wordSize).toBe(32);
  });

  it('a synthetic profile like the benchmark’s, cut at several levels', () => {
    // 1,400 records: 1/4096 of them is below one sample (no cut), so cut coarser.
    expectSameCoarseTrees(makeSyntheticProfile(2 << 20, 7), [1 / 256, 1 / 1024]);
  });

  it('is the coarse tree treeAndFunctions posts first for a large profile', () => {
    const bytes = makeSyntheticProfile(10 << 20, 3);
    const full = fullFold(bytes);
    let first: CallTree | null = null;
    treeAndFunctions(full, { preview: (tree) => (first = tree) });
    expect(first).not.toBeNull();
    const p = preview(bytes);
    expect(canonical(nodesOf(buildCallTree(p), p))).toBe(canonical(nodesOf(first!, full)));
    // The scan knows the deepest stack, which the coarse tree reports as its depth.
    expect(scanGperftools(bytes).maxPcs).toBe(first!.maxDepth);
  });

  it('reads only the root side of each record: records × heavy levels', () => {
    const scan = scanGperftools(makeSyntheticProfile(10 << 20, 11));
    let read = 0;
    const words = new Proxy(scan.words, {
      get(target, key) {
        if (typeof key === 'string' && /^\d+$/.test(key)) read++;
        const v = Reflect.get(target, key);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    // Without the heads the scan kept, as the preview reads a scan that has none.
    const p = gperftoolsPreview({ ...scan, words, heads: undefined }, { fileName: 'x.prof' });
    let deepest = 0;
    for (let s = 0; s < p.stacks.count; s++)
      deepest = Math.max(deepest, p.stacks.start[s + 1] - p.stacks.start[s]);
    // Two words per 64-bit PC: the first HEAD_PCS from the root, then down to one level below
    // the deepest heavy node.
    expect(read).toBeLessThanOrEqual(scan.recordCount * (HEAD_PCS + deepest + 1) * 2);
    expect(read).toBeLessThan((scan.totalPcs * 2) / 10);
  });
});

/** Each record's first HEAD_PCS PCs from the root as (lo, hi) pairs, read from the file's words. */
function headsOf(scan: GperftoolsScan): { start: number[]; pcs: number[] } {
  const start = [0];
  const pcs: number[] = [];
  for (let r = 0; r < scan.recordCount; r++) {
    const root = scan.pcStart[r] + scan.numPcs[r] - 1;
    for (let d = 0; d < Math.min(HEAD_PCS, scan.numPcs[r]); d++) {
      const slot = root - d;
      pcs.push(scan.wide ? scan.words[2 * slot + scan.loWord] : scan.words[slot]);
      pcs.push(scan.wide ? scan.words[2 * slot + scan.hiWord] : 0);
    }
    start.push(pcs.length / 2);
  }
  return { start, pcs };
}

describe('the root-side PCs the scan keeps for the preview (GperftoolsScan.heads)', () => {
  for (const path of [...GPERFTOOLS, ...inDir('bad', '.prof')]) {
    it(`${path}: each record's, root first, and the same preview without them`, () => {
      const bytes = bytesOf(path);
      let scan: GperftoolsScan;
      try {
        scan = scanGperftools(bytes);
      } catch {
        return; // no records: nothing to preview
      }
      expect(scan.heads).toBeDefined();
      const want = headsOf(scan);
      expect(Array.from(scan.heads!.start)).toEqual(want.start);
      expect(Array.from(scan.heads!.pcs)).toEqual(want.pcs);
      for (const granularity of ['addresses', 'functions'] as const)
        expect(gperftoolsPreview(scan, { fileName: 'x', granularity, fraction: 0 })).toEqual(
          gperftoolsPreview({ ...scan, heads: undefined }, { fileName: 'x', granularity, fraction: 0 }),
        );
    });
  }

  it('more records than the scan first makes room for (its arrays grow)', () => {
    // 70k records of 2 or 64 PCs (a 64-bit little-endian file), past the 65,536 first held: the
    // short ones leave room in the first array of heads, which must not be written on after it grew.
    const records = 70_000;
    const out = new DataView(new ArrayBuffer((5 + records * 66 + 3) * 8));
    let at = 0;
    const put = (v: number) => {
      out.setUint32(at, v % 2 ** 32, true);
      out.setUint32(at + 4, Math.floor(v / 2 ** 32), true);
      at += 8;
    };
    for (const v of [0, 3, 0, 250, 0]) put(v);
    for (let r = 0; r < records; r++) {
      const n = r % 2 === 0 ? 2 : 64;
      put(1 + (r % 3));
      put(n);
      for (let k = 0; k < n; k++) put(0x400000 + ((r * 7 + k * 13) % 5000) * 16 + (k === 0 ? 0 : 5));
    }
    for (const v of [0, 1, 0]) put(v);
    const scan = scanGperftools(new Uint8Array(out.buffer, 0, at));
    expect(scan.recordCount).toBe(records);
    const want = headsOf(scan);
    expect(Array.from(scan.heads!.start)).toEqual(want.start);
    expect(Array.from(scan.heads!.pcs)).toEqual(want.pcs);
  });

  it('a synthetic profile like the benchmark’s', () => {
    const scan = scanGperftools(makeSyntheticProfile(3 << 20, 12));
    const want = headsOf(scan);
    expect(Array.from(scan.heads!.pcs)).toEqual(want.pcs);
    expect(gperftoolsPreview(scan, { fileName: 'x' })).toEqual(
      gperftoolsPreview({ ...scan, heads: undefined }, { fileName: 'x' }),
    );
  });

  it('none for a file of many short records (its preview is drawn from a sample, which reads its own)', () => {
    const scan = scanGperftools(makeShortRecordsProfile(12 << 20, 6));
    expect(scan.heads).toBeUndefined();
    expect(sampledScan(scan, 3).heads).toBeUndefined();
  });
});

describe('malformed and edge-case files (bad/): the scan finds the records the full parse keeps', () => {
  for (const path of inDir('bad', '.prof')) {
    it(path, () => {
      const bytes = bytesOf(path);
      let message: string | null = null;
      try {
        parseGperftools(bytes);
      } catch (e) {
        message = (e as Error).message;
      }
      if (message !== null) {
        expect(() => scanGperftools(bytes)).toThrow(message);
        return;
      }
      const scan = scanGperftools(bytes);
      const raw = parseGperftools(bytes);
      const { stackStart, stackLocs } = raw.samples;
      expect(scan.recordCount).toBe(raw.samples.count);
      expect(Array.from(scan.weight)).toEqual(Array.from(raw.samples.weight));
      for (let r = 0; r < scan.recordCount; r++) {
        const pcs: bigint[] = [];
        for (let s = scan.pcStart[r]; s < scan.pcStart[r] + scan.numPcs[r]; s++) {
          pcs.push(
            scan.wide
              ? bigOf(scan.words[2 * s + scan.hiWord], scan.words[2 * s + scan.loWord])
              : BigInt(scan.words[s]),
          );
        }
        const locs = Array.from(stackLocs.subarray(stackStart[r], stackStart[r + 1]));
        expect(pcs).toEqual(locs.map((l) => bigOf(raw.locations.addrHi[l], raw.locations.addrLo[l])));
      }
      expect(scan.warnings).toEqual(raw.warnings);
      expectSameCoarseTrees(bytes, [PREVIEW_FRACTION, 0]);
    });
  }
});

describe('a file of many short records: the preview is drawn from a sample of them', () => {
  // ~150k records of 4–13 PCs over 100k stacks (the bench's short shape, smaller): enough records
  // and PCs for both the preview (1M PCs) and the merge by stack (65,536 records).
  const bytes = makeShortRecordsProfile(12 << 20, 5);
  const previewOf = (granularity: Granularity) => {
    const got: ImporterPreview[] = [];
    const raw = parseGperftoolsWithPreview(bytes, { granularity, onPreview: (p) => got.push(p) });
    return { got, raw };
  };
  /** Path (names from the root) → total, for the nodes at least `min` heavy. */
  const heavy = (p: FoldedProfile, min: number) => {
    const nodes = nodesOf(buildCallTree(p), p);
    const path = (i: number): string => (i <= 0 ? '' : `${path(nodes[i].parent)};${nodes[i].name}`);
    return new Map(nodes.flatMap((v, i) => (i > 0 && v.total >= min ? [[path(i), v.total] as const] : [])));
  };

  it('one record in every N, weighed up to the file’s total; the heavy nodes near the full fold’s', () => {
    const { got, raw } = previewOf('addresses');
    expect(got).toHaveLength(1);
    const { profile, sampledEvery } = got[0];
    const scan = scanGperftools(bytes);
    expect(sampledEvery).toBe(Math.ceil(scan.recordCount / PREVIEW_SAMPLE_RECORDS));
    expect(sampledEvery).toBeGreaterThan(1);
    const full = foldProfile(raw, { fileName: 'x.prof', granularity: 'addresses' });
    const total = full.meta.totalSamples;
    expect(profile.meta.totalSamples).toBeCloseTo(total, 6);
    // Nodes holding 2% of the samples or more: the same ones, each within a tenth of its weight.
    const want = heavy(full, total * 0.02);
    const have = heavy(profile, total * 0.01);
    expect(want.size).toBeGreaterThan(3);
    for (const [path, w] of want) {
      expect(have.has(path), path).toBe(true);
      expect(Math.abs(have.get(path)! - w) / w, path).toBeLessThan(0.1);
    }
  });

  it('is drawn at the default granularity too (one frame per module), where a full walk is not', () => {
    const { got } = previewOf('functions');
    expect(got).toHaveLength(1);
    expect(frameNames(got[0].profile.frames).every((n) => n.startsWith('['))).toBe(true);
    // A file of long records is not previewed at that granularity (the walk would read every record).
    const long: ImporterPreview[] = [];
    parseGperftoolsWithPreview(makeSyntheticProfile(12 << 20, 3), {
      granularity: 'functions',
      onPreview: (p) => long.push(p),
    });
    expect(long).toEqual([]);
  });

  it('the sample keeps every N-th record, no more PCs than the file', () => {
    const scan = scanGperftools(bytes);
    const s = sampledScan(scan, 7);
    expect(s.recordCount).toBe(Math.ceil(scan.recordCount / 7));
    expect(s.pcStart[1]).toBe(scan.pcStart[7]);
    expect(s.numPcs[2]).toBe(scan.numPcs[14]);
    expect(s.totalPcs).toBeLessThanOrEqual(scan.totalPcs);
    const sum = (w: Float64Array) => w.reduce((a, b) => a + b, 0);
    expect(sum(s.weight)).toBeCloseTo(sum(scan.weight), 6);
  });
});
