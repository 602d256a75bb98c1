// Seeded mutations of the heap and `perf script` fixtures: every input ends in a RawProfile or a
// ProfileError (nothing else thrown), and every RawProfile folds.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../src/core/formats/detect.ts';
import { foldProfile } from '../src/core/model/fold.ts';
import { ProfileError } from '../src/core/types.ts';
import { prng } from './helpers/prng';

const load = (rel: string) => new Uint8Array(readFileSync(new URL(`./fixtures/${rel}`, import.meta.url)));
const BASES = [
  'heap/allocs.0004.heap',
  'heap/synthetic-v2.heap',
  'perf/sorter.perf.txt',
  'perf/mixed.perf.txt',
].map((p) => ({ name: p, bytes: load(p) }));
const int = (r: () => number, n: number) => Math.floor(r() * n);
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
  truncate: (b, r) => b.slice(0, int(r, b.length + 1)),
  bitflips: (b, r) => {
    const out = b.slice();
    for (let k = 0; k < 1 + int(r, 8); k++) out[int(r, out.length)] ^= 1 << int(r, 8);
    return out;
  },
  tokens: (b, r) => {
    const text = new TextDecoder().decode(b);
    let out = text;
    for (let k = 0; k < 1 + int(r, 6); k++) {
      const at = int(r, out.length);
      const len = int(r, 12);
      out = out.slice(0, at) + GARBAGE[int(r, GARBAGE.length)] + out.slice(at + len);
    }
    return new TextEncoder().encode(out);
  },
  lines: (b, r) => {
    const lines = new TextDecoder().decode(b).split('\n');
    for (let k = 0; k < 1 + int(r, 5); k++) {
      const i = int(r, lines.length);
      const j = int(r, lines.length);
      if (r() < 0.5) [lines[i], lines[j]] = [lines[j], lines[i]];
      else lines.splice(i, 1);
    }
    return new TextEncoder().encode(lines.join('\n'));
  },
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
