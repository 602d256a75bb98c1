// Times the `perf script` importer against the floor any text importer pays: reading the file and
// decoding it, then finding every line (an indexOf('\n') walk that slices each line). Prints the
// median and the best of BENCH_RUNS runs (default 5), wall time (and the parse's CPU time, user +
// system): on a shared machine the best run is the steadier figure.
//
//   npx tsx bench/perf-parse.ts [FILE.perf.txt]     (default: bench/out/synthetic-100mb.perf.txt,
//                                                   made by gen-perf.ts if missing)

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { parsePerfScript } from '../src/core/formats/perfscript';
import { foldProfile } from '../src/core/model/fold';
import { splitLines } from './floors';
import { makeSyntheticPerfScript } from './gen-perf';

const file = process.argv[2] ?? 'bench/out/synthetic-100mb.perf.txt';
if (!existsSync(file)) {
  mkdirSync('bench/out', { recursive: true });
  makeSyntheticPerfScript(file, 100);
}
const runs = Number(process.env.BENCH_RUNS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const best = (xs: number[]) => Math.min(...xs);
const t: Record<string, number[]> = { read: [], 'decode+lines': [], parse: [], 'parse (cpu)': [], fold: [] };
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
let info = '';
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  const bytes = new Uint8Array(readFileSync(file));
  const t1 = performance.now();
  const { lines, chars } = splitLines(bytes);
  const t2 = performance.now();
  const c2 = cpuMs();
  const raw = parsePerfScript(bytes);
  const c3 = cpuMs();
  const t3 = performance.now();
  const folded = foldProfile(raw, { fileName: file });
  const t4 = performance.now();
  t.read.push(t1 - t0);
  t['decode+lines'].push(t2 - t1);
  t.parse.push(t3 - t2);
  t['parse (cpu)'].push(c3 - c2);
  t.fold.push(t4 - t3);
  info = `${(bytes.length / 1048576).toFixed(0)} MB, ${lines} lines (${chars} chars), ${raw.samples.count} samples, ${raw.locations.count} locations, ${folded.stacks.count} stacks`;
}
process.stdout.write(`${file}: ${info}\n`);
for (const [k, v] of Object.entries(t)) {
  const row = `  ${k.padEnd(14)} median ${median(v).toFixed(0).padStart(5)} ms, best ${best(v).toFixed(0).padStart(5)} ms`;
  process.stdout.write(`${row}  [${v.map((x) => x.toFixed(0)).join(' ')}]\n`);
}
const ratio = (f: (xs: number[]) => number) => (f(t.parse) / (f(t.read) + f(t['decode+lines']))).toFixed(2);
process.stdout.write(`  parse / (read + decode+lines): median ${ratio(median)}, best ${ratio(best)}\n`);
