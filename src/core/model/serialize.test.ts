import { describe, expect, it } from 'vitest';
import { prng } from '../../../test/helpers/prng';
import { frameName } from '../text/frame-text';
import { foldedChunks, toFoldedText } from './serialize';
import { profileFromText } from './text-notation';

/** The old serializer: join every stack's names, sum equal texts, sort the strings. */
function naive(text: string): string {
  const p = profileFromText(text);
  const sums = new Map<string, number>();
  for (let s = 0; s < p.stacks.count; s++) {
    const parts: string[] = [];
    for (let k = p.stacks.start[s]; k < p.stacks.start[s + 1]; k++)
      parts.push(frameName(p.frames, p.stacks.frames[k]));
    const t = parts.join(';');
    sums.set(t, (sums.get(t) ?? 0) + p.stacks.weight[s]);
  }
  return [...sums.keys()]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((t) => `${t} ${sums.get(t)}\n`)
    .join('');
}

describe('folded text', () => {
  it('sorts as the joined strings would, without joining them all: prefixes, digits, colons, modules', () => {
    // `f` before `f2` as names, but `f2` before `f;g` as text (0x32 < `;`); `a:b` likewise; the
    // same name in two modules is one text (summed).
    const text = [
      'f;g 1',
      'f2 2',
      'f 3',
      'a:b 4',
      'a;b 5',
      'x[m1];y 6',
      'x[m2];y 7',
      'f;g 8',
      'f!;h 9',
      'f 10',
      'f;g;h 11',
    ].join('\n');
    expect(toFoldedText(profileFromText(text))).toBe(naive(text));
  });

  it('equals the joined-string sort on random stacks, emitted in chunks', () => {
    const rnd = prng(7);
    const alphabet = ['a', 'ab', 'a1', 'b', 'a:', 'a b', 'b(', 'z', 'ä', 'a[m]'];
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      const n = 1 + Math.floor(rnd() * 5);
      lines.push(
        `${Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(';')} ${1 + Math.floor(rnd() * 9)}`,
      );
    }
    const text = lines.join('\n');
    const chunks: string[] = [];
    foldedChunks(profileFromText(text), [profileFromText(text).stacks.weight], (t) => chunks.push(t), {
      chunk: 64,
    });
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join('')).toBe(naive(text));
  });
});
