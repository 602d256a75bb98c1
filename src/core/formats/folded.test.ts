import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ProfileError } from '../types.ts';
import { looksLikeFolded, parseFolded, readFolded } from './folded.ts';

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

describe("google-pprof --collapsed's address tags", () => {
  const dir = 'test/fixtures/gperf-own';
  const files = readdirSync(dir).filter((f) => f.endsWith('.pprof-collapsed.txt'));

  it.each(files)('%s: names lose their <hex> tags, nothing else changes', (f) => {
    const text = readFileSync(`${dir}/${f}`, 'utf8');
    expect(text).toMatch(/[A-Za-z_]<[0-9a-f]{16}>[; ]/); // the tags are there to strip
    const raw = parseFolded(enc(text));
    const names = new Set(raw.strings);
    for (const n of names) expect(n).not.toMatch(/<[0-9a-f]+>$/);
    expect(names).toContain('main');
    // The same stacks as the text with the tags removed by hand.
    const untagged = parseFolded(enc(text.replace(/<[0-9a-f]{16}>/g, '')));
    const stacks = (r: typeof raw) =>
      Array.from({ length: r.samples.count }, (_, s) =>
        Array.from(r.samples.stackLocs.subarray(r.samples.stackStart[s], r.samples.stackStart[s + 1]))
          .map((l) => r.strings[r.locations.locName[l]])
          .join(';'),
      );
    expect(stacks(raw)).toEqual(stacks(untagged));
    expect(Array.from(raw.samples.weight)).toEqual(Array.from(untagged.samples.weight));
  });

  it('keeps names that only look alike', () => {
    const raw = parseFolded(enc('main;Foo<int>;x<12> 1\n<0000000000001340> 1\n'));
    expect(raw.strings).toEqual(expect.arrayContaining(['Foo<int>', 'x<12>', '<0000000000001340>']));
    const tagged = parseFolded(enc('main<0000000000001340>;f<00401000> 2\n'));
    expect(tagged.strings).toEqual(expect.arrayContaining(['main', 'f']));
  });
});

describe('reading folded lines from their bytes', () => {
  // Lines made of the pieces that trimming, splitting and the counts' forms turn on; each file is
  // read from its bytes and, as the reference, each line decoded and read as text.
  const PIECES = [
    'main',
    ' a',
    'b ',
    '  ',
    '',
    'x<0000beef>',
    '#c',
    '\\x3b',
    'f\tg',
    'h\u000bi',
    'op()',
    '\r',
  ];
  const COUNTS = ['1', '12', '3.5', '-2', '1e-7', '2E+3', 'x', '1.', '', '007'];
  const SEPS = [' ', '\t', '  ', ' \t '];
  function randomLine(rand: () => number): string {
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
    const r = rand();
    if (r < 0.05) return pick(['', '   ', '# a comment 1', '  # x 2', '\r', 'alone']);
    const names = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(PIECES)).join(';');
    const counts = Array.from({ length: 1 + Math.floor(rand() * 2) }, () => pick(SEPS) + pick(COUNTS)).join(
      '',
    );
    return `${rand() < 0.1 ? ' ' : ''}${names}${counts}${rand() < 0.2 ? pick([' ', '\r', '\t ']) : ''}`;
  }
  function seeded(seed: number): () => number {
    let x = seed;
    return () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x / 2 ** 32;
    };
  }
  const same = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    let expected: unknown;
    let got: unknown;
    try {
      expected = readFolded(bytes, false);
    } catch (e) {
      expected = (e as Error).message;
    }
    try {
      got = readFolded(bytes, true);
    } catch (e) {
      got = (e as Error).message;
    }
    expect(got).toEqual(expected);
  };

  it('reads every line as its text reads, one count and two', () => {
    const rand = seeded(7);
    for (let file = 0; file < 400; file++) {
      const lines = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => randomLine(rand));
      same(lines.join('\n'));
      // two counts on every line: difffolded's form
      same(lines.map((l) => `${l.trimEnd()} 4 5`).join('\n'));
    }
  });

  it('reads non-ASCII lines, a byte-order mark and CRLF line ends as text does', () => {
    same('\ufeffmain;ä 3\r\nmain;b\u00a0 2\n\u3000;x 1\nmain;\ud83d\ude00 4\n');
    const bad = new Uint8Array([
      ...new TextEncoder().encode('main;a 1\nmain;'),
      0xc3,
      ...new TextEncoder().encode(' 2\n'),
    ]);
    expect(readFolded(bad, true)).toEqual(readFolded(bad, false));
  });
});
