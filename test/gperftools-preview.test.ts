// The raw preview of a gperftools profile (model/gperftools-preview.ts), built from the record
// headers before the full parse, against the full parse + fold: the same coarse tree with the
// same names, and the same metadata, on every gperftools fixture (32/64-bit, both byte orders,
// damaged files) and on synthetic profiles like the benchmark's.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeSyntheticProfile } from '../bench/gen-synthetic';
import { bigOf } from '../src/core/address';
import { parseGperftools, scanGperftools } from '../src/core/formats/gperftools';
import { gperftoolsPreview, HEAD_PCS } from '../src/core/formats/gperftools-preview';
import { buildCallTree, type CallTree, PREVIEW_FRACTION } from '../src/core/model/calltree';
import { type FrameGranularity, foldProfile } from '../src/core/model/fold';
import { treeAndFunctions } from '../src/core/pipeline';
import type { FoldedProfile } from '../src/core/types';
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

function fullFold(bytes: Uint8Array, granularity?: FrameGranularity): FoldedProfile {
  return foldProfile(parseGperftools(bytes), { fileName: 'x.prof', granularity });
}

function preview(bytes: Uint8Array, fraction?: number, granularity?: FrameGranularity): FoldedProfile {
  return gperftoolsPreview(scanGperftools(bytes), { fileName: 'x.prof', fraction, granularity });
}

/** The preview's trees against the full fold's tree cut at the same thresholds. */
function expectSameCoarseTrees(
  bytes: Uint8Array,
  fractions = [PREVIEW_FRACTION],
  granularity?: FrameGranularity,
) {
  const full = fullFold(bytes, granularity);
  const fullNodes = nodesOf(buildCallTree(full), full);
  const fullKeys = new Set(full.frames.name.map((n, f) => `${n}@${full.modules[full.frames.module[f]]}`));
  for (const fraction of fractions) {
    const p = preview(bytes, fraction, granularity);
    const want = canonical(coarse(fullNodes, full.meta.totalSamples * fraction));
    expect(canonical(nodesOf(buildCallTree(p), p))).toBe(want);
    expect(p.meta).toEqual(full.meta);
    expect(p.modules).toEqual(full.modules);
    // Every frame of the preview is a frame of the fold, in the same module.
    const keys = p.frames.name.map((n, f) => `${n}@${p.modules[p.frames.module[f]]}`);
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
    const p = gperftoolsPreview({ ...scan, words }, { fileName: 'x.prof' });
    let deepest = 0;
    for (let s = 0; s < p.stacks.count; s++)
      deepest = Math.max(deepest, p.stacks.start[s + 1] - p.stacks.start[s]);
    // Two words per 64-bit PC: the first HEAD_PCS from the root, then down to one level below
    // the deepest heavy node.
    expect(read).toBeLessThanOrEqual(scan.recordCount * (HEAD_PCS + deepest + 1) * 2);
    expect(read).toBeLessThan((scan.totalPcs * 2) / 10);
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
