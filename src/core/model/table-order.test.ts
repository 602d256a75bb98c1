// The function table's order: the default order from the worker is the sort's own, and the order
// made a slice at a time is the order of one plain filter and stable sort, for every column.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyze, fold, parse } from '../pipeline';
import type { FunctionTable } from './calltree';
import { functionFrames } from './frames';
import { functionsBySelf } from './functions';
import { orderWork, type SortKey, sortFunctions, type TableQuery, type TableSource } from './table-order';

/** The order as one filter in frame-id order and one stable Array sort (the table's before slices). */
function plainOrder(a: TableSource, q: TableQuery): number[] {
  const { functions: fn, profile } = a;
  const names = (f: number) => (profile.frames.ownName[f] ?? '') as string;
  const mod = (f: number) => profile.modules[profile.frames.module[f]] ?? '';
  const base = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  const needle = q.filter.trim().toLowerCase();
  const ids: number[] = [];
  for (let f = 0; f < fn.count; f++) {
    if (fn.total[f] <= 0 || q.exclude?.[f]) continue;
    if (needle && !names(f).toLowerCase().includes(needle) && !base(mod(f)).toLowerCase().includes(needle))
      continue;
    ids.push(f);
  }
  const s = q.desc ? -1 : 1;
  const str = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const cmp: Partial<Record<SortKey, (x: number, y: number) => number>> = {
    name: (x, y) => s * str(names(x), names(y)),
    module: (x, y) => s * str(mod(x), mod(y)) || str(names(x), names(y)),
    self: (x, y) => s * (fn.self[x] - fn.self[y]) || fn.total[y] - fn.total[x],
    total: (x, y) => s * (fn.total[x] - fn.total[y]) || fn.self[y] - fn.self[x],
  };
  return ids.sort(cmp[q.key]);
}

/** A table of `n` functions with few distinct names, modules and weights: many ties. */
function synthetic(n: number): TableSource {
  let seed = 7;
  const rand = (k: number) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed % k;
  };
  const names = Array.from({ length: n }, () => `fn_${rand(n >> 3)}`);
  const module = Int32Array.from({ length: n }, () => rand(3));
  const self = Float64Array.from({ length: n }, () => rand(40));
  const total = Float64Array.from(self, (v) => v + rand(3) * rand(50));
  const functions: FunctionTable = { count: n, self, total };
  return {
    functions,
    profile: { frames: functionFrames(names, module), modules: ['/lib/a.so', '/bin/B', 'c'] },
  };
}

/** Runs the work in the smallest slices (a deadline already past): each step one check's worth. */
function sliced(a: TableSource, q: TableQuery): { order: Int32Array; steps: number; progress: number[] } {
  const work = orderWork(a, q);
  const progress: number[] = [];
  for (let steps = 1; ; steps++) {
    const order = work.step(0);
    progress.push(work.progress);
    if (order) return { order, steps, progress };
  }
}

describe('the table order', () => {
  it('by self from the worker equals the page sort by self', () => {
    const loaded = parse(new Uint8Array(readFileSync('test/fixtures/debian/xz.prof')), 'xz.prof', {
      granularity: 'addresses',
    });
    const a = analyze(fold(loaded, { granularity: 'addresses' }).profile, {
      transforms: [],
      inverted: false,
    });
    expect(a.functions.bySelf?.length).toBeGreaterThan(100);
    const fast = sortFunctions(a, { key: 'self', desc: true, filter: '' });
    const slow = sortFunctions(
      { ...a, functions: { ...a.functions, bySelf: undefined } },
      { key: 'self', desc: true, filter: '' },
    );
    expect(Array.from(fast)).toEqual(Array.from(slow));
    // Filtered or ascending: sorted in the page.
    expect(sortFunctions(a, { key: 'self', desc: false, filter: '' })).not.toBe(a.functions.bySelf);
  });

  it('made a slice at a time, is one plain filter and stable sort, for every column and direction', () => {
    const plain = synthetic(20_000);
    // with the worker's order by self, which a sort by self reads instead of sorting
    const ordered = { ...plain, functions: { ...plain.functions, bySelf: functionsBySelf(plain.functions) } };
    const exclude = Uint8Array.from({ length: 20_000 }, (_, i) => (i % 7 === 0 ? 1 : 0));
    for (const a of [plain, ordered])
      for (const key of ['name', 'module', 'self', 'total'] as const)
        for (const desc of [false, true])
          for (const filter of ['', 'FN_1', 'b'])
            for (const ex of [undefined, exclude]) {
              const q: TableQuery = { key, desc, filter, exclude: ex };
              const want = plainOrder(a, q);
              const { order, steps, progress } = sliced(a, q);
              expect(Array.from(order), `${key} ${desc} '${filter}'`).toEqual(want);
              expect(Array.from(sortFunctions(a, q))).toEqual(want);
              // in slices (the filter alone looks at the clock every 4096 rows), each further on, ending at 1
              expect(steps).toBeGreaterThanOrEqual(
                a === ordered && key === 'self' && desc && !filter && !ex ? 1 : 5,
              );
              for (let i = 1; i < progress.length; i++)
                expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]);
              expect(progress.at(-1)).toBe(1);
            }
  });

  it('by total, orders a flat table (self is total but for a few callers) as the sort by both does', () => {
    const n = 30_000;
    const flat = synthetic(n);
    const { self, total } = flat.functions;
    for (let f = 0; f < n; f++) total[f] = self[f] = 1 + (f % 50);
    // an image above all, its self 0: no tie; then callers tying with addresses and with each other
    const cases: [number, number][][] = [
      [[0, 1e12]],
      [
        [0, 1e12],
        [5, 1e9],
      ],
      [
        [0, 1e12],
        [3, 20],
      ],
      [
        [2, 1e9],
        [7, 1e9],
      ],
    ];
    for (const callers of cases) {
      const a = { ...flat, functions: { count: n, self: self.slice(), total: total.slice() } };
      callers.forEach(([s, t], k) => {
        a.functions.self[100 + k] = s;
        a.functions.total[100 + k] = t;
      });
      for (const desc of [false, true]) {
        const q: TableQuery = { key: 'total', desc, filter: '' };
        expect(Array.from(sortFunctions(a, q)), JSON.stringify(callers)).toEqual(plainOrder(a, q));
      }
    }
  });

  it("orders a comparison's columns as one stable sort by their comparisons", () => {
    const n = 12_000;
    const comp = synthetic(n);
    let seed = 3;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % k;
    };
    const baseSelf = Float64Array.from({ length: n }, () => rand(30));
    const baseFunctions: FunctionTable = {
      count: n,
      self: baseSelf,
      total: Float64Array.from(baseSelf, (v) => v + rand(20)),
    };
    // rows on one side only: no samples in the comparison, or none in the baseline
    for (let f = 0; f < n; f += 9) comp.functions.total[f] = comp.functions.self[f] = 0;
    for (let f = 4; f < n; f += 11) baseFunctions.total[f] = baseFunctions.self[f] = 0;
    const delta = Float64Array.from({ length: n }, () => (rand(41) - 20) / 7);
    const relative = Float64Array.from(delta, (d, f) => (f % 13 === 0 ? Number.POSITIVE_INFINITY : d * 3));
    const a: TableSource = { ...comp, diff: { baseFunctions, base: { whole: 1 }, comp: { whole: 1 } } };
    const b = baseFunctions;
    const cmp = {
      baseSelf: (x: number, y: number) => b.self[x] - b.self[y],
      baseTotal: (x: number, y: number) => b.total[x] - b.total[y],
      delta: (x: number, y: number) => Math.abs(delta[x]) - Math.abs(delta[y]),
      deltaPct: (x: number, y: number) => relative[x] - relative[y] || 0,
    };
    for (const key of ['baseSelf', 'baseTotal', 'delta', 'deltaPct'] as const)
      for (const desc of [false, true]) {
        const ids: number[] = [];
        for (let f = 0; f < n; f++) if (comp.functions.total[f] > 0 || b.total[f] > 0) ids.push(f);
        const s = desc ? -1 : 1;
        ids.sort((x, y) => s * cmp[key](x, y));
        const q: TableQuery = { key, desc, filter: '', changes: { delta, relative } };
        expect(Array.from(sliced(a, q).order), `${key} ${desc}`).toEqual(ids);
      }
  });

  it('orders tables of one row, of none, and of a run and a bit', () => {
    for (const n of [0, 1, 2047, 2048, 2049, 4097]) {
      const a = synthetic(n);
      for (const key of ['name', 'self'] as const) {
        const q: TableQuery = { key, desc: false, filter: '' };
        expect(Array.from(sliced(a, q).order)).toEqual(plainOrder(a, q));
      }
    }
  });

  it('leaves the work where its deadline finds it, and goes on from there', () => {
    const a = synthetic(50_000);
    const work = orderWork(a, { key: 'name', desc: false, filter: '' });
    expect(work.step(0)).toBeNull();
    expect(work.progress).toBeGreaterThan(0);
    expect(work.progress).toBeLessThan(0.2);
    const order = work.step(Number.POSITIVE_INFINITY);
    expect(Array.from(order ?? [])).toEqual(plainOrder(a, { key: 'name', desc: false, filter: '' }));
  });
});
