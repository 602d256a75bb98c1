// Seeded mutations of real profiles: every input must end in a RawProfile or a ProfileError
// (nothing else thrown), quickly, and every RawProfile must fold.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../src/core/formats/detect.ts';
import { foldProfile } from '../src/core/model/fold.ts';
import { toFoldedText } from '../src/core/model/serialize.ts';
import { ProfileError } from '../src/core/types.ts';
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
const int = (r: () => number, n: number) => Math.floor(r() * n);

const MUTATIONS: Record<string, Mutation> = {
  bitflips: (b, r) => {
    const out = b.slice();
    const n = 1 + int(r, 8);
    for (let k = 0; k < n; k++) {
      const i = int(r, out.length);
      out[i] ^= 1 << int(r, 8);
    }
    return out;
  },
  truncate: (b, r) => b.slice(0, int(r, b.length + 1)),
  overwriteWord: (b, r) => {
    const out = b.slice();
    const dv = new DataView(out.buffer);
    const values = [0, 1, 2, 3, 0xffffffff, 0x7fffffff, 0x10000, int(r, 0x100000000)];
    const n = 1 + int(r, 3);
    for (let k = 0; k < n; k++) {
      const i = int(r, Math.max(1, (out.length >>> 2) - 1)) * 4;
      if (i + 4 <= out.length) dv.setUint32(i, values[int(r, values.length)], r() < 0.5);
    }
    return out;
  },
  overwriteSlotHuge: (b, r) => {
    const out = b.slice();
    const dv = new DataView(out.buffer);
    const i = int(r, Math.max(1, (out.length >>> 3) - 1)) * 8;
    if (i + 8 <= out.length) dv.setBigUint64(i, r() < 0.5 ? 1n << 40n : 0xffffffffffffffffn, true);
    return out;
  },
  splice: (b, r, other) => {
    const at = int(r, b.length >>> 3) * 8;
    const from = int(r, other.length >>> 3) * 8;
    const len = int(r, Math.min(4096, other.length - from + 1));
    const out = new Uint8Array(at + len + (b.length - at));
    out.set(b.subarray(0, at));
    out.set(other.subarray(from, from + len), at);
    out.set(b.subarray(at), at + len);
    return out;
  },
  duplicateRange: (b, r) => {
    const at = 40 + int(r, Math.max(1, (b.length - 40) >>> 3)) * 8;
    const len = int(r, 512) & ~7;
    const chunk = b.subarray(at, at + len);
    const out = new Uint8Array(b.length + chunk.length);
    out.set(b.subarray(0, at + chunk.length));
    out.set(chunk, at + chunk.length);
    out.set(b.subarray(at + chunk.length), at + 2 * chunk.length);
    return out;
  },
  dropRange: (b, r) => {
    const at = int(r, b.length);
    const len = int(r, 256);
    const out = new Uint8Array(Math.max(0, b.length - len));
    out.set(b.subarray(0, at).subarray(0, out.length));
    if (at < out.length) out.set(b.subarray(at + len), at);
    return out;
  },
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
