// Seeded mutations of the heap and `perf script` fixtures: every input ends in a RawProfile or a
// ProfileError (nothing else thrown), and every RawProfile folds.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../src/core/formats/detect.ts';
import { foldProfile } from '../src/core/model/fold.ts';
import { ProfileError } from '../src/core/types.ts';
import { bitflips, editLines, int, onText, replaceTokens, truncate } from './helpers/mutate.ts';
import { prng } from './helpers/prng';

const load = (rel: string) => new Uint8Array(readFileSync(new URL(`./fixtures/${rel}`, import.meta.url)));
const BASES = [
  'heap/allocs.0004.heap',
  'heap/synthetic-v2.heap',
  'perf/sorter.perf.txt',
  'perf/mixed.perf.txt',
].map((p) => ({ name: p, bytes: load(p) }));
const GARBAGE = [
  '',
  ' ',
  '\t',
  ':',
  '@',
  '[',
  ']',
  '0x',
  'ffffffffffffffffff',
  '(',
  ')',
  '\n',
  '\n\n',
  '#',
  '-1',
];

const MUTATIONS: Record<string, (b: Uint8Array, r: () => number) => Uint8Array> = {
  truncate: (b, r) => truncate(b, r),
  bitflips: (b, r) => bitflips(b, r),
  tokens: (b, r) => onText(b, (t) => replaceTokens(t, r, GARBAGE)),
  lines: (b, r) => onText(b, (t) => editLines(t, r)),
};

describe('fuzz: mutated heap and perf script text', () => {
  for (const [name, mutate] of Object.entries(MUTATIONS)) {
    it(`${name} × 200`, () => {
      const r = prng(0x7e47 ^ name.charCodeAt(0));
      let parsed = 0;
      for (let c = 0; c < 200; c++) {
        const base = BASES[int(r, BASES.length)];
        const input = mutate(base.bytes, r);
        try {
          const raw = parseProfile(input);
          foldProfile(raw, { fileName: base.name });
          parsed++;
        } catch (e) {
          if (!(e instanceof ProfileError)) throw new Error(`${base.name} ${name} case ${c}: ${e}`);
        }
      }
      expect(parsed).toBeGreaterThan(50);
    });
  }
});
