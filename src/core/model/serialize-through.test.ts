import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeBytes } from '../pipeline';
import { frameName } from '../text/frame-text';
import { firstChildOf, nextSiblingOf, pathToNode, totalOf } from './calltree';
import { foldedTextThrough, toFoldedText } from './serialize';

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
