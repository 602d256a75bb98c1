// `npm run fuzz`: the long in-process fuzz run. FUZZ_N inputs (default 1 000 000) split across
// the formats by weight, under FUZZ_SEED (default 1); FUZZ_FORMATS=a,b limits the formats.
// FUZZ_REPRO=format:seed:index runs one input again and prints what happened.

import {
  budget,
  DEFAULT_FAILURE_DIR,
  formatFailure,
  formatStats,
  fuzzFormat,
  fuzzFormats,
  runIndex,
  writeFailure,
} from './engine.ts';

const env = process.env;

if (env.FUZZ_REPRO) {
  const [id, seed, index] = env.FUZZ_REPRO.split(':');
  const f = fuzzFormats().find((x) => x.id === id);
  if (!f)
    throw new Error(
      `no format ${id}; formats: ${fuzzFormats()
        .map((x) => x.id)
        .join(', ')}`,
    );
  const res = runIndex(f, Number(seed), Number(index));
  console.log(`${id} seed ${seed} input ${index}: ${res.bytes.length} bytes, ${res.ms.toFixed(1)} ms`);
  if (res.failure) {
    res.failure.file = writeFailure(DEFAULT_FAILURE_DIR, res.failure, res.bytes);
    console.log(formatFailure(res.failure));
  } else console.log(`outcome: ${res.outcome}`);
  process.exit(res.failure ? 1 : 0);
}

const n = Number(env.FUZZ_N ?? 1_000_000);
const seed = Number(env.FUZZ_SEED ?? 1);
const only = env.FUZZ_FORMATS?.split(',');
const list = fuzzFormats().filter((f) => !only || only.includes(f.id));
const plan = budget(n, list);
console.log(`fuzz: ${n} inputs, seed ${seed}, ${list.length} formats`);
const t0 = performance.now();
let failed = 0;
let total = 0;
for (const [f, count] of plan) {
  const { stats, failures } = fuzzFormat(f, { seed, n: count });
  total += stats.inputs;
  console.log(formatStats(stats));
  for (const fl of failures) console.log(formatFailure(fl));
  failed += failures.length;
}
const s = (performance.now() - t0) / 1000;
console.log(
  `total: ${total} inputs in ${s.toFixed(1)} s (${Math.round(total / s)} inputs/s), node ${process.version}, ` +
    `peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB, ${failed} failure${failed === 1 ? '' : 's'}`,
);
process.exit(failed > 0 ? 1 : 0);
