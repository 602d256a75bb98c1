// Seeded mutations of real profile.proto files (uncompressed): every input must end in a RawProfile
// or a ProfileError (nothing else thrown), in under a second, and every RawProfile must fold and
// be written back out.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  bitflips,
  insertBytes,
  int,
  setBytes,
  splice,
  truncate,
  VARINT_RUN,
} from '../../../test/helpers/mutate.ts';
import { prng } from '../../../test/helpers/prng.ts';
import { foldProfile } from '../model/fold.ts';
import { withSampleType } from '../model/sample-types.ts';
import { toFoldedText } from '../model/serialize.ts';
import { ProfileError } from '../types.ts';
import { parsePprof } from './pprof.ts';
import { writePprof } from './pprof-write.ts';

const FIX = new URL('../../../test/fixtures/pprof/', import.meta.url);
const load = (rel: string) => {
  const b = new Uint8Array(readFileSync(new URL(rel, FIX)));
  return rel.endsWith('.gz') ? gunzipSync(b) : b;
};
const BASES = [
  'corpus/tiny.pb.gz',
  'corpus/shlib.pb.gz',
  'corpus/cxx_demangle32.pb.gz',
  'go/cpu.pb.gz',
  'go/heap.pb.gz',
  'addr/threads.pb.gz',
  'bad/ok.pb',
  'bad/ok_sparse_ids.pb',
].map((p) => ({ name: p, bytes: load(p) }));

type Mutation = (b: Uint8Array, r: () => number, other: Uint8Array) => Uint8Array;

const MUTATIONS: Record<string, Mutation> = {
  bitflips: (b, r) => bitflips(b, r, 6),
  // varint-hostile bytes: continuation bits, all ones, zeros, big lengths
  bytes: (b, r) => setBytes(b, r),
  truncate: (b, r) => truncate(b, r),
  insertVarint: (b, r) => insertBytes(b, r, VARINT_RUN),
  splice: (b, r, other) => splice(b, r, other, { maxLen: 512 }),
};

const CASES_PER_MUTATION = 400; // × 5 mutations = 2000 cases

describe('fuzz: mutated profile.proto files end in a RawProfile or a ProfileError', () => {
  for (const [mname, mutate] of Object.entries(MUTATIONS)) {
    it(`${mname} × ${CASES_PER_MUTATION}`, () => {
      const r = prng(0x9b0f ^ (mname.length * 7919) ^ mname.charCodeAt(0));
      let parsed = 0;
      let refused = 0;
      for (let c = 0; c < CASES_PER_MUTATION; c++) {
        const base = BASES[int(r, BASES.length)];
        const input = mutate(base.bytes, r, BASES[int(r, BASES.length)].bytes);
        const t0 = performance.now();
        try {
          const raw = parsePprof(input);
          for (let t = 0; t < (raw.sampleTypes?.length ?? 1); t++) {
            const p = foldProfile(withSampleType(raw, t), { fileName: base.name });
            toFoldedText(p);
            if (t === 0) writePprof(p, { gzip: false });
          }
          parsed++;
        } catch (e) {
          if (!(e instanceof ProfileError)) {
            throw new Error(`case ${c} (${mname} of ${base.name}) threw ${e instanceof Error ? e.stack : e}`);
          }
          expect(e.format).toBe('pprof');
          expect(e.offset).toBeGreaterThanOrEqual(0);
          expect(e.offset).toBeLessThanOrEqual(input.length);
          refused++;
        }
        const ms = performance.now() - t0;
        if (ms > 1000) throw new Error(`case ${c} (${mname} of ${base.name}) took ${ms.toFixed(0)} ms`);
      }
      expect(parsed + refused).toBe(CASES_PER_MUTATION);
      expect(refused).toBeGreaterThan(0);
    });
  }
});
