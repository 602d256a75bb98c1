// The search's pattern engine measured: RE2 (re2js, what `model/search.ts` compiles every pattern
// with) against a JavaScript RegExp, on the bench's 100 MB profile (makeSyntheticProfile, folded
// at address granularity, as the worker folds it without binaries) and on one million names in the
// bench ELF's style (a symbolized profile of a large program), each pattern case-insensitive as the
// search box is. Prints the median of BENCH_RUNS (default 5) runs; asserts nothing.
//
//   npx tsx bench/search.ts [MB]      (default 100)

import { frameNames } from '../src/core/model/frames.ts';
import { compileQuery, matchFrames, searchProfile } from '../src/core/model/search.ts';
import { fold, parse } from '../src/core/pipeline.ts';
import { prng } from '../test/helpers/prng.ts';
import { syntheticSymbolName } from './gen-elf.ts';
import { makeSyntheticProfile } from './gen-synthetic.ts';

const runs = Number(process.env.BENCH_RUNS ?? 5);
const mb = Number(process.argv[2] ?? 100);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (f: () => void) => {
  const ms: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    f();
    ms.push(performance.now() - t0);
  }
  return median(ms);
};

/** The search as it was: a RegExp, case-insensitive. */
const regexpTest = (text: string) => {
  const re = new RegExp(text, 'i');
  return (s: string) => re.test(s);
};
const re2Test = (text: string) => {
  const m = compileQuery({ text, regex: true });
  if (!m?.ok) throw new Error(`bad pattern ${text}`);
  return m.test;
};

const PATTERNS = ['fn_0004', 'BENCH\\+0x1', '^libc', '(alloc|free|parse)_', 'fn_\\d+7$', '.*x.*y'];

const bytes = makeSyntheticProfile(Math.round(mb * 1e6), 1);
const { profile } = fold(parse(bytes, 'synthetic.prof'), { granularity: 'addresses' });
console.log(
  `${mb} MB profile: ${profile.stacks.count} stacks, ${profile.stacks.frames.length} stack entries, ${profile.frames.count} frames`,
);
const rnd = prng(7);
const names = Array.from({ length: 1_000_000 }, (_, k) => syntheticSymbolName(k, 7, rnd));
console.log('pattern                   search (RE2 / RegExp ms)   1M names matched (RE2 / RegExp ms)');
for (const p of PATTERNS) {
  const whole = {
    re2: time(() => searchProfile(profile, { text: p, regex: true })),
    // the same pass with the RegExp's matches (searchProfile's walk is shared; only the matcher differs)
    regexp: time(() => matchFrames(frameNames(profile.frames), regexpTest(p))),
    re2Match: time(() => matchFrames(frameNames(profile.frames), re2Test(p))),
  };
  const many = {
    re2: time(() => matchFrames(names, re2Test(p))),
    regexp: time(() => matchFrames(names, regexpTest(p))),
  };
  const left = `${p.padEnd(25)} ${whole.re2.toFixed(1)} (matching ${whole.re2Match.toFixed(1)} / ${whole.regexp.toFixed(1)})`;
  console.log(`${left.padEnd(52)}${many.re2.toFixed(0)} / ${many.regexp.toFixed(0)}`);
}
