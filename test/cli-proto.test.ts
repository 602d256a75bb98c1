// `flamelens proto` keeps what the profile has: every sample type and the labels (issue 32).
//  1. The round trip: `fold --sample-type T` of the export equals `fold --sample-type T` of the
//     source for every type T; `info` lists the same labels (keys, values, samples and weights).
//  2. Go pprof reads the exports (make_proto_fixtures.sh committed its -raw and -tags output, so
//     these tests need no go): per stack and label set, each type's sum equals what Go reads in the
//     source itself; a label's values and weights (-tags) are the source's; the period too.
//  3. The writer still writes the bytes Go read.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli';
import { type GoRaw, goRawTotals, readGoRaw } from './helpers/go-raw';

const EXPORT = 'test/fixtures/pprof/export';
const SOURCES = {
  'go-heap': 'test/fixtures/pprof/go/heap.pb.gz',
  labels: 'test/fixtures/pprof/labels/labels.pb.gz',
  'heap-xz': 'test/fixtures/heap/xz.0001.heap',
  'perf-mixed': 'test/fixtures/perf/mixed.perf.txt',
} as const;
type Name = keyof typeof SOURCES;

const tmp = mkdtempSync(join(tmpdir(), 'flamelens-proto-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const text = (file: string) => readFileSync(join(EXPORT, file), 'utf8');
const goRaw = (file: string): GoRaw => readGoRaw(text(file));

async function info(file: string, ...args: string[]) {
  const r = await runCli(['info', file, ...args]);
  expect(r.code, r.err).toBe(0);
  return JSON.parse(r.out);
}

describe('proto keeps every sample type and the labels', () => {
  for (const [name, source] of Object.entries(SOURCES) as [Name, string][]) {
    it(`${name}: the export folds as the source at every sample type, with the same labels`, async () => {
      const out = join(tmp, `${name}.pb.gz`);
      const w = await runCli(['proto', source, '-o', out]);
      expect(w.code, w.err).toBe(0);
      // The writer still writes what Go read (else: bash test/fixtures/pprof/make_proto_fixtures.sh).
      expect(gunzipSync(readFileSync(out))).toEqual(gunzipSync(readFileSync(join(EXPORT, `${name}.pb.gz`))));
      const src = await info(source);
      const back = await info(out);
      expect(src.sampleTypes.length).toBeGreaterThan(1);
      expect(back.sampleTypes).toEqual(src.sampleTypes);
      // The type shown by default is the one the source shows.
      expect(back.sampleType).toEqual(src.sampleType);
      expect(back.labels.length).toBeGreaterThan(0);
      expect(back.labels).toEqual(src.labels);
      for (const t of src.sampleTypes as { type: string }[]) {
        const a = await runCli(['fold', '--sample-type', t.type, source]);
        const b = await runCli(['fold', '--sample-type', t.type, out]);
        expect(b.out.length, t.type).toBeGreaterThan(0);
        expect(b.out, `${name} ${t.type}`).toBe(a.out);
        const ia = await info(source, '--sample-type', t.type);
        const ib = await info(out, '--sample-type', t.type);
        for (const k of ['samples', 'total', 'periodUs', 'samplingTimeUs', 'labels'])
          expect(ib[k], `${name} ${t.type} ${k}`).toEqual(ia[k]);
      }
    }, 60_000);
  }

  it('the view applies: label filters and group-by, one sample type chosen as the default', async () => {
    const out = join(tmp, 'labels-focus.pb.gz');
    const flags = ['--tagfocus', 'worker=beta,gamma', '--group-by', 'worker', '--sample-type', 'samples'];
    expect((await runCli(['proto', SOURCES.labels, ...flags, '-o', out])).code).toBe(0);
    const b = await info(out);
    expect(b.sampleType).toEqual({ type: 'samples', unit: 'count' });
    for (const t of ['samples', 'cpu']) {
      const a = await runCli(['fold', ...flags.slice(0, 4), '--sample-type', t, SOURCES.labels]);
      expect((await runCli(['fold', '--sample-type', t, out])).out, t).toBe(a.out);
    }
    expect(
      b.labels
        .find((l: { key: string }) => l.key === 'worker')
        .values.map((v: { value: string }) => v.value)
        .sort(),
    ).toEqual(['beta', 'gamma']);
  });
});

describe('go tool pprof reads the exports as it reads their sources (committed output)', () => {
  for (const name of ['go-heap', 'labels'] as const) {
    it(`${name}: per stack and labels, every sample type's sum; -tags; the period`, () => {
      const ours = goRaw(`${name}.go-raw.txt`);
      const theirs = goRaw(`${name}.source.go-raw.txt`);
      expect(ours.types).toEqual(theirs.types);
      // (Go merges the samples that have the same locations and labels: the export's, whose
      // stacks are folded, merge more.)
      expect(goRawTotals(ours)).toEqual(goRawTotals(theirs));
      expect(goRawTotals(ours).size).toBeGreaterThan(10);
      for (const k of ['PeriodType', 'Period']) expect(ours.header.get(k), k).toBe(theirs.header.get(k));
      expect(text(`${name}.go-tags.txt`)).toBe(text(`${name}.source.go-tags.txt`));
      expect(text(`${name}.go-tags.txt`)).not.toBe('');
    });
  }

  it("go-heap: the default sample type is the one flamelens shows (pprof's: the last)", () => {
    const ours = goRaw('go-heap.go-raw.txt');
    expect(ours.types[ours.dflt]).toBe('inuse_space/bytes');
  });

  it('heap-xz (gperftools heap): the four values per label value; PeriodType space/bytes', () => {
    const ours = goRaw('heap-xz.go-raw.txt');
    const theirs = goRaw('heap-xz.source.go-raw.txt');
    // pprof's order (alloc_*, then inuse_*), so -sample_index=N is the same column in both
    expect(ours.types).toEqual(theirs.types);
    // Go's legacy reader has the addresses, the export the names: they compare per label value.
    expect(goRawTotals(ours, 'labels')).toEqual(goRawTotals(theirs, 'labels'));
    expect(goRawTotals(ours, 'labels').size).toBeGreaterThan(10);
    expect(ours.types[ours.dflt]).toBe('inuse_space/bytes');
    // The empty PeriodType of before: Go's legacy heap reader says space/bytes, period 1.
    expect(ours.header.get('PeriodType')).toBe('space bytes');
    expect(ours.header.get('Period')).toBe(theirs.header.get('Period'));
    expect(text('heap-xz.go-tags.txt')).toBe(text('heap-xz.source.go-tags.txt'));
  });

  it('perf-mixed (perf script): both types, the comm/pid/tid labels, as stackcollapse-perf counts them', () => {
    const ours = goRaw('perf-mixed.go-raw.txt');
    expect(ours.types).toEqual(['cpu-clock/nanoseconds', 'samples/count']);
    expect(ours.dflt).toBe(0);
    expect(ours.header.get('PeriodType')).toBe('cpu-clock nanoseconds');
    // stackcollapse-perf.pl's fold of the same text puts each sample under its comm.
    const perComm = new Map<string, number>();
    for (const line of readFileSync('test/fixtures/perf/mixed.collapsed.txt', 'utf8').trim().split('\n')) {
      const comm = line.slice(0, line.indexOf(';'));
      perComm.set(comm, (perComm.get(comm) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
    const total = [...perComm.values()].reduce((a, b) => a + b, 0);
    const tags = text('perf-mixed.go-tags-samples.txt');
    expect(tags).toContain(` comm: Total ${total.toFixed(1)}\n`);
    for (const [comm, n] of perComm)
      expect(tags).toMatch(new RegExp(`^ +${n.toFixed(1)} \\([\\d.]+%\\): ${comm}$`, 'm'));
    const counts = new Map<string, number>();
    for (const s of ours.samples) {
      const comm = s.labels.find((l) => l.startsWith('comm='))!.slice(5);
      counts.set(comm, (counts.get(comm) ?? 0) + s.values[1]);
    }
    expect(counts).toEqual(perComm);
  });
});
