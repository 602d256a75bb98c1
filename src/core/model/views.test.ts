import { describe, expect, it } from 'vitest';
import { treeFunctionTable } from '../../../test/helpers/tree';
import { frameName } from '../text/frame-text';
import type { FoldedProfile } from '../types';
import { buildCallTree, firstChildOf, nextSiblingOf, totalOf } from './calltree';
import { findFrame } from './frames';
import { toFoldedText } from './serialize';
import { profileFromText, treeToText } from './text-notation';
import { applyTransform } from './transforms';
import { invertProfile, sandwich } from './views';

const tree = (p: FoldedProfile) => treeToText(buildCallTree(p), p);
const lines = (...ls: string[]) => ls.join('\n');

describe('invertProfile', () => {
  const p = profileFromText(`
    main;a;b 3
    main;b 2
    main 1
    other;a 4
  `);

  it('makes leaves the roots, their callers the children', () => {
    const q = invertProfile(p);
    expect(tree(q)).toBe(
      lines('b 5/0', '  a 3/0', '    main 3/3', '  main 2/2', 'a 4/0', '  other 4/4', 'main 1/1'),
    );
    expect(q.meta.totalSamples).toBe(10);
  });

  it('has roots whose totals are the self times, and inverts back to the original', () => {
    const q = invertProfile(p);
    const t = buildCallTree(q);
    const fns = treeFunctionTable(buildCallTree(p), p.frames.count);
    for (let c = firstChildOf(t, 0); c !== -1; c = nextSiblingOf(t, c)) {
      const name = frameName(q.frames, t.frame[c]);
      expect(totalOf(t, c)).toBe(fns.self[findFrame(p.frames, name)]);
    }
    expect(toFoldedText(invertProfile(q))).toBe(toFoldedText(p));
  });

  it('composes with transforms: hide, then invert', () => {
    const q = invertProfile(applyTransform(p, { kind: 'hide-function', name: 'b' }));
    expect(tree(q)).toBe(lines('a 7/0', '  other 4/4', '  main 3/3', 'main 3/3'));
  });
});

describe('sandwich', () => {
  it('shows callees merged over call sites and callers growing from the function', () => {
    const p = profileFromText(`
      main;a;f;g 2
      main;b;f 3
      main;f 1
      main;c 4
      t;f;g;h 5
    `);
    const s = sandwich(p, 'f');
    expect(tree(s.callees)).toBe(lines('f 11/4', '  g 7/2', '    h 5/5'));
    expect(tree(s.callers)).toBe(
      lines('f 11/0', '  t 5/5', '  b 3/0', '    main 3/3', '  a 2/0', '    main 2/2', '  main 1/1'),
    );
    expect(s.self).toBe(4);
    expect(s.total).toBe(11);
    expect(s.callers.meta.totalSamples).toBe(11);
    expect(s.callees.meta.totalSamples).toBe(11);
  });

  it('counts each sample once under recursion: callees from the outermost, callers from the innermost', () => {
    const p = profileFromText(`
      main;f;g;f;h 2
      main;f 1
      x;f;f 3
      main;g 4
    `);
    const s = sandwich(p, 'f');
    expect(tree(s.callees)).toBe(lines('f 6/1', '  f 3/3', '  g 2/0', '    f 2/0', '      h 2/2'));
    expect(tree(s.callers)).toBe(
      lines('f 6/0', '  f 3/0', '    x 3/3', '  g 2/0', '    f 2/0', '      main 2/2', '  main 1/1'),
    );
    const fns = treeFunctionTable(buildCallTree(p), p.frames.count);
    const f = findFrame(p.frames, 'f');
    expect(s.total).toBe(fns.total[f]);
    expect(s.self).toBe(fns.self[f]);
    expect(s.self).toBe(4);
  });

  it('merges same-named frames of different modules into one root', () => {
    const p = profileFromText('main;f[a.so];x 1\nmain;f[b.so] 2');
    const s = sandwich(p, 'f');
    expect(tree(s.callees)).toBe(lines('f 3/2', '  x 1/1'));
    expect(tree(s.callers)).toBe(lines('f 3/0', '  main 3/3'));
  });

  it('is empty for a function that is not in the profile', () => {
    const s = sandwich(profileFromText('main;a 1'), 'nope');
    expect(s).toMatchObject({ self: 0, total: 0 });
    expect(s.callers.stacks.count).toBe(0);
    // Its halves keep the profile's frame table (the page's), or with `compact` only what they use.
    expect(s.callees.frames).toBe(s.callers.frames);
    expect(s.callees.frames.count).toBe(2);
    expect(sandwich(profileFromText('main;a 1'), 'nope', { compact: true }).callees.frames.count).toBe(0);
  });

  it('works on a focused profile (transforms first, then the sandwich)', () => {
    const p = profileFromText('main;a;f 2\nmain;b;f 3');
    const s = sandwich(applyTransform(p, { kind: 'focus-function', name: 'b' }), 'f');
    expect(tree(s.callers)).toBe(lines('f 3/0', '  b 3/3'));
  });
});
