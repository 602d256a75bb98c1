// The diff view's core on real profiles: two workloads of one program recorded by libprofiler
// (test/fixtures/diff, made by test/fixtures/src/make_diff_fixtures.sh). Each node's and each
// function's counts on both sides equal what each side's own folded output says (counted by
// test/helpers/folded-diff.ts, not by the diff code); diff(A, A) changes nothing; swapping the
// sides negates every change.

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { depthOf, firstChildOf, nextSiblingOf, pathToNode, totalOf } from '../src/core/model/calltree';
import { deltaOf } from '../src/core/model/diff';
import { toFoldedText } from '../src/core/model/serialize';
import { analyzeDiff, runPipeline } from '../src/core/pipeline';
import { loadDemangler } from '../src/core/symbols/demangle';
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
      const c = tree.chain[v];
      out.push({
        path: pathToNode(tree, v)
          .map((f) => profile.frames.name[f])
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
    const names = a.profile.frames.name;
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
    expect(hidden.profile.frames.name).not.toContain('main');
    // Inverted: the roots are leaves; the table still counts functions as the un-inverted sides do.
    const t = hidden.tree;
    for (let k = firstChildOf(t, 0); k !== -1; k = nextSiblingOf(t, k)) expect(depthOf(t, k)).toBe(1);
    const mix = hidden.profile.frames.name.indexOf('mix');
    expect(hidden.diff!.baseFunctions.self[mix]).toBe(countsOfFolded(toFoldedText(A)).self.get('mix'));
  });
});
