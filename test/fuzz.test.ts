// Seeded mutations of real profiles: every input must end in a RawProfile or a ProfileError
// (nothing else thrown), quickly, and every RawProfile must fold.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../src/core/formats/detect.ts';
import { foldProfile } from '../src/core/model/fold.ts';
import { toFoldedText } from '../src/core/model/serialize.ts';
import { ProfileError } from '../src/core/types.ts';
import { bitflips, dropRange, duplicateRange, int, setWords, splice, truncate } from './helpers/mutate.ts';
import { prng } from './helpers/prng';

const FIX = new URL('./fixtures/', import.meta.url);
const load = (rel: string) => new Uint8Array(readFileSync(new URL(rel, FIX)));

const BASES = [
  'gperf/tiny.prof',
  'gperf/tiny32.prof',
  'gperf/shlib.prof',
  'gperf/deep_recursion32.prof',
  'gperf/cxx_demangle.prof',
  'bad/ok_synthetic64_be.prof',
  'bad/ok_synthetic32_be.prof',
  'bad/maps_edge_cases.prof',
].map((p) => ({ name: p, bytes: load(p) }));

type Mutation = (b: Uint8Array, r: () => number, other: Uint8Array) => Uint8Array;

const MUTATIONS: Record<string, Mutation> = {
  bitflips: (b, r) => bitflips(b, r),
  truncate: (b, r) => truncate(b, r),
  overwriteWord: (b, r) => setWords(b, r, { size: 4 }),
  overwriteSlotHuge: (b, r) => setWords(b, r, { size: 8, littleEndian: true, max: 1 }),
  splice: (b, r, other) => splice(b, r, other, { align: 8, maxLen: 4096 }),
  duplicateRange: (b, r) => duplicateRange(b, r, { align: 8, from: 40, maxLen: 512 }),
  dropRange: (b, r) => dropRange(b, r, 256),
};

const CASES_PER_MUTATION = 500;

describe('fuzz: mutated profiles end in a RawProfile or a ProfileError', () => {
  for (const [mname, mutate] of Object.entries(MUTATIONS)) {
    it(`${mname} × ${CASES_PER_MUTATION}`, () => {
      const r = prng(0xf1a3e ^ (mname.length * 7919) ^ mname.charCodeAt(0));
      let parsed = 0;
      let refused = 0;
      let slowest = 0;
      for (let c = 0; c < CASES_PER_MUTATION; c++) {
        const base = BASES[int(r, BASES.length)];
        const other = BASES[int(r, BASES.length)].bytes;
        const input = mutate(base.bytes, r, other);
        const t0 = performance.now();
        try {
          const raw = parseProfile(input);
          const p = foldProfile(raw, { fileName: base.name });
          toFoldedText(p);
          expect(Number.isFinite(p.meta.totalSamples)).toBe(true);
          parsed++;
        } catch (e) {
          if (!(e instanceof ProfileError)) {
            throw new Error(`case ${c} (${mname} of ${base.name}) threw ${String(e)}`);
          }
          expect(e.describe().length).toBeGreaterThan(0);
          refused++;
        }
        const ms = performance.now() - t0;
        slowest = Math.max(slowest, ms);
        if (ms > 1000) throw new Error(`case ${c} (${mname} of ${base.name}) took ${ms.toFixed(0)} ms`);
      }
      expect(parsed + refused).toBe(CASES_PER_MUTATION);
      expect(slowest).toBeLessThan(1000);
    });
  }
});
