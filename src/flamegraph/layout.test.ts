import { describe, expect, it } from 'vitest';
import { prng } from '../../test/helpers/prng';
import {
  buildCallTree,
  buildCoarseTree,
  depthOf as depthOfNode,
  firstChildOf,
  nextSiblingOf,
  sortedStackOrder,
} from '../core/model/calltree';
import { profileFromText } from '../core/model/text-notation';
import { frameName } from '../core/text/frame-text';
import { hitTest, layoutFlameGraph, MERGED, mergedLabel, rowAt, rowTop } from './layout';

const p = profileFromText(`
  main;a;b 60
  main;c 30
  main;tiny1 1
  main;tiny2 1
  main 8
`);
const tree = buildCallTree(p);
const name = (node: number) => (node === MERGED ? '(merged)' : frameName(p.frames, tree.frame[node]));
const describeRects = (l: ReturnType<typeof layoutFlameGraph>) =>
  l.rows.flat().map((r) => `${r.depth} ${name(r.node)} ${r.x.toFixed(1)}+${r.w.toFixed(1)}`);

describe('layoutFlameGraph', () => {
  it('lays out the whole tree proportionally, heaviest first, self time as free space', () => {
    const l = layoutFlameGraph(tree, { focus: 0, width: 1000 });
    expect(describeRects(l)).toEqual([
      '0 main 0.0+1000.0',
      '1 a 0.0+600.0',
      '1 c 600.0+300.0',
      '1 tiny1 900.0+10.0',
      '1 tiny2 910.0+10.0',
      '2 b 0.0+600.0',
    ]);
    expect(l.rowCount).toBe(3);
  });

  it('merges bars narrower than about a pixel into one per parent', () => {
    const l = layoutFlameGraph(tree, { focus: 0, width: 60 });
    const row1 = l.rows[1].map((r) => `${name(r.node)}:${r.mergedCount}`);
    expect(row1).toEqual(['a:0', 'c:0', '(merged):2']);
  });

  it('zooms to a node: its subtree spans the width, ancestors stay above at full width', () => {
    let a = firstChildOf(tree, firstChildOf(tree, 0));
    while (name(a) !== 'a') a = nextSiblingOf(tree, a);
    const l = layoutFlameGraph(tree, { focus: a, width: 500 });
    expect(describeRects(l)).toEqual(['0 main 0.0+500.0', '1 a 0.0+500.0', '2 b 0.0+500.0']);
    expect(l.rects[0].ancestor).toBe(true);
    expect(l.rects[1].ancestor).toBe(false);
  });

  it('hit-tests rows in both orientations', () => {
    const l = layoutFlameGraph(tree, { focus: 0, width: 1000 });
    const H = 18;
    const graphHeight = 300;
    // flame: row 0 at the bottom
    const yMain = rowTop(0, H, 'flame', graphHeight) + 5;
    expect(rowAt(yMain, H, 'flame', graphHeight)).toBe(0);
    expect(name(hitTest(l, 1, 650)!.node)).toBe('c');
    expect(hitTest(l, 1, 950)).toBeNull(); // self time of main
    expect(rowAt(rowTop(2, H, 'icicle', graphHeight) + 1, H, 'icicle', graphHeight)).toBe(2);
  });

  it('lays out chains of single children as one bar per row, rows left to right, at any zoom', () => {
    // Long chains that branch at random depths (as deep real stacks do).
    const rnd = prng(11);
    const lines: string[] = [];
    for (let s = 0; s < 60; s++) {
      const len = 5 + Math.floor(rnd() * 40);
      const frames = Array.from({ length: len }, (_, i) => `f${i < 3 ? i : Math.floor(rnd() * 6)}`);
      lines.push(`${frames.join(';')} ${1 + Math.floor(rnd() * 9)}`);
    }
    const q = profileFromText(lines.join('\n'));
    const t = buildCallTree(q);
    for (const [focus, viewport, maxRows] of [
      [0, [0, 1], undefined],
      [0, [0.3, 0.35], 20],
      [5, [0.1, 0.9], 12],
    ] as const) {
      const l = layoutFlameGraph(t, { focus, width: 800, viewport, maxRows, minWidth: 2 });
      for (const row of l.rows) {
        for (let i = 1; i < row.length; i++)
          expect(row[i].x).toBeGreaterThanOrEqual(row[i - 1].x + row[i - 1].w - 1e-6);
      }
      for (const r of l.rects) {
        if (r.node < 0) continue;
        // Each bar is on its node's row, under its parent's bar, as wide as its node's share.
        expect(r.depth).toBe(depthOfNode(t, r.node) - 1);
        const above = l.rows[r.depth - 1]?.find((b) => b.node === r.parent);
        if (r.depth > 0 && !r.ancestor && r.node !== l.focus) {
          expect(above).toBeDefined();
          expect(r.x).toBeGreaterThanOrEqual(above!.x - 1e-6);
          expect(r.x + r.w).toBeLessThanOrEqual(above!.x + above!.w + 1e-6);
        }
      }
      if (maxRows !== undefined) expect(l.rowCount).toBeLessThanOrEqual(maxRows + 1);
    }
  });

  it('draws a coarse tree’s light children as a merged bar, as the full tree draws them', () => {
    const q = profileFromText(
      `${Array.from({ length: 40 }, (_, i) => `main;f${i} 1`).join('\n')}\nmain;big 60`,
    );
    const coarseTree = buildCoarseTree(q, sortedStackOrder(q), 10);
    const full = buildCallTree(q);
    const rowOf = (t: typeof full) =>
      layoutFlameGraph(t, { focus: 0, width: 100, minWidth: 2 }).rows[1].map(
        (r) => `${r.node === MERGED ? mergedLabel(r) : frameName(q.frames, t.frame[r.node])} ${r.x}+${r.w}`,
      );
    expect(rowOf(coarseTree)).toEqual(['big 0+60', 'Frames too narrow to draw 60+40']);
    expect(rowOf(full)).toEqual(['big 0+60', '40 frames too narrow to draw 60+40']);
  });

  it('a heavy node whose children are all light: its merged bar ends the run of single children', () => {
    // main → a (heavy) → 40 light children only: in the coarse tree `a` has one child, the
    // LIGHT_CHILDREN node, on the same chain; it must be drawn as a merged bar, never as a frame.
    const q = profileFromText(Array.from({ length: 40 }, (_, i) => `main;a;f${i} 1`).join('\n'));
    const coarseTree = buildCoarseTree(q, sortedStackOrder(q), 10);
    const rows = layoutFlameGraph(coarseTree, { focus: 0, width: 100, minWidth: 2 }).rows;
    const named = (r: (typeof rows)[number][number]) =>
      r.node === MERGED ? mergedLabel(r) : frameName(q.frames, coarseTree.frame[r.node]);
    expect(rows.map((row) => row.map(named))).toEqual([['main'], ['a'], ['Frames too narrow to draw']]);
  });
});
