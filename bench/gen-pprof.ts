// Deterministic synthetic pprof profile.proto for benchmarks, shaped like a long Go or C++ CPU
// profile: ~300k samples of 120–250-frame stacks over ~8k locations (a fifth with an inlined
// callee, so two Lines), two sample types (samples/count, cpu/nanoseconds), a string label on every
// sample, three mappings; written as Go writes it (samples first, the string table last).
//
//   npx tsx bench/gen-pprof.ts OUT.pb [MB]       (default 100 MB uncompressed; OUT.pb.gz gzips it)

import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'fflate';
import { stringTable, Writer } from '../src/core/formats/pprof-write';
import { prng } from '../test/helpers/prng';

const BIN_START = 0x5555_5555_5000;
const LIBC_START = 0x7f12_3452_6000;

/** A profile of about `targetBytes` bytes (uncompressed); the same (targetBytes, seed), the same bytes. */
export function makeSyntheticPprof(targetBytes: number, seed: number): Uint8Array {
  const rnd = prng(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  const { strings, str } = stringTable();
  const out = new Writer();
  const sub = new Writer();
  const sub2 = new Writer();
  const msg = (f: number, body: (b: Writer) => void) => out.message(f, sub, body);
  for (const [t, u] of [
    ['samples', 'count'],
    ['cpu', 'nanoseconds'],
  ]) {
    msg(1, (b) => {
      b.uint(1, str(t));
      b.uint(2, str(u));
    });
  }
  // Functions: 2000 in the binary, 300 in libc; 4 call sites (locations) each.
  const nBin = 2000;
  const nLibc = 300;
  const nFunc = nBin + nLibc;
  const callees: number[][] = [];
  for (let f = 0; f < nBin; f++) callees.push([pick(nBin), pick(nBin), pick(nBin)]);
  const loc = (f: number, k: number) => 1 + f * 4 + k; // location id
  const threads = [str('thread'), str('main'), str('worker-1'), str('worker-2'), str('worker-3')];
  const stack: number[] = [];
  const period = 10_000_000;
  const bodyBudget = targetBytes - 400_000; // locations, functions and strings come after
  while (out.len < bodyBudget) {
    const depth = 120 + pick(131);
    stack.length = 0;
    let f = pick(nBin);
    while (stack.length < depth - 1) {
      stack.push(loc(f, pick(4)));
      f = callees[f][pick(3)];
    }
    stack.push(rnd() < 0.2 ? loc(nBin + pick(nLibc), pick(4)) : loc(f, pick(4)));
    const count = 1 + (rnd() < 0.05 ? pick(3) : 0);
    msg(2, (b) => {
      sub2.len = 0;
      for (let k = stack.length - 1; k >= 0; k--) sub2.varint(stack[k]); // leaf first
      b.bytes(1, sub2.buf, sub2.len);
      sub2.len = 0;
      sub2.varint(count);
      sub2.varint(count * period);
      b.bytes(2, sub2.buf, sub2.len);
      sub2.len = 0;
      sub2.uint(1, threads[0]);
      sub2.uint(2, threads[1 + pick(4)]);
      b.bytes(3, sub2.buf, sub2.len);
    });
  }
  const maps: Array<[number, number, number, string]> = [
    [BIN_START + 0x1000, BIN_START + 0x401000, 0x1000, '/opt/bench/bin/bench'],
    [LIBC_START, LIBC_START + 0x156000, 0x26000, '/usr/lib/x86_64-linux-gnu/libc.so.6'],
    [0x7fff_1234_0000, 0x7fff_1234_2000, 0, '[vdso]'],
  ];
  maps.forEach(([start, limit, offset, file], i) => {
    msg(3, (b) => {
      b.uint(1, i + 1);
      b.uint(2, start);
      b.uint(3, limit);
      b.uint(4, offset);
      b.uint(5, str(file));
      for (const flag of [7, 8, 9, 10]) b.uint(flag, 1);
    });
  });
  for (let f = 0; f < nFunc; f++) {
    const inBin = f < nBin;
    const base = inBin ? BIN_START + 0x1100 + f * 0x800 : LIBC_START + 0x200 + (f - nBin) * 0x1000;
    for (let k = 0; k < 4; k++) {
      msg(4, (b) => {
        b.uint(1, loc(f, k));
        b.uint(2, inBin ? 1 : 2);
        b.uint(3, base + 0x10 + k * 0x37);
        if (inBin && k === 3) {
          // an inlined callee first (innermost), then the function itself
          sub2.len = 0;
          sub2.uint(1, 1 + nFunc + (f % 100));
          sub2.uint(2, 7);
          b.bytes(4, sub2.buf, sub2.len);
        }
        sub2.len = 0;
        sub2.uint(1, 1 + f);
        sub2.uint(2, 10 + k);
        b.bytes(4, sub2.buf, sub2.len);
      });
    }
  }
  for (let f = 0; f < nFunc + 100; f++) {
    msg(5, (b) => {
      const name =
        f < nBin
          ? `bench::module${f % 37}::function_${f}`
          : f < nFunc
            ? `libc_fn_${f - nBin}`
            : `inlined_${f - nFunc}`;
      b.uint(1, 1 + f);
      b.uint(2, str(name));
      b.uint(3, str(name));
      b.uint(4, str(f < nFunc && f >= nBin ? 'libc.c' : `src/file${f % 50}.cc`));
    });
  }
  const enc = new TextEncoder();
  const periodType = [str('cpu'), str('nanoseconds')];
  for (const s of strings) out.bytes(6, enc.encode(s));
  out.uint(9, 1_700_000_000_000_000_000);
  out.uint(10, 60_000_000_000);
  msg(11, (b) => {
    b.uint(1, periodType[0]);
    b.uint(2, periodType[1]);
  });
  out.uint(12, period);
  return out.finish();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [outPath, mb] = process.argv.slice(2);
  if (!outPath) {
    process.stderr.write('usage: tsx bench/gen-pprof.ts OUT.pb[.gz] [MB]\n');
    process.exit(2);
  }
  const raw = makeSyntheticPprof(Math.round(Number(mb ?? 100) * 1e6), 1);
  const bytes = outPath.endsWith('.gz') ? gzipSync(raw, { level: 6 }) : raw;
  writeFileSync(outPath, bytes);
  process.stdout.write(`${outPath}: ${bytes.length} bytes (${raw.length} uncompressed)\n`);
}
