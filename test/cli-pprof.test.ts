// The CLI on pprof profiles: detection, --sample-type, info, and `proto -o`.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../src/cli/args.ts';
import { parseProfile } from '../src/core/formats/detect.ts';
import { withSampleType } from '../src/core/model/sample-types.ts';
import { runCli } from './helpers/cli.ts';
import { errorOf } from './helpers/raw.ts';

const fix = (rel: string) => fileURLToPath(new URL(`./fixtures/${rel}`, import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'flamelens-cli-pprof-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const total = (folded: string) =>
  folded
    .split('\n')
    .filter((l) => l !== '')
    .reduce((a, l) => a + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

describe('flamelens CLI on pprof profiles', () => {
  it('fold reads a .pb.gz by its bytes and sums the default sample type', async () => {
    const r = await runCli(['fold', fix('pprof/corpus/tiny.pb.gz')]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(total(r.out)).toBe(18 * 10_000_000); // cpu/nanoseconds
  });

  it('--sample-type picks a column by name, type/unit or index', async () => {
    for (const t of ['samples', 'samples/count', '0']) {
      const r = await runCli(['fold', '--sample-type', t, fix('pprof/corpus/tiny.pb.gz')]);
      expect(r.code).toBe(0);
      expect(total(r.out)).toBe(18);
    }
    const heap = await runCli(['fold', `--sample-type=alloc_objects`, fix('pprof/go/heap.pb.gz')]);
    const raw = parseProfile(readFileSync(fix('pprof/go/heap.pb.gz')));
    expect(total(heap.out)).toBe(raw.samples.values![0].reduce((a, b) => a + b, 0));
  });

  it('fold leaves out the stacks of weight zero, as the independent reader (pprof_ref.py)', async () => {
    // Go's heap profile: most stacks allocated and freed everything, no in-use weight.
    const ref = readFileSync(fix('pprof/go/heap.ref.txt'), 'utf8').split(/^# /m).slice(1);
    expect(ref.map((section) => section.slice(0, section.indexOf('\n')))).toEqual([
      'alloc_objects/count',
      'alloc_space/bytes',
      'inuse_objects/count',
      'inuse_space/bytes',
    ]);
    for (const section of ref) {
      const [type, ...lines] = section.trim().split('\n');
      const r = await runCli(['fold', '--sample-type', type, fix('pprof/go/heap.pb.gz')]);
      expect(r.code, r.err).toBe(0);
      expect(r.out.trim().split('\n').sort(), type).toEqual(lines.sort());
    }
    const inuse = await runCli(['fold', '--sample-type', 'inuse_space', fix('pprof/go/heap.pb.gz')]);
    const stacks = JSON.parse(
      (await runCli(['info', '--sample-type', 'inuse_space', fix('pprof/go/heap.pb.gz')])).out,
    ).stacks;
    expect(inuse.out.trim().split('\n').length).toBeLessThan(stacks);
  });

  it('an unknown sample type is bad usage (exit 2, issue 32) and names the ones there are', async () => {
    const r = await runCli(['fold', '--sample-type', 'wall', fix('pprof/corpus/tiny.pb.gz')]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(
      /^flamelens: \S+tiny\.pb\.gz: no sample type "wall" in this profile \(it has 0: samples\/count, 1: cpu\/nanoseconds\)\nusage: flamelens fold /,
    );
    const g = await runCli(['fold', '--sample-type', '1', fix('gperf/tiny.prof')]);
    expect(g.code).toBe(2);
    expect(g.err).toMatch(/0: samples\/count/);
    // The baseline of a comparison is held to it too.
    const d = await runCli([
      'diff',
      '--sample-type',
      'cpu',
      fix('gperf/tiny.prof'),
      fix('pprof/corpus/tiny.pb.gz'),
    ]);
    expect(d.code).toBe(2);
    expect(d.err).toMatch(/tiny\.prof: no sample type "cpu" in this profile \(it has 0: samples\/count\)/);
  });

  it('info shows the sample type, the period and the sampling time', async () => {
    const r = await runCli(['info', fix('pprof/corpus/tiny.pb.gz')]);
    const info = JSON.parse(r.out);
    expect(info.format).toBe('pprof');
    expect(info.sampleType).toEqual({ type: 'cpu', unit: 'nanoseconds' });
    expect(info.period).toEqual({ value: 10_000_000, type: { type: 'cpu', unit: 'nanoseconds' } });
    expect(info.samplingTimeUs).toBe(180_000);
    // 18 samples of 10 ms: cpu/nanoseconds sums to 180 000 000 (tiny.ref.txt: Go's conversion).
    expect(info.samples).toBe(18);
    expect(info.total).toBe(180_000_000);
    const c = JSON.parse(
      (await runCli(['info', '--sample-type', 'samples', fix('pprof/corpus/tiny.pb.gz')])).out,
    );
    expect(c.samples).toBe(18);
    expect(c.periodUs).toBe(10_000);
    expect(c.samplingTimeUs).toBe(180_000);
  });

  it('proto -o writes a profile that reads back to the same stacks; proto needs -o', async () => {
    const out = join(tmp, 'tiny.pb.gz');
    const w = await runCli(['proto', fix('gperf/tiny.prof'), '-o', out]);
    expect(w.code, w.err).toBe(0);
    const a = await runCli(['fold', fix('gperf/tiny.prof')]);
    // written as pprof reads the .prof: its counts as samples/count, cpu/nanoseconds the default
    const b = await runCli(['fold', out, '--sample-type', 'samples']);
    expect(b.out).toBe(a.out);
    const bad = await runCli(['proto', fix('gperf/tiny.prof')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/proto needs -o/);
    expect(() => parseArgs(['fold', '-o', out, fix('gperf/tiny.prof')])).toThrow(/does not apply to 'fold'/);
    const unwritable = await runCli(['proto', fix('gperf/tiny.prof'), '-o', '/nonexistent/dir/x.pb.gz']);
    expect(unwritable.code).toBe(1);
    expect(unwritable.err).toMatch(/cannot write file/);
  });

  it('withSampleType on a one-column profile keeps it as it is, and refuses other indices', () => {
    const raw = parseProfile(readFileSync(fix('gperf/tiny.prof')));
    const same = withSampleType(raw, 0);
    expect(same.samples.weight).toBe(raw.samples.weight);
    expect(same.meta.periodUs).toBe(10_000);
    expect(errorOf(() => withSampleType(raw, 1)).message).toMatch(/out of range/);
  });
});
