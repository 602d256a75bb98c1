// `npm run fuzz`: the long in-process fuzz run. FUZZ_N inputs (default 1 000 000) split across
// the formats by weight, under FUZZ_SEED (default: a new seed each run, printed first, so a run
// that fails is run again with the same inputs); FUZZ_FORMATS=a,b limits the formats; FUZZ_STREAM
// is the share of gperftools and heap inputs also parsed while read, in chunks (default 0.25); FUZZ_ROUNDTRIP
// the share of parsed profiles written by every writer and read back (default 0.1).
// FUZZ_REPRO=format:seed:index runs one input again and prints what happened.
//
// `npm run fuzz -- --seeds 10 --minutes 60`: one run per seed, one after the other (new seeds, or
// FUZZ_SEED and the nine after it), each given an equal share of the time: every seed's inputs
// are run in rounds of FUZZ_N / 10 until its time is up. Prints each seed's figures and a total.

import { randomInt } from 'node:crypto';
import {
  budget,
  DEFAULT_FAILURE_DIR,
  type FormatStats,
  formatFailure,
  formatStats,
  fuzzFormat,
  fuzzFormats,
  runIndex,
  setRoundTripShare,
  writeFailure,
} from './engine.ts';

const env = process.env;
const streamShare = env.FUZZ_STREAM === undefined ? undefined : Number(env.FUZZ_STREAM);
if (env.FUZZ_ROUNDTRIP !== undefined) setRoundTripShare(Number(env.FUZZ_ROUNDTRIP));

if (env.FUZZ_REPRO) {
  const [id, seed, index] = env.FUZZ_REPRO.split(':');
  const f = fuzzFormats().find((x) => x.id === id);
  if (!f)
    throw new Error(
      `no format ${id}; formats: ${fuzzFormats()
        .map((x) => x.id)
        .join(', ')}`,
    );
  const res = runIndex(f, Number(seed), Number(index), streamShare);
  console.log(`${id} seed ${seed} input ${index}: ${res.bytes.length} bytes, ${res.ms.toFixed(1)} ms`);
  if (res.failure) {
    res.failure.file = writeFailure(DEFAULT_FAILURE_DIR, res.failure, res.bytes);
    console.log(formatFailure(res.failure));
  } else console.log(`outcome: ${res.outcome}`);
  process.exit(res.failure ? 1 : 0);
}

/** `--seeds N --minutes M` from the command line (after `npm run fuzz --`). */
function flag(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return undefined;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`fuzz: --${name} needs a positive number`);
    process.exit(2);
  }
  return v;
}

const n = Number(env.FUZZ_N ?? 1_000_000);
const seeds = flag('seeds') ?? 1;
const minutes = flag('minutes');
const first = env.FUZZ_SEED === undefined ? randomInt(1, 2 ** 31) : Number(env.FUZZ_SEED);
const only = env.FUZZ_FORMATS?.split(',');
const list = fuzzFormats().filter((f) => !only || only.includes(f.id));
const plan = budget(n, list);
console.log(
  `fuzz: ${seeds === 1 ? `seed ${first}` : `seeds ${first}…${first + seeds - 1}`}, ${list.length} formats, ` +
    (minutes === undefined
      ? `${n} inputs a seed`
      : `${minutes} minutes in all, in rounds of ${n / 10} inputs`) +
    ` (again: FUZZ_SEED=${first}${only ? ` FUZZ_FORMATS=${only.join(',')}` : ''})`,
);

const t0 = performance.now();
let failed = 0;
let total = 0;
for (let k = 0; k < seeds; k++) {
  const seed = first + k;
  const ts = performance.now();
  const until = minutes === undefined ? 0 : ts + (minutes * 60_000) / seeds;
  const sums = new Map<string, FormatStats>();
  let failedHere = 0;
  // One pass over the plan; with a time limit, passes of a tenth of it, at later indexes, until the
  // seed's share of the time is over.
  for (let round = 0; ; round++) {
    for (const [f, count] of plan) {
      const share = minutes === undefined ? count : Math.max(1, Math.round(count / 10));
      const { stats, failures } = fuzzFormat(f, { seed, n: share, from: round * share, streamShare });
      const s = sums.get(f.id);
      if (s === undefined) sums.set(f.id, stats);
      else {
        s.inputs += stats.inputs;
        s.results += stats.results;
        s.errors += stats.errors;
        s.totalMs += stats.totalMs;
        if (stats.slowestMs > s.slowestMs)
          [s.slowestMs, s.slowestIndex] = [stats.slowestMs, stats.slowestIndex];
      }
      for (const fl of failures) console.log(formatFailure(fl));
      failedHere += failures.length;
    }
    if (minutes === undefined || performance.now() >= until) break;
  }
  let inputs = 0;
  for (const s of sums.values()) {
    console.log(formatStats(s));
    inputs += s.inputs;
  }
  total += inputs;
  failed += failedHere;
  const secs = (performance.now() - ts) / 1000;
  console.log(
    `seed ${seed}: ${inputs} inputs in ${secs.toFixed(1)} s (${Math.round(inputs / secs)} inputs/s), ` +
      `${failedHere} failure${failedHere === 1 ? '' : 's'}`,
  );
}
const s = (performance.now() - t0) / 1000;
console.log(
  `total: ${total} inputs in ${s.toFixed(1)} s (${Math.round(total / s)} inputs/s), ${seeds} seed${seeds === 1 ? '' : 's'} from ${first}, node ${process.version}, ` +
    `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB, ${failed} failure${failed === 1 ? '' : 's'}`,
);
process.exit(failed > 0 ? 1 : 0);
