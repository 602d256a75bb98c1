import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rawStacks } from '../../../test/helpers/raw.ts';
import { parseGperftools, scanGperftools } from './gperftools.ts';
import { type ChunkSource, sampleGperftools } from './gperftools-sample.ts';

const fx = (p: string) =>
  new Uint8Array(readFileSync(new URL(`../../../test/fixtures/${p}`, import.meta.url)));
const source = (b: Uint8Array): ChunkSource => ({
  size: b.length,
  read: async (at, len) => b.slice(at, Math.min(b.length, at + len)),
});

describe('sampling a gperftools profile too large for the tab', () => {
  for (const f of ['gperf-own/sorter.prof', 'debian/python3.prof', 'bad/real_tiny32_be.prof']) {
    it(`${f}: keeps every N-th record, the maps text, and counts them all`, async () => {
      const whole = fx(f);
      const scan = scanGperftools(whole);
      // Chunks of 100 bytes: records cross chunk ends.
      const s = await sampleGperftools(source(whole), Math.ceil(whole.length / 3), undefined, 100);
      expect(s.every).toBe(3);
      const sampled = parseGperftools(s.bytes);
      // The same records the scan sees at indices 0, 3, 6, … (one sample per record, unmerged).
      const full = parseGperftools(whole, { dedupeMinRecords: Number.POSITIVE_INFINITY });
      const expected = rawStacks(full, undefined, (r) => r % 3 === 0);
      expect(rawStacks(sampled)).toEqual(expected);
      expect(sampled.meta.mappings).toEqual(full.meta.mappings);
      const records = scan.recordCount;
      let samples = 0;
      for (let r = 0; r < records; r++) samples += scan.weight[r];
      expect(s.warning.message).toMatch(
        new RegExp(
          `^showing 1 in 3 records: .* \\(${Math.ceil(records / 3).toLocaleString('en-US')} of ${records.toLocaleString('en-US')} records, [\\d,]+ of ${samples.toLocaleString('en-US')} samples\\)$`,
        ),
      );
    });
  }

  it('a cut file: what was read, and where reading stopped', async () => {
    const whole = fx('gperf-own/sorter.prof');
    const cut = whole.subarray(0, 5000);
    const s = await sampleGperftools(source(cut), 2000, undefined, 64);
    expect(s.warning.message).toMatch(/reading stopped: a record at byte \d+ runs past the end of the file$/);
    expect(parseGperftools(s.bytes).samples.count).toBeGreaterThan(0);
  });
});
