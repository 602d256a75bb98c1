// The perf.data preview: one SAMPLE record in N read as the full parse reads it (the same stacks,
// threads, CPUs and events, every other record read), folded through the session's fold and
// weighed up; only for large files. The session's side (symbol files, names): session-preview.test.ts.

import { describe, expect, it } from 'vitest';
import {
  RECORDINGS,
  type Recording,
  recording,
  recordList,
  symbolFiles,
} from '../../../test/helpers/perf-oracles.ts';
import { frameNames } from '../model/frames.ts';
import { fold, symbolize } from '../pipeline.ts';
import type { RawProfile } from '../types.ts';
import { maybeGunzip } from './detect.ts';
import type { ImporterPreview } from './importer.ts';
import { PerfBytes, readFileHeader } from './perfdata/header.ts';
import { estimateSampleRecords } from './perfdata/records.ts';
import { parsePerfData, sampledPerfData } from './perfdata.ts';
import { perfDataWithPreview } from './perfdata-preview.ts';

/** Sample s's stack as addresses (hex, leaf first), its comm, tid, cpu and event. */
function sampleOf(r: RawProfile, s: number): string {
  const { stackStart, stackLocs } = r.samples;
  const { addrHi, addrLo } = r.locations;
  const frames: string[] = [];
  for (let i = stackStart[s]; i < stackStart[s + 1]; i++) {
    const l = stackLocs[i];
    frames.push(`${addrHi[l].toString(16)}:${addrLo[l].toString(16)}`);
  }
  const labels = (r.labels ?? []).map((l) => `${l.key}=${l.value[s] < 0 ? '' : r.strings[l.value[s]]}`);
  return `${labels.join(' ')} ${r.samples.weight[s]} | ${frames.join(' ')}`;
}

const bytesOf = (name: Recording) => maybeGunzip(recording(name));

describe('sampledPerfData', () => {
  for (const name of RECORDINGS) {
    it(`${name}: one sample in N, each as the full parse reads it`, () => {
      const bytes = bytesOf(name);
      const full = parsePerfData(bytes);
      const budget = Math.max(1, Math.floor(full.samples.count / 7));
      const sampled = sampledPerfData(bytes, budget);
      expect(sampled).not.toBeNull();
      const { raw, every, share } = sampled!;
      expect(every).toBeGreaterThanOrEqual(3);
      // Every recording here has a stack in each SAMPLE record: sample k of the sample is sample
      // k × every of the file.
      expect(raw.samples.count).toBe(Math.ceil(full.samples.count / every));
      expect(share).toBeCloseTo(raw.samples.count / full.samples.count, 12);
      for (let k = 0; k < raw.samples.count; k++) expect(sampleOf(raw, k)).toBe(sampleOf(full, k * every));
      expect(raw.meta.mappings).toEqual(full.meta.mappings);
      expect(raw.sampleTypes).toEqual(full.sampleTypes);
    });
  }

  for (const name of ['spin', 'threads', 'two-events', 'procs'] as const) {
    it(`${name}: the number of SAMPLE records, exact within the head walked, else estimated`, () => {
      const bytes = bytesOf(name);
      const b = new PerfBytes(bytes, true);
      const h = readFileHeader(b);
      const records = recordList(name).filter((r) => r.offset >= h.dataOffset);
      const samples = records.filter((r) => r.type === 9).length;
      expect(estimateSampleRecords(b, h.dataOffset, h.dataEnd)).toBe(samples);
      // from the first half of the records: the rest taken as samples of their average size
      const half = records[records.length >> 1].offset - h.dataOffset;
      const estimate = estimateSampleRecords(b, h.dataOffset, h.dataEnd, half);
      expect(Math.abs(estimate - samples) / samples).toBeLessThan(0.25);
    });
  }

  it('is null when the file has no more than twice the samples asked for', () => {
    const bytes = bytesOf('spin');
    const n = parsePerfData(bytes).samples.count;
    expect(sampledPerfData(bytes, Math.ceil(n / 2))).toBeNull();
    expect(sampledPerfData(bytes, Math.floor(n / 3))).not.toBeNull();
  });
});

describe('perfDataWithPreview', () => {
  const name: Recording = 'threads';
  const bytes = bytesOf(name);

  it('posts a picture folded through foldSample, weighed up to the file, then parses it whole', () => {
    const files = symbolFiles();
    const folds: RawProfile[] = [];
    const foldSample = (raw: RawProfile) => {
      folds.push(raw);
      const symbols = symbolize(raw, files, { mangled: true, names: 'short' });
      return fold({ raw, fileName: name, parseMs: 0 }, { symbols }).profile;
    };
    const previews: ImporterPreview[] = [];
    const full = parsePerfData(bytes);
    const budget = Math.floor(full.samples.count / 10);
    const raw = perfDataWithPreview(0, budget)(bytes, { foldSample, onPreview: (p) => previews.push(p) });
    expect(sampleOf(raw, raw.samples.count - 1)).toBe(sampleOf(full, full.samples.count - 1));
    expect(raw.samples.count).toBe(full.samples.count);
    expect(previews).toHaveLength(1);
    expect(folds).toHaveLength(1);
    const [p] = previews;
    expect(p.sampledEvery).toBe(Math.ceil(full.samples.count / budget));
    // Named as the whole profile folded with the same files is.
    const whole = fold(
      { raw: full, fileName: name, parseMs: 0 },
      { symbols: symbolize(full, files, { mangled: true, names: 'short' }) },
    ).profile;
    const names = new Set(frameNames(whole.frames));
    expect(frameNames(p.profile.frames).filter((n) => !names.has(n))).toEqual([]);
    expect(frameNames(p.profile.frames)).toContain('worker');
    // Weighed up by the share read: the total of the sample's periods × samples / sampled.
    let sampledWeight = 0;
    for (let s = 0; s < folds[0].samples.count; s++) sampledWeight += folds[0].samples.weight[s];
    const scale = full.samples.count / folds[0].samples.count;
    const total = p.profile.stacks.weight.reduce((a, w) => a + w, 0);
    expect(total).toBeCloseTo(sampledWeight * scale, 3);
    expect(p.profile.meta.totalSamples).toBeCloseTo(sampledWeight * scale, 3);
    let depth = 0;
    for (let s = 0; s < p.profile.stacks.count; s++)
      depth = Math.max(depth, p.profile.stacks.start[s + 1] - p.profile.stacks.start[s]);
    expect(p.maxDepth).toBe(depth);
  });

  it('posts nothing below its size, nor for a file it cannot read (the parse says why)', () => {
    const previews: ImporterPreview[] = [];
    const onPreview = (p: ImporterPreview) => previews.push(p);
    perfDataWithPreview(bytes.length + 1, 8)(bytes, { onPreview });
    expect(previews).toEqual([]);
    const cut = bytes.slice(0, 64);
    expect(() => perfDataWithPreview(0, 8)(cut, { onPreview })).toThrow(/perf/);
    expect(previews).toEqual([]);
  });

  it('without foldSample, folds with the fold naming at the granularity asked', () => {
    const previews: ImporterPreview[] = [];
    perfDataWithPreview(0, 16)(bytes, { granularity: 'addresses', onPreview: (p) => previews.push(p) });
    expect(previews).toHaveLength(1);
    const whole = fold(
      { raw: parsePerfData(bytes), fileName: '', parseMs: 0 },
      { granularity: 'addresses' },
    ).profile;
    const names = new Set(frameNames(whole.frames));
    expect(frameNames(previews[0].profile.frames).filter((n) => !names.has(n))).toEqual([]);
  });
});
