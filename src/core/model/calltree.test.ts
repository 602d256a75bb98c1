import { describe, expect, it } from 'vitest';
import { buildCallTree, buildFunctionTable, pathToNode } from './calltree';
import { profileFromText, treeToText } from './text-notation';

describe('buildCallTree', () => {
  it('merges common prefixes and orders children heaviest first', () => {
    const p = profileFromText(`
      main;a;b 3
      main;c 5
      main;a 1
      main;a;d 2
    `);
    const t = buildCallTree(p);
    expect(treeToText(t, p)).toBe(['main 11/0', '  a 6/1', '    b 3/3', '    d 2/2', '  c 5/5'].join('\n'));
    expect(t.total[0]).toBe(11);
    expect(t.maxDepth).toBe(3);
  });

  it('keeps separate roots (truncated deep stacks start mid-way)', () => {
    const p = profileFromText('_start;main;f 2\nrecurse;recurse 4');
    expect(treeToText(buildCallTree(p), p)).toBe(
      ['recurse 4/0', '  recurse 4/4', '_start 2/0', '  main 2/0', '    f 2/2'].join('\n'),
    );
  });

  it('handles 5000-frame stacks without recursion', () => {
    const deep = Array.from({ length: 5000 }, (_, i) => `f${i % 7}`).join(';');
    const p = profileFromText(`${deep} 1\n${deep};leaf 2`);
    const t = buildCallTree(p);
    expect(t.maxDepth).toBe(5001);
    expect(t.count).toBe(5002);
    const fns = buildFunctionTable(t, p.frames.count);
    // Recursive functions count each sample once in Total.
    expect(Array.from(fns.total).slice(0, 7)).toEqual([3, 3, 3, 3, 3, 3, 3]);
  });

  it('counts recursion once in function totals and sums self over call sites', () => {
    const p = profileFromText('main;r;r;r 4\nmain;x;r 1\nmain 2');
    const t = buildCallTree(p);
    const f = buildFunctionTable(t, p.frames.count);
    const id = (n: string) => p.frames.name.indexOf(n);
    expect(f.total[id('r')]).toBe(5);
    expect(f.self[id('r')]).toBe(5);
    expect(f.total[id('main')]).toBe(7);
    expect(f.self[id('main')]).toBe(2);
    expect(f.total[id('x')]).toBe(1);
  });

  it('maps a node back to its path', () => {
    const p = profileFromText('main;a;b 1');
    const t = buildCallTree(p);
    let leaf = 0;
    while (t.firstChild[leaf] !== -1) leaf = t.firstChild[leaf];
    expect(pathToNode(t, leaf).map((f) => p.frames.name[f])).toEqual(['main', 'a', 'b']);
  });
});
