import { describe, expect, it } from 'vitest';
import { treeFunctionTable } from '../../../test/helpers/tree';
import { frameName } from '../text/frame-text';
import { type FoldedProfile, SAMPLES_COUNT } from '../types';
import { buildCallTree } from './calltree';
import { findFrame, frameNames, functionFrames } from './frames';
import { functionsBySelf, functionTableOf } from './functions';
import { toFoldedText } from './serialize';
import { profileFromText, treeToText } from './text-notation';
import {
  applyTransform,
  applyTransforms,
  applyTransformsTraced,
  describeTransform,
  type Transform,
} from './transforms';
import { invertProfile, sandwich } from './views';

const tree = (p: FoldedProfile) => treeToText(buildCallTree(p), p);
const lines = (...ls: string[]) => ls.join('\n');
const total = (p: FoldedProfile) => p.stacks.weight.reduce((a, b) => a + b, 0);

describe('focus-function', () => {
  it('re-roots every stack through the function at it, over all call sites and roots', () => {
    const p = profileFromText(`
      main;a;f;g 2
      main;b;f 3
      main;c 4
      other;f;h 1
    `);
    const q = applyTransform(p, { kind: 'focus-function', name: 'f' });
    expect(tree(q)).toBe(lines('f 6/3', '  g 2/2', '  h 1/1'));
    expect(q.meta.totalSamples).toBe(6);
    expect(q.stacks.count).toBe(3);
  });

  it('uses the outermost occurrence when the function appears twice in a stack', () => {
    const p = profileFromText('main;f;x;f;y 2\nmain;f 1\nmain;x;f 4');
    const q = applyTransform(p, { kind: 'focus-function', name: 'f' });
    expect(tree(q)).toBe(lines('f 7/5', '  x 2/0', '    f 2/0', '      y 2/2'));
    // Each sample counted once: the root total equals the function-table total.
    const fns = treeFunctionTable(buildCallTree(p), p.frames.count);
    expect(fns.total[findFrame(p.frames, 'f')]).toBe(7);
  });

  it('keeps the frame table (frames no stack uses have no samples) and copies meta with the new total', () => {
    const p = profileFromText('main;a;f;g 2\nmain;c 4');
    p.meta.periodUs = 10;
    const q = applyTransform(p, { kind: 'focus-function', name: 'f' });
    // The very table of the input: the page, which holds it, is not sent it again.
    expect(q.frames).toBe(p.frames);
    expect(q.modules).toBe(p.modules);
    const fns = functionTableOf(q);
    expect(Array.from(functionsBySelf(fns), (f) => frameName(q.frames, f))).toEqual(['g', 'f']);
    expect(q.meta).toMatchObject({
      totalSamples: 2,
      samplingTimeUs: 20,
      periodUs: 10,
      fileName: 'test.folded',
    });
    expect(p.meta.totalSamples).toBe(6); // input untouched
  });

  it('drops everything when the function is absent', () => {
    const p = profileFromText('main;a 1');
    const q = applyTransform(p, { kind: 'focus-function', name: 'nope' });
    expect(q.stacks.count).toBe(0);
    expect(functionsBySelf(functionTableOf(q))).toEqual(new Int32Array(0));
    expect(q.meta.totalSamples).toBe(0);
    expect(tree(q)).toBe('');
  });

  it('keeps same-named frames of different modules apart (one root per module)', () => {
    const p = profileFromText('main;f[a.so];x 1\nmain;f[b.so] 2');
    const q = applyTransform(p, { kind: 'focus-function', name: 'f' });
    expect(tree(q)).toBe(lines('f 2/2', 'f 1/0', '  x 1/1'));
  });
});

describe('focus-subtree', () => {
  const p = profileFromText(`
    main;a;b 2
    main;a 1
    main;a;c;a 3
    main;c;a;b 5
    a;b 7
  `);

  it('keeps stacks under the path, re-rooted at its last element', () => {
    const q = applyTransform(p, { kind: 'focus-subtree', path: ['main', 'a'] });
    expect(tree(q)).toBe(lines('a 6/1', '  c 3/0', '    a 3/3', '  b 2/2'));
  });

  it('matches a one-element path only at the root', () => {
    const q = applyTransform(p, { kind: 'focus-subtree', path: ['a'] });
    expect(tree(q)).toBe(lines('a 7/0', '  b 7/7'));
  });

  it('drops everything for a path that is not there, keeps everything for an empty path', () => {
    expect(applyTransform(p, { kind: 'focus-subtree', path: ['main', 'b'] }).stacks.count).toBe(0);
    expect(applyTransform(p, { kind: 'focus-subtree', path: ['main', 'a', 'b', 'x'] }).stacks.count).toBe(0);
    expect(tree(applyTransform(p, { kind: 'focus-subtree', path: [] }))).toBe(tree(p));
  });
});

describe('hide-function', () => {
  it('hides a leaf: its time goes to its callers, total preserved', () => {
    const p = profileFromText('main;a;malloc 3\nmain;b;malloc 2\nmain;a 1');
    const q = applyTransform(p, { kind: 'hide-function', name: 'malloc' });
    expect(tree(q)).toBe(lines('main 6/0', '  a 4/4', '  b 2/2'));
    expect(q.meta.totalSamples).toBe(6);
    expect(q.stacks.count).toBe(2); // main;a;malloc and main;a merged
    const malloc = findFrame(q.frames, 'malloc');
    expect(Array.from(q.stacks.frames)).not.toContain(malloc);
    expect(functionTableOf(q).total[malloc]).toBe(0);
  });

  it('hides a middle frame: children join the parent and merge with its other children', () => {
    const p = profileFromText('main;lock;a;b 1\nmain;a;c 2\nmain;lock 4');
    const q = applyTransform(p, { kind: 'hide-function', name: 'lock' });
    expect(tree(q)).toBe(lines('main 7/4', '  a 3/0', '    c 2/2', '    b 1/1'));
  });

  it('hides the root: children become roots; stacks of only the function are dropped', () => {
    const p = profileFromText('main;a 2\nmain;b 3\nother;a 1\nmain 4');
    const q = applyTransform(p, { kind: 'hide-function', name: 'main' });
    expect(tree(q)).toBe(lines('b 3/3', 'a 2/2', 'other 1/0', '  a 1/1'));
    expect(q.meta.totalSamples).toBe(6);
  });

  it('hides every recursive occurrence', () => {
    const p = profileFromText('main;r;x;r;r;y 2');
    const q = applyTransform(p, { kind: 'hide-function', name: 'r' });
    expect(toFoldedText(q)).toBe('main;x;y 2\n');
  });
});

describe('merge-module', () => {
  const p = profileFromText(`
    main[app];malloc[/lib/libc.so.6];_int_malloc[/lib/libc.so.6];mmap[kernel] 2
    main[app];free[/lib/libc.so.6] 1
    main[app];qsort[/lib/libc.so.6];cmp[app];memcmp[/lib/libc.so.6] 4
    main[app];work[app] 3
  `);
  const expected = lines(
    'main 10/0',
    '  libc.so.6 7/1',
    '    cmp 4/0',
    '      libc.so.6 4/4',
    '    mmap 2/2',
    '  work 3/3',
  );

  it('collapses runs of the module in the middle of stacks into one frame named after it', () => {
    const q = applyTransform(p, { kind: 'merge-module', module: 'libc.so.6' });
    expect(tree(q)).toBe(expected);
    expect(q.meta.totalSamples).toBe(10);
    const id = findFrame(q.frames, 'libc.so.6');
    expect(q.modules[q.frames.module[id]]).toBe('/lib/libc.so.6');
    expect(frameNames(q.frames).filter((n) => n === 'libc.so.6')).toHaveLength(1);
    // The input's frames keep their ids; the merged frame comes after them.
    expect(frameNames(q.frames).slice(0, p.frames.count)).toEqual(frameNames(p.frames));
    expect(id).toBe(p.frames.count);
    expect(Array.from(q.stacks.frames)).not.toContain(findFrame(q.frames, 'malloc'));
  });

  it('matches the module by full path too, and is idempotent', () => {
    const q = applyTransform(p, { kind: 'merge-module', module: '/lib/libc.so.6' });
    expect(tree(q)).toBe(expected);
    expect(tree(applyTransform(q, { kind: 'merge-module', module: 'libc.so.6' }))).toBe(expected);
  });

  it('merges a module at the root and at the leaf', () => {
    const q = applyTransform(profileFromText('s[ld];t[ld];main[app];x[ld] 1'), {
      kind: 'merge-module',
      module: 'ld',
    });
    expect(toFoldedText(q)).toBe('ld;main;ld 1\n');
  });

  it('leaves the profile as it was when no frame is in the module', () => {
    const q = applyTransform(p, { kind: 'merge-module', module: 'libm.so.6' });
    expect(toFoldedText(q)).toBe(toFoldedText(p));
  });
});

describe('collapse-recursion', () => {
  const p = profileFromText(`
    main;f;g;f;h 2
    main;f;g 1
    main;f;f;f 3
    main;x;f;f;y 5
  `);

  it('collapses direct and indirect recursion to the outermost frame', () => {
    const q = applyTransform(p, { kind: 'collapse-recursion', name: 'f' });
    expect(tree(q)).toBe(
      lines('main 11/0', '  f 6/3', '    h 2/2', '    g 1/1', '  x 5/0', '    f 5/0', '      y 5/5'),
    );
    expect(q.meta.totalSamples).toBe(11);
  });

  it('collapse-direct-recursion merges only consecutive frames', () => {
    const q = applyTransform(p, { kind: 'collapse-direct-recursion', name: 'f' });
    expect(tree(q)).toBe(
      lines(
        'main 11/0',
        '  f 6/3',
        '    g 3/1',
        '      f 2/0',
        '        h 2/2',
        '  x 5/0',
        '    f 5/0',
        '      y 5/5',
      ),
    );
  });

  it('leaves other functions alone', () => {
    const q = applyTransform(profileFromText('r;r;a;a 1'), { kind: 'collapse-recursion', name: 'a' });
    expect(toFoldedText(q)).toBe('r;r;a 1\n');
  });
});

describe('applyTransforms', () => {
  const p = profileFromText(`
    main;f;a 2
    main;f;b 1
    main;c 4
    main[app];malloc[libc];brk[libc] 3
  `);

  it('applies in order, and the order matters', () => {
    const focusThenHide = applyTransforms(p, [
      { kind: 'focus-function', name: 'f' },
      { kind: 'hide-function', name: 'f' },
    ]);
    expect(tree(focusThenHide)).toBe(lines('a 2/2', 'b 1/1'));
    const hideThenFocus = applyTransforms(p, [
      { kind: 'hide-function', name: 'f' },
      { kind: 'focus-function', name: 'f' },
    ]);
    expect(tree(hideThenFocus)).toBe('');

    const focusThenMerge = applyTransforms(p, [
      { kind: 'focus-function', name: 'malloc' },
      { kind: 'merge-module', module: 'libc' },
    ]);
    expect(tree(focusThenMerge)).toBe('libc 3/3');
    const mergeThenFocus = applyTransforms(p, [
      { kind: 'merge-module', module: 'libc' },
      { kind: 'focus-function', name: 'malloc' },
    ]);
    expect(mergeThenFocus.stacks.count).toBe(0);
  });

  it('composes hide, merge and collapse', () => {
    const q = profileFromText('main;r;lock;r;libx[x];liby[x] 2\nmain;r 1');
    const ts: Transform[] = [
      { kind: 'merge-module', module: 'x' },
      { kind: 'hide-function', name: 'lock' },
      { kind: 'collapse-direct-recursion', name: 'r' },
    ];
    expect(tree(applyTransforms(q, ts))).toBe(lines('main 3/0', '  r 3/1', '    x 2/2'));
  });

  it('returns the profile itself for an empty list', () => {
    expect(applyTransforms(p, [])).toBe(p);
  });
});

describe('describeTransform', () => {
  it('labels chips', () => {
    expect(describeTransform({ kind: 'focus-function', name: 'main' })).toBe('Focus: main');
    expect(describeTransform({ kind: 'hide-function', name: 'malloc' })).toBe('Hide: malloc');
    expect(describeTransform({ kind: 'merge-module', module: '/lib/x86_64-linux-gnu/libc.so.6' })).toBe(
      'Merge module: libc.so.6',
    );
    expect(describeTransform({ kind: 'focus-subtree', path: ['main', 'a'] })).toBe('Focus subtree: main › a');
    expect(describeTransform({ kind: 'focus-subtree', path: ['a', 'b', 'c', 'd'] })).toBe(
      'Focus subtree: a › … › d',
    );
    expect(describeTransform({ kind: 'collapse-recursion', name: 'f' })).toBe('Collapse recursion: f');
    expect(describeTransform({ kind: 'collapse-direct-recursion', name: 'f' })).toBe(
      'Collapse direct recursion: f',
    );
  });
});

/** A deterministic xorshift generator in [0, 1). */
function rng(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

describe('properties on random profiles', () => {
  function randomProfile(seed: number): FoldedProfile {
    const r = rng(seed);
    const names = ['main', 'a', 'b', 'c', 'f', 'g'];
    const text: string[] = [];
    for (let s = 0; s < 40; s++) {
      const len = 1 + Math.floor(r() * 7);
      const stack = Array.from({ length: len }, () => {
        const n = names[Math.floor(r() * names.length)];
        return n === 'c' || n === 'g' ? `${n}[lib]` : n;
      });
      text.push(`${stack.join(';')} ${1 + Math.floor(r() * 5)}`);
    }
    return profileFromText(text.join('\n'));
  }

  it('keep totals where they should and match the function table', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const p = randomProfile(seed);
      const all = total(p);
      const fns = treeFunctionTable(buildCallTree(p), p.frames.count);
      const fTotal = fns.total[findFrame(p.frames, 'f')] || 0;
      const onlyF = findFrame(p.frames, 'f');
      let onlyFWeight = 0;
      for (let s = 0; s < p.stacks.count; s++) {
        let only = true;
        for (let k = p.stacks.start[s]; k < p.stacks.start[s + 1]; k++) only &&= p.stacks.frames[k] === onlyF;
        if (only) onlyFWeight += p.stacks.weight[s];
      }
      const ap = (t: Transform) => applyTransform(p, t);
      expect(ap({ kind: 'focus-function', name: 'f' }).meta.totalSamples).toBe(fTotal);
      expect(ap({ kind: 'hide-function', name: 'f' }).meta.totalSamples).toBe(all - onlyFWeight);
      expect(ap({ kind: 'merge-module', module: 'lib' }).meta.totalSamples).toBe(all);
      expect(ap({ kind: 'collapse-recursion', name: 'f' }).meta.totalSamples).toBe(all);
      expect(ap({ kind: 'collapse-direct-recursion', name: 'f' }).meta.totalSamples).toBe(all);
      expect(ap({ kind: 'focus-subtree', path: [] }).meta.totalSamples).toBe(all);
      // Results are merged: no two stacks are equal.
      for (const t of [
        { kind: 'hide-function', name: 'a' },
        { kind: 'merge-module', module: 'lib' },
        { kind: 'collapse-recursion', name: 'b' },
      ] as Transform[]) {
        const q = ap(t);
        expect(toFoldedText(q).trim().split('\n')).toHaveLength(q.stacks.count);
      }
      const sw = sandwich(p, 'f');
      expect(sw.total).toBe(fTotal);
      expect(sw.self).toBe(fns.self[findFrame(p.frames, 'f')] || 0);
      expect(total(sw.callers)).toBe(fTotal);
      expect(total(sw.callees)).toBe(fTotal);
      expect(toFoldedText(invertProfile(invertProfile(p)))).toBe(toFoldedText(p));
    }
  });
});

describe('at scale', () => {
  it('runs every transform and view on 70k stacks × 200 frames', () => {
    const nStacks = 70_000;
    const depth = 200;
    const nFuncs = 5000;
    const nModules = 16;
    const r = rng(42);
    const name: string[] = [];
    const module = new Int32Array(nFuncs);
    for (let i = 0; i < nFuncs; i++) {
      name.push(`fn${i}`);
      module[i] = i % nModules;
    }
    const modules = Array.from({ length: nModules }, (_, m) => `/usr/lib/libm${m}.so`);
    const start = new Uint32Array(nStacks + 1);
    const frames = new Uint32Array(nStacks * depth);
    const weight = new Float64Array(nStacks);
    for (let s = 0; s < nStacks; s++) {
      const b = s * depth;
      start[s + 1] = b + depth;
      weight[s] = 1 + Math.floor(r() * 10);
      // Share a random prefix with the previous stack (a tree-like profile), then random frames,
      // with runs of recursion on fn7 and modules in long runs (frame ids ≡ module mod 16).
      const shared = s === 0 ? 0 : Math.floor(r() * depth * 0.9);
      for (let i = 0; i < depth; i++) {
        if (i === 0) frames[b] = 0;
        else if (i < shared) frames[b + i] = frames[b - depth + i];
        else if (r() < 0.05) frames[b + i] = 7;
        else if (i > 0 && r() < 0.5) frames[b + i] = (frames[b + i - 1] + nModules) % nFuncs;
        else frames[b + i] = Math.floor(r() * nFuncs);
      }
    }
    frames[nStacks * depth - 1] = 1; // make the last stack unique
    const p: FoldedProfile = {
      meta: {
        fileName: 'big',
        format: 'folded',
        periodUs: 0,
        totalSamples: 0,
        mappings: [],
        warnings: [],
        sampleType: SAMPLES_COUNT,
        sampleTypes: [SAMPLES_COUNT],
      },
      frames: functionFrames(name, module),
      modules,
      stacks: { count: nStacks, start, frames, weight },
    };
    const all = total(p);
    const root = name[frames[0]];
    const timings: string[] = [];
    const time = <T>(label: string, f: () => T): T => {
      const t0 = performance.now();
      const out = f();
      timings.push(`${label}: ${(performance.now() - t0).toFixed(0)} ms`);
      return out;
    };
    const cases: Transform[] = [
      { kind: 'focus-function', name: 'fn7' },
      { kind: 'focus-subtree', path: [root] },
      { kind: 'hide-function', name: 'fn7' },
      { kind: 'merge-module', module: 'libm3.so' },
      { kind: 'collapse-recursion', name: 'fn7' },
      { kind: 'collapse-direct-recursion', name: 'fn7' },
    ];
    for (const t of cases) {
      const q = time(describeTransform(t), () => applyTransform(p, t));
      expect(q.meta.totalSamples).toBeGreaterThan(0);
      expect(q.meta.totalSamples).toBeLessThanOrEqual(all);
    }
    const inv = time('invert', () => invertProfile(p));
    expect(inv.meta.totalSamples).toBe(all);
    const sw = time('sandwich fn7', () => sandwich(p, 'fn7'));
    expect(sw.callers.meta.totalSamples).toBe(sw.total);
    time('buildCallTree (for comparison)', () => buildCallTree(p));
    console.log(`transforms at scale (${nStacks} × ${depth}):\n  ${timings.join('\n  ')}`);
  });
});

describe('applyTransformsTraced', () => {
  it('says where each stack went, through every kind of transform, one after the other', () => {
    const p = profileFromText(`
      main;a;f;g 2
      main;b;f 3
      main;c 4
      main;f;f;h 5
      other;f 1
      lib;x;y 6
    `);
    p.modules.push('/usr/lib/libz.so');
    const lib = findFrame(p.frames, 'x');
    p.frames.module[lib] = 0;
    p.frames.module[findFrame(p.frames, 'y')] = 0;
    const all: Transform[] = [
      { kind: 'hide-function', name: 'c' },
      { kind: 'collapse-direct-recursion', name: 'f' },
      { kind: 'collapse-recursion', name: 'f' },
      { kind: 'merge-module', module: 'libz.so' },
      { kind: 'focus-subtree', path: ['main'] },
      { kind: 'focus-function', name: 'f' },
    ];
    for (let n = 1; n <= all.length; n++) {
      const ts = all.slice(0, n);
      const { profile, stackOf } = applyTransformsTraced(p, ts);
      expect(toFoldedText(profile)).toBe(toFoldedText(applyTransforms(p, ts)));
      // The weights of the stacks sent to each result stack sum to its weight; each sent stack,
      // transformed alone, is that stack.
      const sums = new Float64Array(profile.stacks.count);
      for (let s = 0; s < p.stacks.count; s++) {
        const alone = applyTransforms(onlyStack(p, s), ts);
        if (stackOf[s] < 0) {
          expect(alone.stacks.count, `${ts.length}: ${stackText(p, s)}`).toBe(0);
          continue;
        }
        sums[stackOf[s]] += p.stacks.weight[s];
        expect(stackText(alone, 0)).toBe(stackText(profile, stackOf[s]));
      }
      expect([...sums]).toEqual([...profile.stacks.weight]);
    }
  });
});

/** `p` with its stack `s` alone (weight 1). */
function onlyStack(p: FoldedProfile, s: number): FoldedProfile {
  const frames = p.stacks.frames.slice(p.stacks.start[s], p.stacks.start[s + 1]);
  return {
    ...p,
    stacks: { count: 1, start: Uint32Array.of(0, frames.length), frames, weight: Float64Array.of(1) },
  };
}

function stackText(p: FoldedProfile, s: number): string {
  const { start, frames } = p.stacks;
  return Array.from(frames.subarray(start[s], start[s + 1]), (f) => frameName(p.frames, f)).join(';');
}
