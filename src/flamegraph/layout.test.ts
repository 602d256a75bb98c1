import { describe, expect, it } from 'vitest';
import { buildCallTree, firstChildOf, nextSiblingOf } from '../core/model/calltree';
import { profileFromText } from '../core/model/text-notation';
import { hitTest, layoutFlameGraph, MERGED, rowAt, rowTop } from './layout';

const p = profileFromText(`
  main;a;b 60
  main;c 30
  main;tiny1 1
  main;tiny2 1
  main 8
`);
const tree = buildCallTree(p);
const name = (node: number) => (node === MERGED ? '(merged)' : p.frames.name[tree.frame[node]]);
const describeRects = (l: ReturnType<typeof layoutFlameGraph>) =>
  l.rects.map((r) => `${r.depth} ${name(r.node)} ${r.x.toFixed(1)}+${r.w.toFixed(1)}`);

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
});
