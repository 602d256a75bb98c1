import { describe, expect, it } from 'vitest';
import { prng } from '../../test/helpers/prng';
import { treeFunctionTable } from '../../test/helpers/tree';
import { buildCallTree, firstChildOf, nextSiblingOf, totalOf } from './model/calltree';
import { findFrame } from './model/frames';
import { profileFromText } from './model/text-notation';
import { invertProfile } from './model/views';
import { treeAndFunctions } from './pipeline';
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
