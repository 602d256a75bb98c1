// Times reading a pprof profile.proto in node: the floor (read the file, gunzip, and one walk over
// every varint of every sample: what any decoder must at least do) next to our parse and fold.
// Prints medians of BENCH_RUNS runs (default 3).
//
//   npx tsx bench/gen-pprof.ts bench/out/synthetic-100mb.pb.gz     (once)
//   npx tsx bench/pprof.ts [FILE.pb[.gz]]

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { isGzip } from '../src/core/formats/detect';
import { parsePprof } from '../src/core/formats/pprof';
import { foldProfile } from '../src/core/model/fold';
import { floorWalk } from './floors';

const file = process.argv[2] ?? 'bench/out/synthetic-100mb.pb.gz';
const runs = Number(process.env.BENCH_RUNS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const t: Record<string, number[]> = { read: [], gunzip: [], 'floor walk': [], 'our parse': [], fold: [] };
let info = '';
for (let r = 0; r < runs; r++) {
  let t0 = performance.now();
  const bytes = new Uint8Array(readFileSync(file));
  t.read.push(performance.now() - t0);
  t0 = performance.now();
  const data = isGzip(bytes) ? gunzipSync(bytes) : bytes;
  t.gunzip.push(performance.now() - t0);
  t0 = performance.now();
  floorWalk(data);
  t['floor walk'].push(performance.now() - t0);
  t0 = performance.now();
  const raw = parsePprof(data);
  t['our parse'].push(performance.now() - t0);
  t0 = performance.now();
  const p = foldProfile(raw, { fileName: file });
  t.fold.push(performance.now() - t0);
  info =
    `${(data.length / 1e6).toFixed(1)} MB uncompressed (${(bytes.length / 1e6).toFixed(1)} MB file): ` +
    `${raw.samples.count} samples, ${raw.samples.stackLocs.length} location refs, ${raw.locations.count} locations, ` +
    `${p.stacks.count} stacks, ${p.frames.count} frames`;
}
process.stdout.write(`${file}: ${info}\n`);
for (const [k, v] of Object.entries(t)) {
  process.stdout.write(
    `  ${k.padEnd(11)} ${median(v).toFixed(0).padStart(6)} ms  [${v.map((x) => x.toFixed(0)).join(' ')}]\n`,
  );
}
const floor = median(t.read) + median(t.gunzip) + median(t['floor walk']);
const ours = median(t.read) + median(t.gunzip) + median(t['our parse']);
process.stdout.write(
  `  read+gunzip+walk floor ${floor.toFixed(0)} ms; read+gunzip+our parse ${ours.toFixed(0)} ms\n`,
);
