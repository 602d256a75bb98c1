// The gperftools corpus (copied from the shared corpus into test/fixtures, see its README):
// real profiles against the reference decoder's output, malformed files against their verdicts,
// and the unsymbolized fold against fold_expect.py's output.

import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bigOf } from '../src/core/address.ts';
import { parseProfile } from '../src/core/formats/detect.ts';
import { parseGperftools } from '../src/core/formats/gperftools.ts';
import { foldProfile } from '../src/core/model/fold.ts';
import { toFoldedText } from '../src/core/model/serialize.ts';
import { ProfileError, type RawProfile } from '../src/core/types.ts';
import { rawStacks } from './helpers/raw.ts';

const FIX = new URL('./fixtures/', import.meta.url);
const bytesOf = (rel: string) => {
  const b = readFileSync(new URL(rel, FIX));
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
};
const textOf = (rel: string): string => {
  try {
    return readFileSync(new URL(rel, FIX), 'utf8');
  } catch {
    return new TextDecoder().decode(gunzipSync(bytesOf(`${rel}.gz`)));
  }
};

/** decode_gperf.py text output: total and root-first raw-address stacks. */
function readDecode(text: string): { total: number; stacks: Map<string, number> } {
  const total = Number(/total_samples: (\d+)/.exec(text)?.[1]);
  const stacks = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    stacks.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return { total, stacks };
}

/** Root-first raw stacks, formatted as decode_gperf does (0x + zero-padded to the word size). */
const decodeGperfStacks = (raw: RawProfile) =>
  rawStacks(raw, (a) => `0x${a.toString(16).padStart(raw.meta.wordSize === 32 ? 8 : 16, '0')}`);

const total = (raw: RawProfile) => raw.samples.weight.reduce((a, b) => a + b, 0);

const GPERF = readdirSync(new URL('gperf/', FIX))
  .filter((f) => f.endsWith('.prof'))
  .map((f) => f.slice(0, -5))
  .sort();

describe('real gperftools profiles', () => {
  it('has the 12 corpus profiles', () => expect(GPERF).toHaveLength(12));

  for (const name of GPERF) {
    it(`${name}: totals and raw stacks equal decode.txt`, () => {
      const raw = parseGperftools(bytesOf(`gperf/${name}.prof`));
      const want = readDecode(textOf(`gperf/oracle/${name}/decode.txt`));
      expect(raw.warnings).toEqual([]);
      expect(total(raw)).toBe(want.total);
      expect(decodeGperfStacks(raw)).toEqual(want.stacks);
      const perlTotal = Number(
        /Total: (\d+) samples/.exec(textOf(`gperf/oracle/${name}/perl.text.txt`))?.[1],
      );
      expect(total(raw)).toBe(perlTotal);
    });

    it(`${name}: unsymbolized fold equals fold_expect.py`, () => {
      const p = foldProfile(parseProfile(bytesOf(`gperf/${name}.prof`)), { fileName: `${name}.prof` });
      expect(toFoldedText(p)).toBe(textOf(`gperf/expected-fold/${name}.folded`));
    });
  }

  it('reads the 32-bit profiles as 32-bit', () => {
    for (const n of ['tiny32', 'deep_recursion32', 'cxx_demangle32']) {
      expect(parseGperftools(bytesOf(`gperf/${n}.prof`)).meta.wordSize).toBe(32);
    }
  });
});

describe('upstream legacy profiles (google/pprof testdata)', () => {
  for (const name of ['cppbench.cpu', 'gobench.cpu', 'go.crc32.cpu']) {
    it(`${name}: equals decode.txt`, () => {
      const raw = parseGperftools(bytesOf(`upstream/${name}`));
      const want = readDecode(textOf(`upstream/${name}.decode.txt`));
      expect(total(raw)).toBe(want.total);
      expect(decodeGperfStacks(raw)).toEqual(want.stacks);
    });
  }

  it('java.cpu (format version 1, the Java variant) is refused clearly', () => {
    expect(() => parseGperftools(bytesOf('upstream/java.cpu'))).toThrow(/version 1/);
  });
});

interface Expect {
  expect: 'ok' | 'partial' | 'error' | 'error_or_partial';
  stacks?: Record<string, number> | null;
  total_samples?: number;
  period_us?: number;
  same_as?: string;
  mappings?: [string, string, string][];
}

const NO_SAMPLES = 'the profile holds no samples: there is nothing to draw';

/** Files whose verdict is "ok" but that deserve a warning (README §8: ok+warn). */
const OK_WITH_WARNING = new Set(['period_zero', 'first_pc_zero_before_trailer', 'real_tiny_no_maps']);

const BAD = readdirSync(new URL('bad/', FIX))
  .filter((f) => f.endsWith('.prof'))
  .map((f) => f.slice(0, -5))
  .sort();

describe('malformed and edge-case files (bad/)', () => {
  it('has all of them', () => expect(BAD.length).toBe(31));

  for (const name of BAD) {
    const exp = JSON.parse(textOf(`bad/${name}.expect.json`)) as Expect;
    it(`${name}: ${exp.expect}`, () => {
      const bytes = bytesOf(`bad/${name}.prof`);
      let raw: RawProfile | null = null;
      let err: unknown = null;
      try {
        raw = parseProfile(bytes);
      } catch (e) {
        err = e;
      }
      if (exp.expect === 'error') {
        expect(err).toBeInstanceOf(ProfileError);
        expect((err as ProfileError).describe()).toMatch(/\(at byte \d+\)$/);
        return;
      }
      if (exp.expect === 'error_or_partial') {
        if (err) {
          expect(err).toBeInstanceOf(ProfileError);
          return;
        }
        expect(raw!.warnings.length).toBeGreaterThan(0);
        expect(total(raw!)).toBe(0);
        return;
      }
      if (err) throw err;
      const r = raw!;
      // A profile of no samples says so (README §8: "Show 'no samples'"); its other warnings say where.
      const said = r.warnings.filter((w) => w.message !== NO_SAMPLES);
      expect(r.warnings.length - said.length).toBe(total(r) === 0 ? 1 : 0);
      if (exp.expect === 'partial' || OK_WITH_WARNING.has(name)) {
        expect(said.length).toBeGreaterThan(0);
        for (const w of said) expect(w.offset).toBeTypeOf('number');
      } else {
        expect(said).toEqual([]);
      }
      if (exp.stacks) expect(decodeGperfStacks(r)).toEqual(new Map(Object.entries(exp.stacks)));
      if (exp.total_samples !== undefined) expect(total(r)).toBe(exp.total_samples);
      if (exp.period_us !== undefined) expect(r.meta.periodUs).toBe(exp.period_us);
      if (exp.same_as) {
        const oracle = exp.same_as.replace(/^gperf\/(.*)\.prof$/, 'gperf/oracle/$1/decode.txt');
        const want = readDecode(textOf(oracle));
        expect(decodeGperfStacks(r)).toEqual(want.stacks);
        expect(total(r)).toBe(want.total);
      }
      if (exp.mappings) {
        expect(
          r.meta.mappings.map((m) => [
            m.start.toString(16).padStart(8, '0'),
            m.end.toString(16).padStart(8, '0'),
            m.path,
          ]),
        ).toEqual(exp.mappings);
      }
      // Folding never fails on what was parsed.
      expect(foldProfile(r, { fileName: name }).meta.totalSamples).toBe(total(r));
    });
  }

  it('names the byte offsets the README asks for', () => {
    const huge = parseProfile(bytesOf('bad/num_pcs_huge.prof'));
    expect(huge.warnings[0].message).toMatch(/^corrupt record at byte 120/);
    const cut = parseProfile(bytesOf('bad/truncated_mid_record.prof'));
    expect(cut.warnings[0].message).toMatch(/^truncated at byte 80/);
    expect(cut.warnings[0].offset).toBe(80);
    expect(parseProfile(bytesOf('bad/period_zero.prof')).warnings[0].message).toBe(
      'period is 0: showing sample counts without time',
    );
  });
});

describe('profiles recorded by make_fixtures.sh (gperf-own/)', () => {
  for (const name of ['spin', 'sorter']) {
    it(`${name}: totals equal the profiler's interrupt count and google-pprof's total`, () => {
      const raw = parseGperftools(bytesOf(`gperf-own/${name}.prof`));
      const interrupts = Number(
        /interrupts\/evictions\/bytes = (\d+)\//.exec(textOf(`gperf-own/${name}.run.log`))?.[1],
      );
      const perl = Number(/Total: (\d+) samples/.exec(textOf(`gperf-own/${name}.pprof-text.txt`))?.[1]);
      expect(raw.warnings).toEqual([]);
      expect(total(raw)).toBe(interrupts);
      expect(total(raw)).toBe(perl);
    });

    it(`${name}: every stack passes through the program's own code`, () => {
      const raw = parseGperftools(bytesOf(`gperf-own/${name}.prof`));
      const exe = raw.meta.mappings.filter((m) => m.path.endsWith(`/bin/${name}`));
      expect(exe).toHaveLength(1);
      const { start, end } = exe[0];
      const { stackStart, stackLocs } = raw.samples;
      for (let s = 0; s < raw.samples.count; s++) {
        let inside = 0;
        for (let p = stackStart[s]; p < stackStart[s + 1]; p++) {
          const a = bigOf(raw.locations.addrHi[stackLocs[p]], raw.locations.addrLo[stackLocs[p]]);
          if (a >= start && a < end) inside++;
        }
        expect(inside).toBeGreaterThan(0);
      }
      const text = toFoldedText(foldProfile(raw, { fileName: `${name}.prof` }));
      for (const line of text.trimEnd().split('\n')) expect(line).toContain(`${name}+0x`);
    });
  }
});
