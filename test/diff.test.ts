// The diff view's core on real profiles: two workloads of one program recorded by libprofiler
// (test/fixtures/diff, made by test/fixtures/src/make_diff_fixtures.sh). Each node's and each
// function's counts on both sides equal what each side's own folded output says (counted by
// test/helpers/folded-diff.ts, not by the diff code); diff(A, A) changes nothing; swapping the
// sides negates every change.

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  chainOf,
  depthOf,
  firstChildOf,
  nextSiblingOf,
  pathToNode,
  totalOf,
} from '../src/core/model/calltree';
import { deltaOf, functionChanges } from '../src/core/model/diff';
import { findFrame, frameNames } from '../src/core/model/frames';
import { toFoldedText } from '../src/core/model/serialize';
import { analyzeDiff, runPipeline } from '../src/core/pipeline';
import { loadDemangler } from '../src/core/symbols/demangle';
import { frameName } from '../src/core/text/frame-text';
import type { FoldedProfile } from '../src/core/types';
import { countsOfFolded } from './helpers/folded-diff';

const DIR = 'test/fixtures/diff';
const read = (f: string) => new Uint8Array(readFileSync(`${DIR}/${f}`));
const binary = { name: 'workload', bytes: read('bin/workload') };

async function folded(file: string): Promise<FoldedProfile> {
  const r = await runPipeline(read(file), file, {
    symbolFiles: [binary],
    loadDemangler: () => loadDemangler(),
  });
  return r.base;
}

let A: FoldedProfile;
let B: FoldedProfile;
beforeAll(async () => {
  A = await folded('workload_a.prof');
  B = await folded('workload_b.prof');
});

const view = { transforms: [], inverted: false };
type DiffA = ReturnType<typeof analyzeDiff>;

/** Every node: its path of names, and both sides' totals. */
function nodes(a: DiffA): { path: string; comp: number; base: number; width: number }[] {
  const out: { path: string; comp: number; base: number; width: number }[] = [];
  const { tree, profile, diff } = a;
  const stack = [0];
  while (stack.length > 0) {
    const v = stack.pop()!;
    if (v > 0) {
      const c = chainOf(tree, v);
      out.push({
        path: pathToNode(tree, v)
          .map((f) => frameName(profile.frames, f))
          .join(';'),
        comp: diff!.comp.total[c],
        base: diff!.base.total[c],
        width: totalOf(tree, v),
      });
    }
    for (let k = firstChildOf(tree, v); k !== -1; k = nextSiblingOf(tree, k)) stack.push(k);
  }
  return out;
}

describe('diff of two real profiles', () => {
  it('per path: both sides equal each side’s own folded output', () => {
    const a = analyzeDiff(B, A, { ...view, width: 'comparison' });
    const base = countsOfFolded(toFoldedText(A));
    const comp = countsOfFolded(toFoldedText(B));
    const all = nodes(a);
    expect(all.length).toBeGreaterThan(20);
    for (const n of all) {
      expect([n.path, n.comp]).toEqual([n.path, comp.paths.get(n.path) ?? 0]);
      expect([n.path, n.base]).toEqual([n.path, base.paths.get(n.path) ?? 0]);
      expect(n.width).toBe(n.comp);
    }
    // Every path of either side is a node.
    const seen = new Set(all.map((n) => n.path));
    for (const p of [...base.paths.keys(), ...comp.paths.keys()]) expect(seen.has(p)).toBe(true);
    expect(a.diff!.comp.whole).toBe(comp.whole);
    expect(a.diff!.base.whole).toBe(base.whole);
    // Paths only in one side exist: workload b sorts more, a hashes more.
    expect(all.some((n) => n.base === 0 && n.comp > 0)).toBe(true);
  });

  it('per function: self and total of both sides', () => {
    const a = analyzeDiff(B, A, { ...view, width: 'both' });
    const base = countsOfFolded(toFoldedText(A));
    const comp = countsOfFolded(toFoldedText(B));
    const names = frameNames(a.profile.frames);
    for (let f = 0; f < names.length; f++) {
      expect([names[f], a.diff!.compFunctions.self[f], a.diff!.compFunctions.total[f]]).toEqual([
        names[f],
        comp.self.get(names[f]) ?? 0,
        comp.total.get(names[f]) ?? 0,
      ]);
      expect([names[f], a.diff!.baseFunctions.self[f], a.diff!.baseFunctions.total[f]]).toEqual([
        names[f],
        base.self.get(names[f]) ?? 0,
        base.total.get(names[f]) ?? 0,
      ]);
    }
    // Width 'both': vanished paths keep a width.
    for (const n of nodes(a)) expect(n.width).toBe(n.comp + n.base);
  });

  it('per function: the table’s change of self, in samples or in share of each side, and relative to the baseline', () => {
    const a = analyzeDiff(B, A, { ...view, width: 'comparison' });
    const base = countsOfFolded(toFoldedText(A));
    const comp = countsOfFolded(toFoldedText(B));
    const wholeOf = (c: typeof base) => [...c.self.values()].reduce((t, v) => t + v, 0);
    const [bw, cw] = [wholeOf(base), wholeOf(comp)];
    const d = a.diff!;
    const samples = functionChanges(d.baseFunctions, d.compFunctions, d.base.whole, d.comp.whole, false);
    const shares = functionChanges(d.baseFunctions, d.compFunctions, d.base.whole, d.comp.whole, true);
    const names = frameNames(a.profile.frames);
    for (let f = 0; f < names.length; f++) {
      const b = base.self.get(names[f]) ?? 0;
      const c = comp.self.get(names[f]) ?? 0;
      expect([names[f], samples.delta[f]]).toEqual([names[f], c - b]);
      expect(shares.delta[f]).toBeCloseTo(c / cw - b / bw, 12);
      if (b > 0) {
        expect(samples.relative[f]).toBeCloseTo(((c - b) / b) * 100, 9);
        expect(shares.relative[f]).toBeCloseTo(((c / cw - b / bw) / (b / bw)) * 100, 9);
      } else {
        expect(samples.relative[f]).toBe(c > 0 ? Number.POSITIVE_INFINITY : 0);
      }
    }
    // Different sample counts: the shares tell another story than the samples.
    expect(bw).not.toBe(cw);
    expect(names.some((_, f) => Math.sign(samples.delta[f]) !== Math.sign(shares.delta[f]))).toBe(true);
    // A function only in the comparison is new (Infinity); one in neither did not change.
    const table = (self: number[]) => ({
      count: 2,
      self: Float64Array.from(self),
      total: Float64Array.from(self),
    });
    const only = functionChanges(table([0, 0]), table([3, 0]), 10, 10, true);
    expect([...only.relative]).toEqual([Number.POSITIVE_INFINITY, 0]);
    expect(only.delta[0]).toBeCloseTo(0.3, 12);
  });

  it('diff(A, A) changes nothing; swapping the sides negates every change', () => {
    const same = analyzeDiff(A, A, { ...view, width: 'comparison' });
    for (const n of nodes(same)) {
      expect(n.comp).toBe(n.base);
      expect(deltaOf(n.comp, n.base, same.diff!.comp.whole, same.diff!.base.whole, true)).toBe(0);
    }
    const ab = analyzeDiff(B, A, { ...view, width: 'both' });
    const ba = analyzeDiff(A, B, { ...view, width: 'both' });
    const d = (a: DiffA) =>
      new Map(
        nodes(a).map((n) => [n.path, deltaOf(n.comp, n.base, a.diff!.comp.whole, a.diff!.base.whole, true)]),
      );
    const x = d(ab);
    const y = d(ba);
    expect(x.size).toBe(y.size);
    for (const [path, v] of x) expect(y.get(path)).toBeCloseTo(-v, 12);
  });

  it('applies transforms and inversion to both sides alike', () => {
    const hidden = analyzeDiff(B, A, {
      transforms: [{ kind: 'hide-function', name: 'main' }],
      inverted: true,
      width: 'both',
    });
    expect(frameNames(hidden.profile.frames)).not.toContain('main');
    // Inverted: the roots are leaves; the table still counts functions as the un-inverted sides do.
    const t = hidden.tree;
    for (let k = firstChildOf(t, 0); k !== -1; k = nextSiblingOf(t, k)) expect(depthOf(t, k)).toBe(1);
    const mix = findFrame(hidden.profile.frames, 'mix');
    expect(hidden.diff!.baseFunctions.self[mix]).toBe(countsOfFolded(toFoldedText(A)).self.get('mix'));
  });
});

describe('differential folded text (difffolded.pl) and `flamelens diff`', () => {
  it('prints both sides’ counts per stack, equal to each side’s own fold; --normalize scales the baseline', async () => {
    const { runCli } = await import('./helpers/cli');
    const bin = `${DIR}/bin/workload`;
    const diff = await runCli(['diff', `${DIR}/workload_a.prof`, `${DIR}/workload_b.prof`, '--binary', bin]);
    expect(diff.code).toBe(0);
    const a = await runCli(['fold', `${DIR}/workload_a.prof`, '--binary', bin]);
    const b = await runCli(['fold', `${DIR}/workload_b.prof`, '--binary', bin]);
    const counts = (text: string) =>
      new Map(
        text
          .trim()
          .split('\n')
          .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
      );
    const ca = counts(a.out);
    const cb = counts(b.out);
    const lines = diff.out.trim().split('\n');
    expect(lines.length).toBe(new Set([...ca.keys(), ...cb.keys()]).size);
    for (const line of lines) {
      const [stack, base, comp] = line.split(/ (?=\d+ \d+$)| (?=\d+$)/);
      expect([stack, Number(base), Number(comp)]).toEqual([stack, ca.get(stack) ?? 0, cb.get(stack) ?? 0]);
    }
    const norm = await runCli([
      'diff',
      '--normalize',
      `${DIR}/workload_a.prof`,
      `${DIR}/workload_b.prof`,
      '--binary',
      bin,
    ]);
    const sum = (i: number) =>
      norm.out
        .trim()
        .split('\n')
        .reduce((t, l) => t + Number(l.split(' ').at(i)), 0);
    // Truncated per line: short of the comparison's total by less than one per line.
    expect(sum(-1) - sum(-2)).toBeGreaterThanOrEqual(0);
    expect(sum(-1) - sum(-2)).toBeLessThan(lines.length);
  });

  it('equals difffolded.pl on the same stacks; --normalize truncates as its -n does', async () => {
    const { runCli } = await import('./helpers/cli');
    const A = `${DIR}/workload_a.pprof-collapsed.txt`;
    const B = `${DIR}/workload_b.pprof-collapsed.txt`;
    // difffolded.pl's lines (make_difffolded_fixtures.sh), names without google-pprof's address
    // tags (`main<00000000000011f9>`), which the folded reader leaves out.
    const lines = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((l) => l.replace(/<[0-9a-f]{16}>/g, ''))
        .sort();
    for (const [flags, oracle] of [
      [[], 'workload.difffolded.txt'],
      [['--normalize'], 'workload.difffolded-n.txt'],
    ] as const) {
      const r = await runCli(['diff', ...flags, A, B]);
      expect(r.code, r.err).toBe(0);
      expect(lines(r.out), oracle).toEqual(lines(readFileSync(`${DIR}/${oracle}`, 'utf8')));
    }
    // The totals differ (146 vs 116 samples), so -n scaled: a line that rounding would give 89
    // and truncation 88 tells them apart.
    expect(readFileSync(`${DIR}/workload.difffolded-n.txt`, 'utf8')).toMatch(
      /;hash_blocks<[0-9a-f]+>;mix<[0-9a-f]+> 88 27$/m,
    );
  });

  it('warns when the sides measure different things: CPU time against heap bytes, nanoseconds against samples', async () => {
    const { runCli } = await import('./helpers/cli');
    const F = 'test/fixtures';
    const cases: [string[], RegExp | null][] = [
      [
        [`${F}/gperf/tiny.prof`, `${F}/heap/xz.0001.heap`],
        /the baseline sums samples \(count\), the comparison inuse_space \(bytes\)/,
      ],
      [[`${F}/heap/xz.0001.heap`, `${F}/heap/xz.0001.heap`, '--sample-type', 'alloc_space'], null],
      [
        [`${F}/gperf/tiny.prof`, `${F}/perf/sorter.perf.txt`],
        /the baseline sums samples \(count\), the comparison cpu-clock \(nanoseconds\)/,
      ],
      // Both sides counting samples, or both CPU nanoseconds under their own names, compare.
      [[`${F}/gperf/tiny.prof`, `${F}/perf/sorter.perf.txt`, '--sample-type', 'samples'], null],
      [[`${F}/pprof/corpus/tiny.pb.gz`, `${F}/perf/sorter.perf.txt`], null],
      [[`${DIR}/workload_a.prof`, `${DIR}/workload_b.prof`], null],
    ];
    for (const [args, warning] of cases) {
      const r = await runCli(['diff', ...args]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).not.toBe('');
      if (warning === null) expect(r.err, args.join(' ')).toBe('');
      else expect(r.err, args.join(' ')).toMatch(new RegExp(`^flamelens: warning: ${warning.source}.*\n$`));
    }
  });

  it('a two-count folded file opens as the comparison it describes', async () => {
    const { runCli } = await import('./helpers/cli');
    const { AnalysisSession } = await import('../src/core/analysis/session');
    const { DEFAULT_VIEW, workerViewOf } = await import('../src/core/view/schema');
    const bin = `${DIR}/bin/workload`;
    const text = (await runCli(['diff', `${DIR}/workload_a.prof`, `${DIR}/workload_b.prof`, '--binary', bin]))
      .out;
    const s = new AnalysisSession();
    const r = await s.add(
      [{ name: 'ab.diff.folded', bytes: new TextEncoder().encode(text) }],
      workerViewOf(DEFAULT_VIEW),
    );
    expect(r.mode).toBe('diff');
    const d = r.analysis!.diff!;
    expect(d.base.whole).toBe(countsOfFolded(toFoldedText(A)).whole);
    expect(d.comp.whole).toBe(countsOfFolded(toFoldedText(B)).whole);
    expect(d.baseMeta.fileName).toBe('ab.diff.folded (baseline)');
    // Exported again from the session: the same text; through a zoomed frame, its lines only.
    expect(s.foldedParts([]).join('')).toBe(text);
    const t = r.analysis!.tree;
    const node = firstChildOf(t, firstChildOf(t, 0)); // _start's heaviest child
    const path = pathToNode(t, node);
    const prefix = `${path.map((f) => frameName(r.analysis!.profile.frames, f)).join(';')};`;
    const through = text.split('\n').filter((l) => l.startsWith(prefix));
    expect(through.length).toBeGreaterThan(0);
    expect(s.foldedParts(path).join('')).toBe(`${through.join('\n')}\n`);
  });
});

describe('the analysis session compares', () => {
  it('opens, compares, swaps, and keeps the first profile when the second is bad', async () => {
    const { AnalysisSession } = await import('../src/core/analysis/session');
    const { DEFAULT_VIEW, workerViewOf } = await import('../src/core/view/schema');
    const s = new AnalysisSession();
    const v = workerViewOf(DEFAULT_VIEW);
    await s.add([{ name: 'workload_b.prof', bytes: read('workload_b.prof') }, binary], v);
    await expect(
      s.add(
        [{ name: 'junk.prof', bytes: read('bin/workload').slice(0, 10) }],
        { ...v, mode: 'diff' },
        { slot: 'base' },
      ),
    ).rejects.toThrow();
    const still = await s.apply({ ...v, inverted: true });
    expect(still.analysis!.diff).toBeUndefined();
    const cmp = await s.add(
      [{ name: 'workload_a.prof', bytes: read('workload_a.prof') }],
      { ...v, mode: 'diff' },
      { slot: 'base' },
    );
    expect(cmp.analysis!.diff!.baseMeta.fileName).toBe('workload_a.prof');
    const sw = await s.swap({ ...v, mode: 'diff' });
    expect(sw.analysis!.diff!.baseMeta.fileName).toBe('workload_b.prof');
    expect(sw.analysis!.profile.meta.fileName).toBe('workload_a.prof');
  });
});

describe('a comparison’s sandwich', () => {
  it('merges both sides’ callers and callees; each side’s totals are its own sandwich’s', async () => {
    const { diffSandwichAnalysis, sandwichAnalysis } = await import('../src/core/pipeline');
    const d = diffSandwichAnalysis(B, A, [], 'mix', 'both');
    const own = (p: FoldedProfile) => sandwichAnalysis(p, [], 'mix');
    const a = own(A);
    const b = own(B);
    expect(d.callees.diff.base.whole).toBe(a.total);
    expect(d.callees.diff.comp.whole).toBe(b.total);
    expect(d.callers.diff.base.whole).toBe(a.total);
    expect(d.callers.diff.comp.whole).toBe(b.total);
    // Each merged caller path carries each side's own count of that path.
    const callers = (p: FoldedProfile) => countsOfFolded(toFoldedText(own(p).callers.profile)).paths;
    const ca = callers(A);
    const cb = callers(B);
    const t = d.callers.tree;
    for (let v = 1; v < t.count; v++) {
      const path = pathToNode(t, v)
        .map((f) => frameName(d.callers.profile.frames, f))
        .join(';');
      expect([
        path,
        d.callers.diff.base.total[chainOf(t, v)],
        d.callers.diff.comp.total[chainOf(t, v)],
      ]).toEqual([path, ca.get(path) ?? 0, cb.get(path) ?? 0]);
    }
  });
});
