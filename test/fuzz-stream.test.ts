// The parse-while-reading property over 100 000 fuzzed gperftools and heap inputs (test/fuzz/engine.ts):
// each read in random chunks as the worker reads a large file must give the same profile (or error)
// as the file parsed whole; then the inputs the fuzzer once found failing. The seed is new on every
// run and printed (FUZZ_SEED=N runs the same inputs again; a failure prints its FUZZ_REPRO). Apart
// from fuzz-inprocess.test.ts so that the two run side by side.

import { randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { budget, formatFailure, formatStats, fuzzFormat, fuzzFormats, runIndex } from './fuzz/engine.ts';

const SEED = process.env.FUZZ_SEED === undefined ? randomInt(1, 2 ** 31) : Number(process.env.FUZZ_SEED);
/** Where the inputs start: past those fuzz-inprocess.test.ts runs, other inputs under the same seed. */
const FROM = 100_000;
const STREAMED = 100_000;
console.log(`fuzz seed ${SEED} (parse while reading): run these inputs again with FUZZ_SEED=${SEED}`);

describe(`parse while reading = the whole file's parse: ${STREAMED} gperftools and heap inputs, seed ${SEED}`, () => {
  const chunked = fuzzFormats().filter((f) => f.preview || f.chunks);
  for (const [f, n] of budget(STREAMED, chunked)) {
    it(`${f.id} × ${n}, each also read in chunks`, { timeout: 180_000 }, () => {
      const { stats, failures } = fuzzFormat(f, { seed: SEED, n, from: FROM, streamShare: 1 });
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
