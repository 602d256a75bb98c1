import { describe, expect, it } from 'vitest';
import { buildCallTree, firstChildOf, nextSiblingOf } from '../core/model/calltree';
import { profileFromText } from '../core/model/text-notation';
import { frameName } from '../core/text/frame-text';
import { layoutFlameGraph } from './layout';
import { fitViewport, moveForKey, moveSelection, panViewport, zoomViewport } from './navigation';

const p = profileFromText(`
  main;a;b 60
  main;a;c 20
  main;d 15
  main 5
`);
const tree = buildCallTree(p);
const node = (path: string) => {
  let v = 0;
  for (const name of path.split(';')) {
    let c = firstChildOf(tree, v);
    while (c !== -1 && frameName(p.frames, tree.frame[c]) !== name) c = nextSiblingOf(tree, c);
    v = c;
  }
  return v;
};
const name = (n: number) => frameName(p.frames, tree.frame[n]);

describe('keyboard navigation', () => {
  const layout = layoutFlameGraph(tree, { focus: 0, width: 1000 });
  it('maps arrows by orientation', () => {
    expect(moveForKey('ArrowUp', 'flame')).toBe('child');
    expect(moveForKey('ArrowUp', 'icicle')).toBe('parent');
    expect(moveForKey('Enter', 'flame')).toBeNull();
  });
  it('moves to the heaviest drawn child, the parent and siblings', () => {
    expect(name(moveSelection(tree, layout, node('main'), 'child'))).toBe('a');
    expect(name(moveSelection(tree, layout, node('main;a'), 'child'))).toBe('b');
    expect(name(moveSelection(tree, layout, node('main;a;b'), 'next'))).toBe('c');
    expect(name(moveSelection(tree, layout, node('main;a;c'), 'prev'))).toBe('b');
    expect(name(moveSelection(tree, layout, node('main;a'), 'next'))).toBe('d');
    expect(name(moveSelection(tree, layout, node('main;a;c'), 'next'))).toBe('c'); // last of its row
    expect(name(moveSelection(tree, layout, node('main;a;c'), 'parent'))).toBe('a');
    expect(name(moveSelection(tree, layout, node('main'), 'parent'))).toBe('main'); // the root stays
  });
});

describe('viewport', () => {
  it('zooms around a point and stays inside [0, 1]', () => {
    expect(zoomViewport([0, 1], 2, 0.5)).toEqual([0.25, 0.75]);
    expect(zoomViewport([0, 1], 2, 0)).toEqual([0, 0.5]);
    expect(zoomViewport([0.25, 0.75], 0.25, 0.5)).toEqual([0, 1]);
  });
  it('pans without leaving the graph', () => {
    expect(panViewport([0.25, 0.75], 0.5)).toEqual([0.5, 1]);
    expect(panViewport([0.25, 0.75], -1)).toEqual([0, 0.5]);
  });
  it('fits a frame', () => {
    expect(fitViewport(tree, 0, node('main;a;c'))).toEqual([0.6, 0.8]);
    const l = layoutFlameGraph(tree, { focus: 0, width: 1000, viewport: [0.6, 0.8] });
    const c = l.rects.find((r) => r.node === node('main;a;c'))!;
    expect([c.x, c.w]).toEqual([0, 1000]);
    // b is outside the viewport: not drawn
    expect(l.rects.some((r) => r.node === node('main;a;b'))).toBe(false);
  });
});
