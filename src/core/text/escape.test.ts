import { describe, expect, it } from 'vitest';
import { parseFolded } from '../formats/folded.ts';
import {
  escapeFoldedName,
  hasUnsafeChars,
  oneLine,
  terminalText,
  unescapeFoldedName,
  visibleText,
} from './escape.ts';

/** Names a file can hold that would do something else than be read. */
const HOSTILE = [
  'split\nfake;stack 1000',
  'a;b',
  '\u001b]0;owned\u0007title',
  '\u001b[2J\u001b[Hclear',
  'csi\u009b31m',
  'del\u007f',
  'nul\u0000byte',
  'cr\rreturn',
  'tab\tbed',
  'admin\u202etxt.exe',
  '\u2066isolate\u2069',
  'lrm\u200erlm\u200f',
  ' leading',
  'trailing ',
  '\u00a0nbsp',
  '#comment',
  'looks like a count 42',
  'two counts 1 2',
  'main<00000000000011f9>',
  'f<deadbeef>',
  'back\\slash',
  'escape\\x3b',
  'escape\\u202e',
  '\\x41',
  'plain::name(int) const',
  'π ∑ 名前',
  '',
  '\\e',
];

describe('escapeFoldedName', () => {
  it('leaves ordinary names alone', () => {
    for (const n of ['main', 'std::sort<int>(int*, int*)', 'back\\slash', 'π ∑ 名前', 'operator<', 'a b c'])
      expect(escapeFoldedName(n)).toBe(n);
  });

  it('writes no control, bidi character or `;`, and reads back to the same name', () => {
    for (const n of HOSTILE) {
      const e = escapeFoldedName(n);
      expect(hasUnsafeChars(e) || e.includes(';')).toBe(false);
      expect(unescapeFoldedName(e)).toBe(n);
    }
    expect(escapeFoldedName('split\nfake;stack 1000')).toBe('split\\x0afake\\x3bstack\\x201000');
    expect(escapeFoldedName('admin\u202etxt.exe')).toBe('admin\\u202etxt.exe');
  });

  it('gives folded lines the folded reader reads back to the same stacks', () => {
    const stacks = HOSTILE.map((n, i) => [`root${i}`, n, HOSTILE[(i + 1) % HOSTILE.length]]);
    const text = stacks.map((s, i) => `${s.map(escapeFoldedName).join(';')} ${i + 1}\n`).join('');
    expect(text.split('\n')).toHaveLength(HOSTILE.length + 1);
    const raw = parseFolded(new TextEncoder().encode(text));
    expect(raw.warnings).toEqual([]);
    expect(raw.samples.count).toBe(stacks.length);
    for (let s = 0; s < stacks.length; s++) {
      const locs = raw.samples.stackLocs.subarray(raw.samples.stackStart[s], raw.samples.stackStart[s + 1]);
      const names = Array.from(locs, (l) => raw.strings[raw.locations.locName[l]]).reverse();
      expect(names).toEqual(stacks[s]);
      expect(raw.samples.weight[s]).toBe(s + 1);
    }
  });
});

describe('shown text', () => {
  it('visibleText and oneLine escape every control and bidi character, newlines too', () => {
    expect(visibleText('a\u202eb\nc\u001b[2J')).toBe('a\\u202eb\\u000ac\\u001b[2J');
    expect(oneLine('x\r\ny')).toBe('x\\u000d\\u000ay');
    expect(visibleText('std::vector<int>')).toBe('std::vector<int>');
  });

  it('terminalText keeps the writer’s newlines and tabs, escapes the rest', () => {
    expect(terminalText('a\tb\n\u001b]0;t\u0007\u009b\u202e\n')).toBe(
      'a\tb\n\\u001b]0;t\\u0007\\u009b\\u202e\n',
    );
    // the same regex object twice in a row (a global regex keeps its lastIndex)
    expect(terminalText('\u001b')).toBe('\\u001b');
    expect(terminalText('\u001b')).toBe('\\u001b');
    // JSON the CLI prints stays JSON, with the same strings
    const json = JSON.stringify({ name: 'csi\u009b31m\u202e' });
    expect(JSON.parse(terminalText(json))).toEqual({ name: 'csi\u009b31m\u202e' });
  });
});
