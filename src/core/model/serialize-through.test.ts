import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeBytes } from '../pipeline';
import { frameName } from '../text/frame-text';
import { firstChildOf, nextSiblingOf, pathToNode, totalOf } from './calltree';
import { foldedPartsThrough, foldedTextThrough, toFoldedText } from './serialize';

const a = analyzeBytes(new Uint8Array(readFileSync('test/fixtures/xss/evil.folded')), {
  fileName: 'evil.folded',
});
const sum = (text: string) =>
  text
    .trim()
    .split('\n')
    .reduce((s, l) => s + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

describe('foldedTextThrough', () => {
  it('is the whole profile, through the one serializer, when not zoomed', () => {
    expect(foldedTextThrough(a.profile, [])).toBe(toFoldedText(a.profile));
    expect(sum(foldedTextThrough(a.profile, []))).toBe(14);
  });

  it('keeps only the stacks through a zoomed node, whole (root first)', () => {
    let img = firstChildOf(a.tree, firstChildOf(a.tree, 0));
    while (frameName(a.profile.frames, a.tree.frame[img]) !== '<img src=x onerror=alert(1)>') {
      img = nextSiblingOf(a.tree, img);
    }
    const text = foldedTextThrough(a.profile, pathToNode(a.tree, img));
    expect(text).toBe('main;<img src=x onerror=alert(1)> 4\nmain;<img src=x onerror=alert(1)>;leaf 5\n');
    expect(sum(text)).toBe(totalOf(a.tree, img));
  });
});

describe('foldedPartsThrough', () => {
  it('makes each part as it is taken: the first before the later stacks are read', () => {
    // ~3 MB of text: three parts of about a megabyte.
    const name = 'x'.repeat(100);
    const lines = Array.from({ length: 30_000 }, (_, i) => `main;${name}${i} ${1 + (i % 7)}`);
    const p = analyzeBytes(new TextEncoder().encode(lines.join('\n')), { fileName: 'many.folded' }).profile;
    const weight = p.stacks.weight;
    let reads = 0;
    const counted = new Proxy(weight, {
      get(t, k) {
        if (typeof k === 'string' && /^\d+$/.test(k)) reads++;
        const v = Reflect.get(t, k);
        return typeof v === 'function' ? v.bind(t) : v;
      },
    });
    const parts = foldedPartsThrough(p, [], [counted])[Symbol.iterator]();
    const first = parts.next();
    expect(first.done).toBe(false);
    expect(first.value.length).toBeGreaterThanOrEqual(1 << 20);
    // Only the stacks of the first part (a third of them, and the one line that passed its end).
    expect(reads).toBeLessThan(p.stacks.count / 2);
    let text = first.value;
    for (let r = parts.next(); !r.done; r = parts.next()) text += r.value;
    expect(reads).toBe(p.stacks.count);
    expect(text).toBe(toFoldedText(p));
  });
});
