// The raw preview of a large gperftools drop: posted before the parse, with the coarse tree's
// names and shape and a pending function table; never for symbolized or small drops; harmless
// when it fails. A large perf.data's sampled preview, symbolized by the files dropped with it.

import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { makeSyntheticProfile } from '../../../bench/gen-synthetic';
import { makeTextBenchInput } from '../../../bench/gen-text';
import { canonical, nodesOf } from '../../../test/helpers/canonical-tree';
import { largePipeRecording, symbolFiles } from '../../../test/helpers/perf-oracles';
import { writeBundle } from '../bundle/bundle';
import { PERFDATA_PREVIEW_FROM } from '../formats/perfdata-preview';
import * as pipeline from '../pipeline';
import { type Analysis, parse } from '../pipeline';

// Counts the symbolize stage's runs (a preview's symbols serve the full profile's).
vi.mock('../pipeline', async (real) => {
  const actual = await real<typeof import('../pipeline')>();
  return { ...actual, symbolize: vi.fn(actual.symbolize) };
});

import { frameNames } from '../model/frames';
import { samplesByMapping } from '../symbols/modules';
import { DEFAULT_VIEW, workerViewOf } from '../view/schema';
import { AnalysisSession } from './session';

// ~1.3M PCs: above the raw preview's threshold (1M) and pipeline's coarse one (1M frames).
const large = { name: 'large.prof', bytes: makeSyntheticProfile(10 << 20, 5) };
const fixture = (path: string) => ({
  name: path.split('/').pop()!,
  bytes: new Uint8Array(readFileSync(`test/fixtures/${path}`)),
});

function recordingSession(): { s: AnalysisSession; previews: Analysis[] } {
  const s = new AnalysisSession();
  const previews: Analysis[] = [];
  s.onPreview = (a) => previews.push(a);
  return { s, previews };
}

// Per-address frames: one frame per module would make the unsymbolized synthetic profile tiny.
const V = workerViewOf({ ...DEFAULT_VIEW, granularity: 'addresses' });
const text = (a: Analysis) => canonical(nodesOf(a.tree, a.profile));

describe('AnalysisSession raw preview', () => {
  it('paints a large gperftools drop from its record headers first, then the coarse tree', async () => {
    const { s, previews } = recordingSession();
    const result = await s.add([large], V);
    expect(previews.map((a) => a.functionsPending ?? false)).toEqual([true, false]);
    const [raw, coarse] = previews;
    // The same tree by names (frame ids differ: the preview has its own frame table).
    expect(text(raw)).toBe(text(coarse));
    expect(raw.profile.frames).not.toBe(coarse.profile.frames);
    expect(raw.tree.maxDepth).toBe(coarse.tree.maxDepth);
    // The samples each mapping holds are counted when asked, after the full analysis (from the
    // stacks folded in place), as they are from the parsed stacks.
    const { mappingSamplesPending, ...meta } = result.analysis!.profile.meta;
    expect(mappingSamplesPending).toBe(true);
    expect(raw.profile.meta).toEqual(meta);
    const held = s.mappingSamples();
    expect(held.map((m) => m.path)).toEqual(['/opt/bench/bin/bench', '/usr/lib/x86_64-linux-gnu/libc.so.6']);
    expect(held).toEqual(samplesByMapping(parse(large.bytes, large.name).raw));
    expect(s.mappingSamples()).toBe(held);
    expect(raw.functions.total.every((t) => t === 0)).toBe(true);
    expect(result.analysis!.profile.meta.totalSamples).toBe(raw.profile.meta.totalSamples);
    expect(result.analysis!.timings.parseMs).toBeGreaterThan(0);
  });

  it('does not preview small profiles, symbolized drops, or without a listener', async () => {
    const small = recordingSession();
    await small.s.add([fixture('gperf/tiny.prof')], V);
    expect(small.previews).toEqual([]);

    // Symbols change the names: only the coarse tree of the symbolized fold comes first.
    const symbolized = recordingSession();
    await symbolized.s.add([large, fixture('gperf/bin/tiny')], V);
    expect(symbolized.previews.map((a) => a.functionsPending ?? false)).toEqual([false]);

    const silent = new AnalysisSession();
    const r = await silent.add([large], V);
    expect(r.analysis!.profile.meta.fileName).toBe('large.prof');
  });

  it('a failing preview leaves the drop alone; a bad file still fails as the parse says', async () => {
    const s = new AnalysisSession();
    const seen: boolean[] = [];
    s.onPreview = (a) => {
      seen.push(a.functionsPending ?? false);
      if (a.functionsPending) throw new Error('preview failed');
    };
    const r = await s.add([large], V);
    expect(seen).toEqual([true, false]);
    expect(r.analysis!.profile.meta.fileName).toBe('large.prof');

    const cut = { name: 'cut.prof', bytes: large.bytes.slice(0, 20) };
    const plain = new AnalysisSession();
    const previewing = recordingSession();
    const error = await plain.add([cut], V).catch((e: Error) => e.message);
    await expect(previewing.s.add([cut], V)).rejects.toThrow(error as string);
  });
});

describe('AnalysisSession perf.data preview', () => {
  const big = { name: 'big.pipe.data', bytes: largePipeRecording(PERFDATA_PREVIEW_FROM) };
  const F = workerViewOf({ ...DEFAULT_VIEW, granularity: 'functions' });

  it('paints a large perf.data dropped with its binaries from a sample of its records, named as the full tree', async () => {
    const { s, previews } = recordingSession();
    vi.mocked(pipeline.symbolize).mockClear();
    const result = await s.add([big, ...symbolFiles()], F);
    // the symbol files were read once, for the sample, and serve the whole profile
    expect(vi.mocked(pipeline.symbolize)).toHaveBeenCalledTimes(1);
    // the same tree as without a preview
    const silent = await new AnalysisSession().add([big, ...symbolFiles()], F);
    expect(text(result.analysis!)).toBe(text(silent.analysis!));
    expect(result.symbols).toEqual(silent.symbols);
    const [first] = previews;
    expect(first.functionsPending).toBe(true);
    expect(first.sampledEvery).toBeGreaterThan(1);
    const full = result.analysis!.profile;
    const names = new Set(frameNames(full.frames));
    expect(frameNames(first.profile.frames).filter((n) => !names.has(n))).toEqual([]);
    // symbolized: the program's functions, the kernel's from kallsyms
    expect(frameNames(first.profile.frames)).toContain('worker');
    expect(frameNames(first.profile.frames).some((n) => n.startsWith('['))).toBe(false);
    expect(first.profile.meta.totalSamples / full.meta.totalSamples).toBeCloseTo(1, 1);
  });

  it('without binaries, names as the unsymbolized fold; a bundle whose objects come later: no preview', async () => {
    const { s, previews } = recordingSession();
    const result = await s.add([big], F);
    expect(previews[0].sampledEvery).toBeGreaterThan(1);
    const names = new Set(frameNames(result.analysis!.profile.frames));
    expect(frameNames(previews[0].profile.frames).filter((n) => !names.has(n))).toEqual([]);
    expect(frameNames(previews[0].profile.frames)).not.toContain('worker');

    // The bundle's objects are unpacked after the parse, for the mappings it found: the sample
    // could not be named by them: no picture of the sample.
    const program = symbolFiles().find((f) => f.name === 'threads')!;
    const bundle = {
      name: 'big.zip',
      bytes: writeBundle({
        profiles: [big],
        files: [{ path: 'threads', bytes: program.bytes }],
        missing: [],
      }),
    };
    const bundled = recordingSession();
    const r = await bundled.s.add([bundle], F);
    expect(frameNames(r.analysis!.profile.frames)).toContain('worker');
    expect(bundled.previews.filter((a) => a.functionsPending)).toEqual([]);
  });
});

/** Each node of an analysis's tree as the names from the root down to it. */
function pathsOf(a: Analysis): string[] {
  const nodes = nodesOf(a.tree, a.profile);
  const paths: string[] = [];
  for (const n of nodes) paths.push(n.parent < 0 ? '' : `${paths[n.parent]};${n.name}`);
  return paths.slice(1);
}

describe('AnalysisSession preview of a large two-count file (difffolded)', () => {
  // above TEXT_PREVIEW_FROM (32 MB): pictured from a sample of its records
  const diff = { name: 'large.difffolded', bytes: makeTextBenchInput('difffolded', 34 << 20) };

  it('pictures the comparison it opens as: both columns of a sample, drawn as the diff', async () => {
    const { s, previews } = recordingSession();
    const result = await s.add([diff], workerViewOf(DEFAULT_VIEW));
    expect(result.mode).toBe('diff');
    expect(previews).toHaveLength(1);
    const [p] = previews;
    const full = result.analysis!;
    expect(p.sampledEvery).toBeGreaterThan(2);
    expect(p.functionsPending).toBe(true);
    expect(p.diff).toBeDefined();
    expect(full.diff).toBeDefined();
    expect(p.diff!.baseMeta.fileName).toBe(full.diff!.baseMeta.fileName);
    expect(p.profile.meta.fileName).toBe(full.profile.meta.fileName);
    // the same names: every node the preview draws is a node of the full comparison
    const fullNodes = new Set(pathsOf(full));
    const shown = pathsOf(p);
    expect(shown.length).toBeGreaterThan(100);
    for (const path of shown) expect(fullNodes.has(path), path).toBe(true);
    // both sides estimated from the same share of records: near the file's totals
    for (const side of ['comp', 'base'] as const) {
      const ratio = p.diff![side].total[0] / full.diff![side].total[0];
      expect(ratio).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThan(2);
    }
  });

  it('is not pictured in a view it does not open in as a comparison', async () => {
    const { s, previews } = recordingSession();
    const result = await s.add([diff], workerViewOf({ ...DEFAULT_VIEW, mode: 'sandwich' }));
    expect(result.mode).not.toBe('diff');
    expect(previews).toEqual([]);
  });
});
