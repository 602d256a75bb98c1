// Times the core stages in node, as the worker runs them (parse, fold, tree + function table),
// over a profile (default: the bench's synthetic 100 MB file). Prints the median of BENCH_RUNS
// runs (default 5) of wall and CPU time: the machines are shared, single runs are noisy, and CPU
// time (user + system, so page faults count) is steadier than wall time under load.
//
//   npx tsx bench/stages.ts [FILE.prof]      BENCH_GRAN=addresses|lines|functions (default functions;
//                                            the open's bench measures addresses), consuming the
//                                            parsed stacks as the worker does

import { readFileSync } from 'node:fs';
import { analyze, fold, parse } from '../src/core/pipeline';
import type { Granularity } from '../src/core/types';

const file = process.argv[2] ?? 'bench/out/synthetic-100mb.prof';
const runs = Number(process.env.BENCH_RUNS ?? 5);
const gran = (process.env.BENCH_GRAN ?? 'functions') as Granularity;
const bytes = new Uint8Array(readFileSync(file));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const wall: Record<string, number[]> = { parse: [], fold: [], tree: [], total: [] };
const cpu: Record<string, number[]> = { parse: [], 'fold+tree': [], total: [] };
let info = '';
for (let r = 0; r < runs; r++) {
  const c0 = cpuMs();
  const loaded = parse(bytes, file);
  const { raw, parseMs } = loaded;
  const c1 = cpuMs();
  const { profile, foldMs } = fold(loaded, { granularity: gran, consume: true });
  const a = analyze(profile, { transforms: [], inverted: false }, { parseMs, foldMs });
  const c2 = cpuMs();
  wall.parse.push(parseMs);
  wall.fold.push(a.timings.foldMs);
  wall.tree.push(a.timings.treeMs);
  wall.total.push(parseMs + a.timings.foldMs + a.timings.treeMs);
  cpu.parse.push(c1 - c0);
  cpu['fold+tree'].push(c2 - c1);
  cpu.total.push(c2 - c0);
  info = `${raw.samples.count} samples, ${raw.locations.count} addresses, ${a.profile.stacks.count} stacks, ${a.profile.frames.count} frames, ${a.tree.count} nodes`;
}
const show = (t: Record<string, number[]>) =>
  Object.entries(t)
    .map(([k, v]) => `${k} ${median(v).toFixed(0)} [${v.map((x) => x.toFixed(0)).join(' ')}]`)
    .join(', ');
console.log(`${file}: ${info}`);
console.log(`wall ms: ${show(wall)}`);
console.log(`cpu ms:  ${show(cpu)}`);
