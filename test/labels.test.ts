// Label filters and group-by on real profiles, against oracles that are not the importers:
//   - a Go CPU profile labelled with pprof.Do, and Go pprof's own `-raw` output for -tagfocus,
//     -tagignore and -tagroot (test/fixtures/pprof/make_label_fixtures.sh), read by a small
//     parser here;
//   - Go's heap profile (numeric `bytes` labels) against pprof's -tagfocus/-tagignore ranges;
//   - perf script text (comm, pid, tid), counted by a small parser here;
//   - gperftools heap profiles (`bytes`: the average block size of each record), read here.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addLabelValue, labelSummary, parseLabelFilter } from '../src/core/model/labels';
import { toFoldedText } from '../src/core/model/serialize';
import { fold, parse } from '../src/core/pipeline';
import type { FoldedProfile, LabelFilter } from '../src/core/types';
import { runCli } from './helpers/cli';

const path = (rel: string) => `test/fixtures/${rel}`;
const text = (rel: string) => readFileSync(path(rel), 'utf8');
const load = (rel: string) => parse(new Uint8Array(readFileSync(path(rel))), rel.split('/').pop()!);

/** Folded text → stack → weight, without zero weights. */
function stacksOf(folded: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of folded.split('\n')) {
    if (!line) continue;
    const sp = line.lastIndexOf(' ');
    const w = Number(line.slice(sp + 1));
    if (w !== 0) out.set(line.slice(0, sp), (out.get(line.slice(0, sp)) ?? 0) + w);
  }
  return out;
}
const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * `go tool pprof -raw`: its samples (values by column name, location ids leaf first, labels as
 * printed) and its locations' function names, innermost inline first.
 */
function readPprofRaw(raw: string) {
  const lines = raw.split('\n');
  let i = lines.indexOf('Samples:');
  expect(i).toBeGreaterThan(0);
  const columns = lines[++i].trim().split(/\s+/);
  const samples: { values: number[]; locs: number[]; labels: string }[] = [];
  for (i++; i < lines.length && lines[i] !== 'Locations'; i++) {
    const m = /^\s*([\d\s]+):((?:\s+\d+)*)\s*$/.exec(lines[i]);
    if (m) {
      samples.push({
        values: m[1].trim().split(/\s+/).map(Number),
        locs: m[2].trim().split(/\s+/).map(Number),
        labels: '',
      });
    } else {
      expect(lines[i]).toMatch(/^\s+\w+:\[/); // the labels of the sample above
      samples[samples.length - 1].labels = lines[i].trim();
    }
  }
  const functions = new Map<number, string[]>();
  let current: string[] = [];
  for (i++; i < lines.length && lines[i] !== 'Mappings'; i++) {
    const loc = /^\s*(\d+): 0x[0-9a-f]+(?: M=\d+)? (.*)$/.exec(lines[i]);
    if (loc) {
      current = [loc[2].split(' ')[0]];
      functions.set(Number(loc[1]), current);
    } else current.push(lines[i].trim().split(' ')[0]); // a caller the line above was inlined into
  }
  return { columns, samples, functions };
}

/** pprof's `-raw` samples as folded stacks of the named column; `root` renames the root frame. */
function pprofStacks(rel: string, column: string, root?: (name: string) => string): Map<string, number> {
  const { columns, samples, functions } = readPprofRaw(text(rel));
  const c = columns.indexOf(column);
  expect(c).toBeGreaterThanOrEqual(0);
  const out = new Map<string, number>();
  for (const s of samples) {
    const frames: string[] = [];
    for (const l of s.locs) frames.push(...functions.get(l)!);
    frames.reverse();
    if (root) frames[0] = root(frames[0]);
    const k = frames.join(';');
    if (s.values[c] !== 0) out.set(k, (out.get(k) ?? 0) + s.values[c]);
  }
  return out;
}

const foldWith = (
  rel: string,
  spec: { sampleType?: string; labelFilters?: LabelFilter[]; groupBy?: string },
) => fold(load(rel), spec).profile;
const ours = (p: FoldedProfile) => stacksOf(toFoldedText(p));

describe('labels on a Go CPU profile (pprof.Do), against go tool pprof -raw', () => {
  const PB = 'pprof/labels/labels.pb.gz';
  const expected = (name: string) => pprofStacks(`pprof/labels/labels.${name}.raw.txt`, 'cpu/nanoseconds');
  const focus = (t: string) => parseLabelFilter(t, 'focus');
  const ignore = (t: string) => parseLabelFilter(t, 'ignore');

  it('has the labels, and folds without filters as pprof reads it', () => {
    const raw = load(PB).raw;
    expect(raw.labels?.map((l) => `${l.key}:${l.kind}`).sort()).toEqual(['phase:string', 'worker:string']);
    expect(sorted(ours(foldWith(PB, {})))).toEqual(sorted(expected('all')));
  });

  it.each([
    ['tagfocus-worker-alpha-gamma', [focus('worker=alpha,gamma')]],
    ['tagignore-worker-beta', [ignore('worker=beta')]],
    ['tagfocus-phase-sort', [focus('phase=sort')]],
    ['tagignore-phase-hash', [ignore('phase=hash')]],
    ['tagfocus-worker-gamma.tagignore-phase-sort', [focus('worker=gamma'), ignore('phase=sort')]],
    // as the page adds them: alpha, then gamma (one filter, either value; not two that both must hold)
    ['tagfocus-worker-alpha-gamma', addLabelValue([focus('worker=alpha')], 'focus', 'worker', 'gamma')],
    [
      'tagignore-worker-beta',
      addLabelValue(addLabelValue([], 'ignore', 'worker', 'beta'), 'ignore', 'worker', 'beta'),
    ],
  ])('%s keeps the stacks pprof keeps', (name, labelFilters) => {
    const p = foldWith(PB, { labelFilters });
    const want = expected(name);
    expect(want.size).toBeGreaterThan(0);
    expect(sorted(ours(p))).toEqual(sorted(want));
    const all = foldWith(PB, {}).meta.totalSamples;
    expect(p.meta.totalSamples + p.meta.labelDropped!.weight).toBe(all);
  });

  it('group by worker: roots worker=VALUE as pprof -tagroot=worker (its frame is the value alone)', () => {
    const want = pprofStacks(
      'pprof/labels/labels.tagroot-worker.raw.txt',
      'cpu/nanoseconds',
      (v) => `worker=${v || '(none)'}`,
    );
    const got = ours(foldWith(PB, { groupBy: 'worker' }));
    expect(sorted(got)).toEqual(sorted(want));
    const roots = new Set([...got.keys()].map((k) => k.split(';')[0]));
    expect([...roots].sort()).toEqual(['worker=(none)', 'worker=alpha', 'worker=beta', 'worker=gamma']);
  });

  it('labelSummary weighs each value as the samples pprof prints with it', () => {
    const { samples, columns } = readPprofRaw(text('pprof/labels/labels.all.raw.txt'));
    const c = columns.indexOf('cpu/nanoseconds');
    const byWorker = new Map<string, { samples: number; weight: number }>();
    for (const s of samples) {
      const m = /worker:\[(\w+)\]/.exec(s.labels);
      if (!m) continue;
      const e = byWorker.get(m[1]) ?? { samples: 0, weight: 0 };
      e.samples++;
      e.weight += s.values[c];
      byWorker.set(m[1], e);
    }
    const worker = labelSummary(load(PB).raw).find((l) => l.key === 'worker')!;
    expect(worker.values.map((v) => [v.value, { samples: v.samples, weight: v.weight }])).toEqual(
      [...byWorker].sort(([, a], [, b]) => b.weight - a.weight),
    );
  });
});

describe('numeric labels: Go heap `bytes`, against go tool pprof -raw ranges', () => {
  const PB = 'pprof/go/heap.pb.gz';
  const expected = (name: string) => pprofStacks(`pprof/labels/heap.${name}.raw.txt`, 'alloc_space/bytes');
  it.each([
    ['tagfocus-bytes-1kb-4kb', parseLabelFilter('bytes=1kb:4kb', 'focus')],
    ['tagfocus-bytes-64kb-', parseLabelFilter('bytes=64kb:', 'focus')],
    ['tagignore-bytes--512b', parseLabelFilter('bytes=:512b', 'ignore')],
    ['tagfocus-bytes-4kb', parseLabelFilter('bytes=4kb', 'focus')],
  ])('%s keeps the stacks pprof keeps', (name, f) => {
    const want = expected(name);
    expect(want.size).toBeGreaterThan(0);
    expect(sorted(ours(foldWith(PB, { sampleType: 'alloc_space', labelFilters: [f] })))).toEqual(
      sorted(want),
    );
  });
  it('a plain number matches the value (pprof: no sample, as the number has no unit)', () => {
    expect(expected('tagfocus-bytes-4096').size).toBe(0);
    const plain = foldWith(PB, {
      sampleType: 'alloc_space',
      labelFilters: [parseLabelFilter('bytes=4096', 'focus')],
    });
    expect(sorted(ours(plain))).toEqual(sorted(expected('tagfocus-bytes-4kb')));
  });
});

/** perf script text: per sample (a header line and at least one frame), its comm, pid and tid. */
function perfSamples(t: string): { comm: string; pid: string; tid: string }[] {
  const out: { comm: string; pid: string; tid: string }[] = [];
  let head: { comm: string; pid: string; tid: string } | null = null;
  let frames = 0;
  const flush = () => {
    if (head && frames > 0) out.push(head);
    head = null;
    frames = 0;
  };
  for (const line of t.split('\n')) {
    if (line.startsWith('#')) continue;
    if (line.trim() === '') flush();
    else if (/^\s/.test(line)) frames++;
    else {
      flush();
      const m = /^(\S+)\s+(?:(\d+)\/)?(\d+)\s/.exec(line);
      if (m) head = { comm: m[1], pid: m[2] ?? '', tid: m[3] };
    }
  }
  flush();
  return out;
}

describe('labels on perf script text (comm, pid, tid), against a count of the text', () => {
  const F = 'perf/mixed.perf.txt';
  const samples = perfSamples(text(F));
  const count = (pick: (s: (typeof samples)[number]) => boolean) => samples.filter(pick).length;
  const byComm = new Map<string, number>();
  for (const s of samples) byComm.set(s.comm, (byComm.get(s.comm) ?? 0) + 1);

  it('group by comm: one root per process, with its number of samples', () => {
    expect(byComm.size).toBe(3);
    const p = foldWith(F, { sampleType: 'samples', groupBy: 'comm' });
    const roots = new Map<string, number>();
    for (const [k, w] of ours(p)) {
      const r = k.split(';')[0];
      roots.set(r, (roots.get(r) ?? 0) + w);
    }
    expect(sorted(roots)).toEqual(sorted(new Map([...byComm].map(([c, n]) => [`comm=${c}`, n]))));
    // under each root, exactly the stacks a focus on that comm keeps
    for (const comm of byComm.keys()) {
      const focused = ours(
        foldWith(F, { sampleType: 'samples', labelFilters: [parseLabelFilter(`comm=${comm}`, 'focus')] }),
      );
      const under = new Map(
        [...ours(p)]
          .filter(([k]) => k.startsWith(`comm=${comm};`))
          .map(([k, w]) => [k.slice(comm.length + 6), w]),
      );
      expect(sorted(under)).toEqual(sorted(focused));
    }
  });

  it('tagfocus and tagignore keep and drop exactly the samples with those values', () => {
    const total = (labelFilters: LabelFilter[]) =>
      foldWith(F, { sampleType: 'samples', labelFilters }).meta.totalSamples;
    expect(total([parseLabelFilter('comm=sorter,sh', 'focus')])).toBe(count((s) => s.comm !== 'xz'));
    expect(total([parseLabelFilter('comm=xz', 'ignore')])).toBe(count((s) => s.comm !== 'xz'));
    const tid = samples.find((s) => s.comm === 'xz')!.tid;
    expect(total([parseLabelFilter(`tid=${tid}`, 'focus')])).toBe(count((s) => s.tid === tid));
    expect(total([parseLabelFilter(`tid=${tid}`, 'ignore')])).toBe(count((s) => s.tid !== tid));
    // a numeric range over the tid strings
    const lo = Number(tid) - 1;
    expect(total([parseLabelFilter(`tid=${lo}:${tid}`, 'focus')])).toBe(
      count((s) => Number(s.tid) >= lo && Number(s.tid) <= Number(tid)),
    );
    expect(total([parseLabelFilter('pid=1:1', 'focus')])).toBe(0);
  });

  it('a file without pids (perf script -F comm,tid…) has comm and tid, no pid', () => {
    const raw = load('perf/sorter.perf.txt').raw;
    expect(raw.labels?.map((l) => l.key)).toEqual(['comm', 'tid']);
    const p = foldWith('perf/sorter.perf.txt', { sampleType: 'samples', groupBy: 'tid' });
    const s = perfSamples(text('perf/sorter.perf.txt'));
    expect([...new Set([...ours(p).keys()].map((k) => k.split(';')[0]))]).toEqual([`tid=${s[0].tid}`]);
    expect(p.meta.totalSamples).toBe(s.length);
  });
});

describe('numeric labels on gperftools heap profiles (average block size per record)', () => {
  /** The heap text's records: weight (in-use bytes, unsampled here) and average block size. */
  function heapRecords(t: string) {
    const out: { inuseBytes: number; bytes: number }[] = [];
    for (const line of t.split('\n')) {
      const m = /^\s*(\d+):\s*(\d+)\s*\[\s*(\d+):\s*(\d+)\]\s*@/.exec(line);
      if (!m || line.includes('heapprofile')) continue;
      const [n1, b1, n2, b2] = m.slice(1).map(Number);
      out.push({
        inuseBytes: b1,
        bytes: n1 !== 0 ? Math.trunc(b1 / n1) : n2 !== 0 ? Math.trunc(b2 / n2) : 0,
      });
    }
    return out;
  }
  it.each(['heap/xz.0001.heap', 'heap/allocs.0004.heap'])(
    '%s: bytes ranges keep the records in them',
    (F) => {
      const header = text(F).split('\n')[0];
      expect(header).toMatch(/@ heapprofile$/); // no sampling: weights are the file's numbers
      const records = heapRecords(text(F));
      for (const spec of ['1kb:64kb', '4kb:', ':512', '16000']) {
        const f = parseLabelFilter(`bytes=${spec}`, 'focus');
        const [lo, hi] =
          'values' in f
            ? [Number(f.values[0]), Number(f.values[0])]
            : [f.min ?? -Infinity, f.max ?? Infinity];
        const inRange = records.filter((r) => r.bytes >= lo && r.bytes <= hi);
        const p = foldWith(F, { sampleType: 'inuse_space', labelFilters: [f] });
        const want = inRange.reduce((a, r) => a + r.inuseBytes, 0);
        expect([spec, p.meta.totalSamples]).toEqual([spec, want]);
        const q = foldWith(F, { sampleType: 'inuse_space', labelFilters: [{ ...f, op: 'ignore' }] });
        expect(q.meta.totalSamples).toBe(records.reduce((a, r) => a + r.inuseBytes, 0) - want);
      }
    },
  );
});

describe('CLI', () => {
  it('fold --group-by, --tagfocus, --tagignore; info lists labels and the filters applied', async () => {
    const F = path('perf/mixed.perf.txt');
    const g = await runCli([
      'fold',
      '--sample-type',
      'samples',
      '--group-by',
      'comm',
      '--tagignore',
      'comm=xz',
      F,
    ]);
    expect(g.code).toBe(0);
    expect(
      g.out
        .split('\n')
        .filter(Boolean)
        .every((l) => /^comm=(sorter|sh);/.test(l)),
    ).toBe(true);
    const i = await runCli([
      'info',
      '--sample-type',
      'samples',
      '--tagfocus',
      'comm=sorter',
      '--tagfocus',
      'tid=1:99999999',
      F,
    ]);
    const j = JSON.parse(i.out);
    expect(j.labels.map((l: { key: string }) => l.key)).toEqual(['comm', 'pid', 'tid', 'cpu']);
    expect(j.labels[0].values[0]).toEqual({ value: 'xz', samples: 3061, weight: 3061 });
    expect(j.labelFilters).toEqual([
      { key: 'comm', op: 'focus', values: ['sorter'] },
      { key: 'tid', op: 'focus', min: 1, max: 99999999 },
    ]);
    expect(j.samples).toBe(346);
    expect(j.labelDropped).toEqual({ samples: 3062, weight: 3062 });
    expect(j.groupBy).toBeNull();
    const heap = JSON.parse((await runCli(['info', path('pprof/go/heap.pb.gz')])).out);
    expect(heap.labels[0]).toMatchObject({ key: 'bytes', kind: 'number' });
    expect(heap.labels[0].values).toHaveLength(10);
  });
  it('a filter that is not KEY=VALUE is a usage error', async () => {
    const r = await runCli(['fold', '--tagfocus', 'comm', path('perf/mixed.perf.txt')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/label filter "comm" is not KEY=VALUE/);
    expect((await runCli(['fold', '--group-by=', path('perf/mixed.perf.txt')])).code).toBe(2);
  });
});
