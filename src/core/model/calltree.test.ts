import { describe, expect, it } from 'vitest';
import { prng } from '../../../test/helpers/prng';
import { treeFunctionTable } from '../../../test/helpers/tree';
import { frameName } from '../text/frame-text';
import type { FoldedProfile } from '../types';
import {
  buildCallTree,
  type CallTree,
  chainOf,
  childCountOf,
  deepestUnder,
  depthOf,
  firstChildOf,
  nextSiblingOf,
  parentOf,
  pathToNode,
  ROW,
  reweighTree,
  selfOf,
  sortedStackOrder,
  sortStacks,
  subtreeEndOf,
  totalOf,
} from './calltree';
import { findFrame } from './frames';
import { functionTableOf } from './functions';
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
    expect(totalOf(t, 0)).toBe(11);
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
    // Two chains: 5000 frames, then the leaf.
    expect(t.chains.count).toBe(3);
    expect(depthOf(t, 5001)).toBe(5001);
    expect(totalOf(t, 4000)).toBe(3);
    expect(selfOf(t, 5000)).toBe(1);
    const fns = treeFunctionTable(t, p.frames.count);
    // Recursive functions count each sample once in Total.
    expect(Array.from(fns.total).slice(0, 7)).toEqual([3, 3, 3, 3, 3, 3, 3]);
    expect(Array.from(functionTableOf(p).total)).toEqual(Array.from(fns.total));
  });

  it('counts recursion once in function totals and sums self over call sites', () => {
    const p = profileFromText('main;r;r;r 4\nmain;x;r 1\nmain 2');
    const t = buildCallTree(p);
    const f = treeFunctionTable(t, p.frames.count);
    const id = (n: string) => findFrame(p.frames, n);
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
    while (firstChildOf(t, leaf) !== -1) leaf = firstChildOf(t, leaf);
    expect(pathToNode(t, leaf).map((f) => frameName(p.frames, f))).toEqual(['main', 'a', 'b']);
  });

  it('accepts repeated and empty stacks (views may produce them)', () => {
    const base = profileFromText('main;a 1\nmain;b 1');
    const p: FoldedProfile = {
      ...base,
      stacks: {
        count: 4,
        // main;a ×2, the empty stack, main
        start: Uint32Array.from([0, 2, 4, 4, 5]),
        frames: Uint32Array.from([0, 1, 0, 1, 0]),
        weight: Float64Array.from([2, 3, 7, 1]),
      },
    };
    const t = buildCallTree(p);
    expect(treeToText(t, p)).toBe(['main 6/1', '  a 5/5'].join('\n'));
    expect(totalOf(t, 0)).toBe(13);
    expect(selfOf(t, 0)).toBe(7);
  });

  it('builds the same tree as a naive trie on random profiles', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let round = 0; round < 30; round++) {
      const lines: string[] = [];
      for (let s = 0, ns = 1 + rnd(40); s < ns; s++) {
        const len = 1 + rnd(8);
        lines.push(`${Array.from({ length: len }, () => `f${rnd(4)}`).join(';')} ${1 + rnd(5)}`);
      }
      const p = profileFromText(lines.join('\n'));
      const t = buildCallTree(p);
      expect(treeToText(t, p)).toBe(naiveTreeText(p));
      checkLinks(t);
      // A subtree ends at the first node after it no deeper than its root (ids are a preorder).
      for (let v = 0; v < t.count; v++) {
        let end = v + 1;
        while (end < t.count && depthOf(t, end) > depthOf(t, v)) end++;
        expect(subtreeEndOf(t, v)).toBe(end);
        let deepest = depthOf(t, v);
        for (let u = v; u < end; u++) deepest = Math.max(deepest, depthOf(t, u));
        expect(deepestUnder(t, v)).toBe(deepest);
      }
      // The function table from the stacks agrees with one from the tree.
      const f = treeFunctionTable(t, p.frames.count);
      const g = functionTableOf(p);
      expect(Array.from(g.self)).toEqual(Array.from(f.self));
      expect(Array.from(g.total)).toEqual(Array.from(f.total));
      // Built into memory given for the node frames (a helper's, worker/prefault.ts): the same tree,
      // in that memory; memory too small for it is not used.
      const given = new ArrayBuffer((p.stacks.start[p.stacks.count] + 1) * 4);
      const into = buildCallTree(p, undefined, undefined, given);
      expect(into.frame.buffer).toBe(given);
      expect(into).toEqual(t);
      const small = new ArrayBuffer((t.count - 1) * 4);
      expect(buildCallTree(p, undefined, undefined, small).frame.buffer).not.toBe(small);
    }
  });
  it('builds a flat profile’s tree (a node per stack, hundreds of children of one node) as the naive trie does', () => {
    const rnd = prng(11);
    // One frame a stack or an image frame above it (DCPI's shape), frames numbered in stack order
    // (ranges in order already, no chain split or re-sorted) or not, heavy and light children.
    for (const shape of ['one frame', 'under an image'] as const)
      for (const numbered of ['in order', 'shuffled'] as const) {
        const n = 700;
        const ids = Array.from({ length: n }, (_, i) => i);
        if (numbered === 'shuffled') ids.sort(() => rnd() - 0.5);
        const lines = ids.map(
          (i) => `${shape === 'under an image' ? 'img;' : ''}a${i} ${1 + Math.floor(rnd() * 5)}`,
        );
        // frame names interned in line order: a0 first when in order
        const p = profileFromText(numbered === 'in order' ? lines.join('\n') : lines.sort().join('\n'));
        const t = buildCallTree(p);
        expect(treeToText(t, p)).toBe(naiveTreeText(p));
        checkLinks(t);
        expect(childCountOf(t, shape === 'one frame' ? 0 : 1)).toBe(n);
      }
  });

  it('orders hundreds of children of split chains as the naive trie does', () => {
    const rnd = prng(5);
    for (let round = 0; round < 4; round++) {
      const lines: string[] = [];
      // long shared chains, split at random depths, each branch point with up to ~600 children
      for (let s = 0; s < 2000; s++) {
        const depth = 1 + Math.floor(rnd() * 6);
        const path = Array.from({ length: depth }, (_, d) => `c${d}`);
        path.push(`leaf${Math.floor(rnd() * 600)}`);
        if (rnd() < 0.3) path.push(`deep${Math.floor(rnd() * 3)}`);
        lines.push(`${path.join(';')} ${1 + Math.floor(rnd() * 9)}`);
      }
      const p = profileFromText(lines.join('\n'));
      const t = buildCallTree(p);
      expect(treeToText(t, p)).toBe(naiveTreeText(p));
      checkLinks(t);
    }
  });
});

/** The tree as text from a map-based trie, children heaviest first then first seen. */
function naiveTreeText(p: FoldedProfile): string {
  interface N {
    frame: number;
    total: number;
    self: number;
    kids: Map<number, N>;
    seq: number;
  }
  let seq = 0;
  const root: N = { frame: -1, total: 0, self: 0, kids: new Map(), seq: seq++ };
  // Children in first-seen order of the sorted stacks = lexicographic frame order.
  for (let s = 0; s < p.stacks.count; s++) {
    const w = p.stacks.weight[s];
    let n = root;
    n.total += w;
    for (let i = p.stacks.start[s]; i < p.stacks.start[s + 1]; i++) {
      const f = p.stacks.frames[i];
      let c = n.kids.get(f);
      if (!c) {
        c = { frame: f, total: 0, self: 0, kids: new Map(), seq: 0 };
        n.kids.set(f, c);
      }
      c.total += w;
      n = c;
    }
    n.self += w;
  }
  const out: string[] = [];
  const work: [N, number][] = [[root, -1]];
  while (work.length > 0) {
    const [n, d] = work.pop()!;
    if (d >= 0) out.push(`${'  '.repeat(d)}${frameName(p.frames, n.frame)} ${n.total}/${n.self}`);
    const kids = [...n.kids.values()].sort((a, b) => b.total - a.total || a.frame - b.frame);
    for (let i = kids.length - 1; i >= 0; i--) work.push([kids[i], d + 1]);
  }
  return out.join('\n');
}

/**
 * Every node is in its parent's child list exactly once, heaviest first; ids are a preorder;
 * chains hold consecutive ids, and only their last node has self weight or several children.
 */
function checkLinks(t: CallTree): void {
  const seen = new Uint8Array(t.count);
  for (let v = 0; v < t.count; v++) {
    let prev = Infinity;
    let kids = 0;
    for (let c = firstChildOf(t, v); c !== -1; c = nextSiblingOf(t, c)) {
      expect(parentOf(t, c)).toBe(v);
      expect(depthOf(t, c)).toBe(depthOf(t, v) + 1);
      expect(totalOf(t, c)).toBeLessThanOrEqual(prev);
      expect(c).toBeGreaterThan(v);
      prev = totalOf(t, c);
      seen[c]++;
      kids++;
    }
    expect(childCountOf(t, v)).toBe(kids);
    const c = chainOf(t, v);
    expect(v).toBeGreaterThanOrEqual(t.chains.start[c]);
    expect(v).toBeLessThan(t.chains.end[c]);
    if (v < t.chains.end[c] - 1) {
      expect(kids).toBe(1);
      expect(selfOf(t, v)).toBe(0);
    }
  }
  for (let v = 1; v < t.count; v++) expect(seen[v]).toBe(1);
  // Chains are numbered in the order of their first nodes (chainOf's binary search needs it).
  for (let c = 1; c < t.chains.count; c++) expect(t.chains.start[c]).toBe(t.chains.end[c - 1]);
}

describe('reweighTree', () => {
  it('orders children as a tree built by the new weights does, from a tree ordered or not', () => {
    const rnd = prng(5);
    // one node of 300 children (ordered natively) and small groups; many ties among few weights
    const lines: string[] = [];
    for (let s = 0; s < 900; s++) {
      const kid = s < 600 ? `k${s % 300}` : `m${s % 7}`;
      const deeper = rnd() < 0.5 ? `;d${Math.floor(rnd() * 4)}` : '';
      lines.push(`main;${kid}${deeper} ${1 + Math.floor(rnd() * 3)}`);
    }
    const p = profileFromText(lines.join('\n'));
    const other = Float64Array.from(p.stacks.weight, (_, s) => (s * 7919) % 5);
    const want = buildCallTree({ ...p, stacks: { ...p.stacks, weight: other } });
    expect(Math.max(...want.chains.children)).toBe(307);
    for (const byWeight of [true, false]) {
      const t = buildCallTree(p, undefined, undefined, null, byWeight);
      reweighTree(t, want.chains.total, want.chains.self);
      expect(t).toEqual(want);
    }
  });
});

describe('buildCoarseTree', () => {
  it('is the full tree with the light children of each node as one child (LIGHT_CHILDREN)', async () => {
    const { buildCoarseTree, sortedStackOrder } = await import('./calltree');
    const p = profileFromText(`
      main;a;b 50
      main;a;c 2
      main;d 1
      main;e;f;g 40
      main 7
    `);
    const coarse = buildCoarseTree(p, sortedStackOrder(p), 5);
    expect(treeToText(coarse, p)).toBe(
      [
        'main 100/7',
        '  a 52/0',
        '    b 50/50',
        '    (light children) 2/2',
        '  e 40/0',
        '    f 40/0',
        '      g 40/40',
        '  (light children) 1/1',
      ].join('\n'),
    );
    expect(coarse.maxDepth).toBe(4);
    // With no threshold it is the full tree.
    const full = buildCallTree(p);
    expect(treeToText(buildCoarseTree(p, sortedStackOrder(p), 0), p)).toBe(treeToText(full, p));
  });

  it('keeps exactly the full tree’s heavy nodes, each one’s light children summed (random stacks)', async () => {
    const { buildCoarseTree, LIGHT_CHILDREN } = await import('./calltree');
    /** Every node as `path total/self`, the path by frame ids (LIGHT_CHILDREN as `*`). */
    const nodesOf = (t: CallTree) => {
      const out: string[] = [];
      const walk = (v: number, path: string) => {
        for (let c = firstChildOf(t, v); c >= 0; c = nextSiblingOf(t, c)) {
          const f = t.frame[c];
          const here = `${path};${f === LIGHT_CHILDREN ? '*' : f}`;
          out.push(`${here} ${totalOf(t, c)}/${selfOf(t, c)}`);
          walk(c, here);
        }
      };
      walk(0, '');
      return out.sort();
    };
    /** The same from the full tree: nodes of at least `min` under kept ones, light ones summed. */
    const expected = (t: CallTree, min: number) => {
      const out: string[] = [];
      const walk = (v: number, path: string) => {
        let light = 0;
        for (let c = firstChildOf(t, v); c >= 0; c = nextSiblingOf(t, c)) {
          if (totalOf(t, c) < min) {
            light += totalOf(t, c);
            continue;
          }
          const here = `${path};${t.frame[c]}`;
          out.push(`${here} ${totalOf(t, c)}/${selfOf(t, c)}`);
          walk(c, here);
        }
        if (light > 0) out.push(`${path};* ${light}/${light}`);
      };
      walk(0, '');
      return out.sort();
    };
    const rnd = prng(7);
    for (let round = 0; round < 40; round++) {
      const n = 1 + Math.floor(rnd() * 400);
      const alphabet = [2, 3, 8, 1000][round % 4];
      const lines: string[] = [];
      for (let s = 0; s < n; s++) {
        // Shared beginnings, prefixes of one another and repeated stacks.
        const len = Math.floor(rnd() * 9);
        const frames = Array.from(
          { length: len },
          (_, k) => `f${k < 3 && rnd() < 0.7 ? k : Math.floor(rnd() * alphabet)}`,
        );
        lines.push(`${len === 0 ? 'root' : `root;${frames.join(';')}`} ${1 + Math.floor(rnd() * 20)}`);
      }
      const p = profileFromText(lines.join('\n'));
      const full = buildCallTree(p);
      const total = totalOf(full, 0);
      for (const min of [0, 1, 5, total / 50, total / 7, total / 2, total + 1]) {
        const coarse = buildCoarseTree(p, sortedStackOrder(p), min);
        expect(nodesOf(coarse), `round ${round}, min ${min}`).toEqual(expected(full, min));
        expect(coarse.maxDepth).toBe(full.maxDepth);
      }
    }
  });
});

describe('sortedStackOrder', () => {
  /** Stacks over a few frame ids (many shared prefixes, repeats, prefixes of each other). */
  function randomStacks(seed: number, n: number, alphabet: number, maxLen: number, prefixLen: number) {
    const rnd = prng(seed);
    const start = [0];
    const frames: number[] = [];
    const shared = Array.from({ length: prefixLen }, () => Math.floor(rnd() * alphabet));
    for (let s = 0; s < n; s++) {
      const len = Math.floor(rnd() * maxLen);
      const keep = Math.floor(rnd() * (prefixLen + 1));
      for (let k = 0; k < len; k++) frames.push(k < keep ? shared[k] : Math.floor(rnd() * alphabet));
      start.push(frames.length);
    }
    return { start: Uint32Array.from(start), frames: Uint32Array.from(frames) };
  }

  it('sorts by comparator where frame ids too large to pack share a range of 2M stacks', () => {
    // (frame + 1) · range size must stay below 2^53 for the packed native sort: a coarse tree's
    // LIGHT_CHILDREN (0xfffffffe) in a range of 2^21 stacks is past it.
    const n = (1 << 21) + 5;
    const start = new Uint32Array(n + 1);
    const frames = new Uint32Array(n * 2);
    for (let s = 0; s < n; s++) {
      start[s + 1] = start[s] + 2;
      frames[2 * s] = 7;
      frames[2 * s + 1] = s % 3 === 0 ? 0xfffffffe : (s * 7919) % 1000;
    }
    const p = {
      stacks: { count: n, start, frames, weight: new Float64Array(n) },
    } as unknown as FoldedProfile;
    const { order, lcp } = sortedStackOrder(p);
    let bad = 0;
    for (let k = 1; k < n; k++) {
      const x = frames[2 * order[k - 1] + 1];
      const y = frames[2 * order[k] + 1];
      if (x > y || lcp[k] !== (x === y ? 2 : 1)) bad++;
    }
    expect(bad).toBe(0);
    expect(new Set(order).size).toBe(n);
  });

  it('orders stacks as comparing them whole does, with each one’s common prefix with the one before', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const n = [1, 2, 5, 13, 40, 300, 2000][seed % 7];
      const { start, frames } = randomStacks(
        seed,
        n,
        [2, 3, 50, 100_000][seed % 4],
        12 + (seed % 5) * 20,
        seed % 3 === 0 ? 60 : 4,
      );
      const p = {
        stacks: { count: n, start, frames, weight: new Float64Array(n).fill(1) },
      } as unknown as FoldedProfile;
      const { order, lcp } = sortedStackOrder(p);
      const stack = (s: number) => Array.from(frames.subarray(start[s], start[s + 1]));
      const common = (x: number[], y: number[]) => {
        let i = 0;
        while (i < x.length && i < y.length && x[i] === y[i]) i++;
        return i;
      };
      const cmp = (x: number[], y: number[]) => {
        const c = common(x, y);
        return c < x.length && c < y.length ? x[c] - y[c] : x.length - y.length;
      };
      const expected = Array.from({ length: n }, (_, i) => stack(i)).sort(cmp);
      const got = Array.from(order, stack);
      // The same sequence of stacks (equal stacks may come in either order).
      expect(got).toEqual(expected);
      expect(new Set(order).size).toBe(n);
      const bad: number[] = [];
      for (let k = 0; k < n; k++) if (lcp[k] !== (k === 0 ? 0 : common(got[k - 1], got[k]))) bad.push(k);
      expect(bad).toEqual([]);
      // Stable: equal stacks in the order of their indices (the fold in place sums repeats into
      // the first by it).
      for (let k = 1; k < n; k++)
        if (lcp[k] === got[k].length && got[k].length === got[k - 1].length)
          expect(order[k - 1]).toBeLessThan(order[k]);
      // The same order and prefixes read through the stacks' root-side rows (StackRows).
      const rows = new Uint32Array(n * ROW);
      for (let s = 0; s < n; s++)
        for (let j = 0; j < ROW && start[s] + j < start[s + 1]; j++)
          rows[s * ROW + j] = frames[start[s] + j] + 1;
      const viaRows = sortStacks(start, frames, n, rows);
      expect(Array.from(viaRows.order)).toEqual(Array.from(order));
      expect(Array.from(viaRows.lcp)).toEqual(Array.from(lcp));
    }
  });
});
