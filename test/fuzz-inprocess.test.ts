// In-process fuzzing (test/fuzz/engine.ts): 100 000 seeded mutations of small real files of every
// format, split by weight; each must end in a result or a ProfileError in under a second. The seed
// is new on every run and printed (FUZZ_SEED=N npm test runs the same inputs again); a failure
// names its format, seed and input index (FUZZ_REPRO=format:seed:index npm run fuzz) and its bytes
// are written to test-results/fuzz-failures/. Then the parse-while-reading property over 100 000
// gperftools inputs: read in chunks as the worker reads a large file, the same profile (or error)
// as the file parsed whole. The long run is `npm run fuzz`.

import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  budget,
  formatFailure,
  formatStats,
  fuzzFormat,
  fuzzFormats,
  MAX_INPUT_MS,
  runIndex,
} from './fuzz/engine.ts';

const SEED = process.env.FUZZ_SEED === undefined ? randomInt(1, 2 ** 31) : Number(process.env.FUZZ_SEED);
const TOTAL = 100_000;
const STREAMED = 100_000;
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

describe(`parse while reading = the whole file's parse: ${STREAMED} gperftools inputs, seed ${SEED}`, () => {
  const gperf = fuzzFormats().filter((f) => f.preview);
  // Inputs after those of the run above: other inputs under the same seed.
  for (const [f, n] of budget(STREAMED, gperf)) {
    it(`${f.id} × ${n}, each also read in chunks`, { timeout: 180_000 }, () => {
      const { stats, failures } = fuzzFormat(f, { seed: SEED, n, from: TOTAL, streamShare: 1 });
      console.log(formatStats(stats));
      expect(failures.map(formatFailure)).toEqual([]);
      expect(stats.results + stats.errors).toBe(n);
    });
  }
});

describe('the inputs the fuzzer once found failing', () => {
  // Seed 424242 (issue 33): a record of no PCs at the end of the first chunk waited for a PC it
  // does not have, so the chunked read never went past it (a RangeError in the scanner's grow, or
  // warnings other than the whole file's); snapshots with stack entries past the last stack.
  const found = [
    'gperf-32le:424242:78267',
    'gperf-64le:424242:30581',
    'gperf-64le:424242:60252',
    'gperf-64le:424242:75369',
    'snapshot:424242:10389',
    'snapshot:424242:18559',
    'snapshot:424242:20483',
  ];
  for (const at of found) {
    it(at, () => {
      const [id, seed, index] = at.split(':');
      const f = fuzzFormats().find((x) => x.id === id)!;
      // Every share of streaming: the one the finding was made with and the property's.
      for (const share of [0.25, 1]) {
        const { failure } = runIndex(f, Number(seed), Number(index), share);
        expect(failure && formatFailure(failure)).toBeUndefined();
      }
    });
  }
});
