// Times the core stages in node over a profile (default: the bench's synthetic 100 MB file).
// Medians of N runs (BENCH_RUNS, default 5): the machines are shared, single runs are noisy.
//
//   npx tsx bench/stages.ts [FILE.prof]

import { readFileSync } from 'node:fs';
import { buildCallTree, buildFunctionTable } from '../src/core/model/calltree';
import { foldProfile } from '../src/core/model/fold';
import { parseBytes } from '../src/core/pipeline';

const file = process.argv[2] ?? 'bench/out/synthetic-100mb.prof';
const runs = Number(process.env.BENCH_RUNS ?? 5);
const bytes = new Uint8Array(readFileSync(file));
const t: Record<string, number[]> = { parse: [], fold: [], tree: [], functions: [], total: [] };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let info = '';
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  const { raw } = parseBytes(bytes, { fileName: file });
  const t1 = performance.now();
  const profile = foldProfile(raw, { fileName: file });
  const t2 = performance.now();
  const tree = buildCallTree(profile);
  const t3 = performance.now();
  buildFunctionTable(tree, profile.frames.count);
  const t4 = performance.now();
  t.parse.push(t1 - t0);
  t.fold.push(t2 - t1);
  t.tree.push(t3 - t2);
  t.functions.push(t4 - t3);
  t.total.push(t4 - t0);
  info = `${raw.samples.count} samples, ${raw.locations.count} addresses, ${profile.stacks.count} stacks, ${profile.frames.count} frames, ${tree.count} nodes`;
}
console.log(`${file}: ${info}`);
console.log(
  Object.entries(t)
    .map(([k, v]) => `${k} ${median(v).toFixed(0)} ms [${v.map((x) => x.toFixed(0)).join(' ')}]`)
    .join('\n'),
);
