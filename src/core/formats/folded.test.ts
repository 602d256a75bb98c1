import { describe, expect, it } from 'vitest';
import { ProfileError } from '../types.ts';
import { looksLikeFolded, parseFolded } from './folded.ts';

const enc = (s: string) => new TextEncoder().encode(s);

describe('parseFolded', () => {
  it('reads name-only stacks, leaf first', () => {
    const raw = parseFolded(enc('# comment\nmain;a;b 12\n\nmain;a 3\r\nmain;op new (unsigned long) 1\n'));
    expect(raw.format).toBe('folded');
    expect(raw.adjustCallers).toBe(false);
    expect(raw.meta.periodUs).toBe(0);
    expect(raw.samples.count).toBe(3);
    expect(Array.from(raw.samples.weight)).toEqual([12, 3, 1]);
    const first = Array.from(raw.samples.stackLocs.subarray(0, 3)).map(
      (l) => raw.strings[raw.locations.locName[l]],
    );
    expect(first).toEqual(['b', 'a', 'main']);
    expect(raw.strings).toContain('op new (unsigned long)');
    expect(Array.from(raw.locations.hasAddr)).toEqual(new Array(raw.locations.count).fill(0));
    expect(raw.warnings).toEqual([]);
  });

  it('warns about bad lines with their line number', () => {
    const raw = parseFolded(enc('main;a 1\nthis is not folded\nmain 2\n'));
    expect(raw.samples.count).toBe(2);
    expect(raw.warnings).toEqual([expect.objectContaining({ line: 2 })]);
  });

  it('throws when no line parses', () => {
    expect(() => parseFolded(enc('hello world\n'))).toThrow(ProfileError);
    expect(() => parseFolded(enc('# only a comment\n'))).toThrow(ProfileError);
  });
});

describe('looksLikeFolded', () => {
  it('accepts folded text and rejects other text', () => {
    expect(looksLikeFolded(enc('main;a;b 12\nmain 1\n'))).toBe(true);
    expect(looksLikeFolded(enc('hello, this is not a profile\n'))).toBe(false);
    expect(looksLikeFolded(enc('Chapter 1\nIt was a dark night.\n'))).toBe(false);
    expect(looksLikeFolded(enc('{"a": 1}\n'))).toBe(false);
    expect(looksLikeFolded(new Uint8Array([0, 0, 0, 0, 3, 0, 0, 0]))).toBe(false);
    expect(looksLikeFolded(enc(''))).toBe(false);
  });
});
