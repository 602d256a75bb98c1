// In-process fuzzing (test/fuzz/engine.ts): 100 000 seeded mutations of small real files of every
// format, split by weight; each must end in a result or a ProfileError in under a second. The seed
// is new on every run and printed (FUZZ_SEED=N npm test runs the same inputs again); a failure
// names its format, seed and input index (FUZZ_REPRO=format:seed:index npm run fuzz) and its bytes
// are written to test-results/fuzz-failures/. The parse-while-reading property is its own file
// (fuzz-stream.test.ts), so that the two run side by side. The long run is `npm run fuzz`.

import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { READ_RECORD_TYPES } from '../src/core/formats/perfdata/records.ts';
import { parsePerfData } from '../src/core/formats/perfdata.ts';
import {
  budget,
  formatFailure,
  formatStats,
  fuzzFormat,
  fuzzFormats,
  MAX_INPUT_MS,
  perfDataEveryRecord,
  perfRecordTypes,
} from './fuzz/engine.ts';

const SEED = process.env.FUZZ_SEED === undefined ? randomInt(1, 2 ** 31) : Number(process.env.FUZZ_SEED);
const TOTAL = 100_000;
console.log(`fuzz seed ${SEED}: run these inputs again with FUZZ_SEED=${SEED}`);

describe(`in-process fuzz: ${TOTAL} inputs, seed ${SEED}`, () => {
  const plan = budget(TOTAL);
  it('covers every format with at least 100 000 inputs in all', () => {
    const ids = fuzzFormats().map((f) => f.id);
    for (const id of [
      'gperf-64le',
      'gperf-32le',
      'gperf-64be',
      'gperf-32be',
      'dcpi',
      'folded',
      'pprof-raw',
    ]) {
      expect(ids).toContain(id);
    }
    for (const id of ['pprof', 'heap', 'perf-script', 'perf-data', 'snapshot', 'elf', 'nm', 'kallsyms'])
      expect(ids).toContain(id);
    expect([...plan.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(100_000);
  });

  it('mutates a record of every type the perf.data reader reads: its seeds hold each one', () => {
    const seeds = fuzzFormats().find((f) => f.id === 'perf-data')!.seeds;
    const held = new Set(seeds.flatMap((s) => perfRecordTypes(s.bytes)));
    expect(READ_RECORD_TYPES.filter((t) => !held.has(t))).toEqual([]);
    // the seed made for the rarest ones reads, and says what it holds
    const raw = parsePerfData(perfDataEveryRecord().bytes);
    const said = raw.warnings.map((w) => w.message).join('\n');
    expect(said).toMatch(/samples were lost/);
    expect(said).toMatch(/compressed/);
    expect(raw.samples.count).toBe(60);
  });

  for (const [f, n] of plan) {
    it(`${f.id} × ${n}`, { timeout: 180_000 }, () => {
      const { stats, failures } = fuzzFormat(f, { seed: SEED, n });
      console.log(formatStats(stats));
      expect(failures.map(formatFailure)).toEqual([]);
      expect(stats.inputs).toBe(n);
      expect(stats.results + stats.errors).toBe(n);
      expect(stats.slowestMs).toBeLessThan(MAX_INPUT_MS);
      // the mutations must leave enough inputs whole to reach past the first checks
      expect(stats.results).toBeGreaterThan(n / 50);
    });
  }
});
