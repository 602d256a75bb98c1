import { describe, expect, it } from 'vitest';
import { makeTextBenchInput } from '../../bench/gen-text';
import { prng } from '../../test/helpers/prng';
import { treeFunctionTable } from '../../test/helpers/tree';
import { parseFolded } from './formats/folded';
import { FOLDED_SAMPLING, previewOfSample, sampledText, weighedUp } from './formats/text-preview';
import { buildCallTree, firstChildOf, nextSiblingOf, totalOf } from './model/calltree';
import { foldProfile } from './model/fold';
import { findFrame } from './model/frames';
import { withSampleType } from './model/sample-types';
import { profileFromText } from './model/text-notation';
import { invertProfile } from './model/views';
import { analyzeDiff, baselineName, previewAnalysis, treeAndFunctions } from './pipeline';
import { frameName } from './text/frame-text';
import type { FoldedProfile } from './types';

/** n distinct stacks of `depth` frames: main → one of 4 workers → a seeded random chain. */
function wide(n: number, depth: number): FoldedProfile {
  const rnd = prng(11);
  const lines: string[] = [];
  for (let s = 0; s < n; s++) {
    const chain = ['main', `worker${s % 4}`];
    for (let d = 2; d < depth; d++) chain.push(`f${Math.floor(rnd() * 500)}`);
    lines.push(`${chain.join(';')} ${1 + (s % 3)}`);
  }
  return profileFromText(lines.join('\n'));
}

describe('treeAndFunctions', () => {
  it('builds small profiles whole, with the table of the same walk', () => {
    const p = profileFromText('main;a;b 3\nmain;c 2');
    let previewed = false;
    const { tree, functions } = treeAndFunctions(p, { preview: () => (previewed = true) });
    expect(previewed).toBe(false);
    expect(totalOf(tree, 0)).toBe(5);
    expect(Array.from(functions.total)).toEqual(
      Array.from(treeFunctionTable(buildCallTree(p), p.frames.count).total),
    );
  });

  it('previews a large profile with a coarse tree that agrees with the full one where it has nodes', () => {
    const p = wide(12_000, 100); // 1.2M frames
    let coarse: ReturnType<typeof buildCallTree> | null = null;
    const full = treeAndFunctions(p, { preview: (t) => (coarse = t) });
    expect(coarse).not.toBeNull();
    const c = coarse!;
    expect(c.count).toBeLessThan(full.tree.count / 100);
    expect(totalOf(c, 0)).toBe(totalOf(full.tree, 0));
    expect(c.maxDepth).toBe(full.tree.maxDepth);
    // The root's children (main) and grandchildren (the workers) are heavy: same totals.
    const kids = (t: typeof c, v: number) => {
      const out: string[] = [];
      for (let k = firstChildOf(t, v); k !== -1; k = nextSiblingOf(t, k))
        out.push(`${frameName(p.frames, t.frame[k])}=${totalOf(t, k)}`);
      return out;
    };
    expect(kids(c, firstChildOf(c, 0))).toEqual(kids(full.tree, firstChildOf(full.tree, 0)));
  });

  it('an inverted graph gets the function table of the profile it came from', () => {
    const p = profileFromText('main;r;r 4\nmain;x 1');
    const { functions } = treeAndFunctions(invertProfile(p), { table: p });
    expect(functions.total[findFrame(p.frames, 'main')]).toBe(5);
    expect(functions.total[findFrame(p.frames, 'r')]).toBe(4);
    expect(functions.self[findFrame(p.frames, 'r')]).toBe(4);
  });
});

describe('previewAnalysis of a two-count sample', () => {
  // A sample as the bench's 100 MB file gives one: ~3 MB of its lines (a node of ~300 children).
  const bytes = makeTextBenchInput('difffolded', 12 << 20);
  const sample = sampledText(bytes, FOLDED_SAMPLING)!;
  const naming = { fileName: 'x.txt', granularity: 'functions', names: 'short' } as const;

  /** The picture as it was made before: each column folded, weighed up, then analyzeDiff. */
  function asBefore(view: Parameters<typeof analyzeDiff>[2]) {
    const raw = parseFolded(sample.text);
    const fold = (r: typeof raw) => foldProfile(r, naming);
    const every = Math.max(2, Math.round(1 / sample.share));
    const p = weighedUp(fold(raw), sample.share, every, 0, fold(withSampleType(raw, 0)));
    p.baseline!.meta.fileName = baselineName('x.txt');
    return analyzeDiff(p.profile, p.baseline!, view);
  }

  it('is the picture each column folded and compared made: the same tree, children, totals and sides', () => {
    let widest = 0;
    let ties = 0;
    for (const view of [
      { transforms: [], inverted: false, width: 'comparison' },
      { transforms: [], inverted: false, width: 'baseline' },
      { transforms: [], inverted: false, width: 'both' },
      { transforms: [], inverted: true, width: 'comparison' },
      { transforms: [{ kind: 'hide-function', name: 'fn_1' }], inverted: false, width: 'comparison' },
    ] as const) {
      const label = JSON.stringify(view);
      const before = asBefore(view);
      const after = previewAnalysis(previewOfSample(sample, parseFolded, naming, 0), 'x.txt', view)!;
      expect(after.tree, label).toEqual(before.tree);
      expect(after.diff!.comp, label).toEqual(before.diff!.comp);
      expect(after.diff!.base, label).toEqual(before.diff!.base);
      expect(after.diff!.baseMeta, label).toEqual(before.diff!.baseMeta);
      expect(after.profile, label).toEqual(before.profile);
      // the table waits for the file's, as a one-count preview's does: no counts of the sample's
      expect(after.functionsPending).toBe(true);
      expect(after.sampledEvery).toBeGreaterThan(2);
      for (const t of [after.functions, after.diff!.compFunctions, after.diff!.baseFunctions]) {
        expect(t.count).toBe(after.profile.frames.count);
        expect(t.self.every((x) => x === 0) && t.total.every((x) => x === 0)).toBe(true);
      }
      widest = Math.max(widest, ...after.tree.chains.children);
      // the full tree's rule: heaviest first, ties by node id
      const t = after.tree;
      for (let v = 0; v < t.count; v++)
        for (
          let c = firstChildOf(t, v), d = c < 0 ? -1 : nextSiblingOf(t, c);
          d >= 0;
          c = d, d = nextSiblingOf(t, d)
        ) {
          const [a, b] = [totalOf(t, c), totalOf(t, d)];
          if (!(a > b || (a === b && c < d)))
            expect.fail(`${label}: node ${v}'s children ${c} (${a}), ${d} (${b})`);
          ties += a === b ? 1 : 0;
        }
    }
    // the order of many children (a radix sort by the weighed-up weights) is among those compared
    expect(widest).toBeGreaterThanOrEqual(256);
    expect(ties).toBeGreaterThan(0);
  });
});
