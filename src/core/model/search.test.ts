import { describe, expect, it } from 'vitest';
import { frameName } from '../text/frame-text';
import { buildCallTree, nodeByFrames } from './calltree';
import { frameNames } from './frames';
import { compileQuery, searchProfile } from './search';
import { profileFromText } from './text-notation';

describe('search', () => {
  it('counts each sample once, even when a stack matches twice', () => {
    const q = profileFromText('main;f;g;f 4\nmain;g 3\nmain 1');
    const t = buildCallTree(q);
    const r = searchProfile(q, { text: '^(f|g)$', regex: true });
    expect(r.samples).toBe(7);
    const tops = r.tops.map((path) => nodeByFrames(t, path));
    expect(tops.map((v) => frameName(q.frames, t.frame[v]))).toEqual(['f', 'g']);
    expect(Array.from(r.match)).toEqual(frameNames(q.frames).map((n) => (n === 'f' || n === 'g' ? 1 : 0)));
  });
  it('merges the stacks through one matched node, heaviest first', () => {
    const q = profileFromText('main;a;x;y 1\nmain;a;x;z 2\nmain;b;x 5\nmain;a 9');
    const r = searchProfile(q, { text: 'x', regex: false });
    expect(r.samples).toBe(8);
    expect(r.tops.map((p) => Array.from(p, (f) => frameName(q.frames, f)).join(';'))).toEqual([
      'main;b;x',
      'main;a;x',
    ]);
  });
  it('plain text and bad regular expressions', () => {
    expect(compileQuery({ text: 'a(', regex: false })?.ok).toBe(true);
    const bad = compileQuery({ text: 'a(', regex: true });
    expect(bad?.ok).toBe(false);
    expect(compileQuery({ text: '', regex: true })).toBeNull();
    const q = profileFromText('main;a 1');
    expect(searchProfile(q, { text: 'a(', regex: true }).error).toBeTruthy();
  });
});
