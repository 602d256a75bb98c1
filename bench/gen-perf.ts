// Deterministic synthetic `perf script` text (perf 6.1's default fields with call graphs) for
// benchmarks: ~35k cpu-clock samples per 100 MB from three threads of two processes, 20–70-frame
// stacks through a main binary (/opt/bench/bin/bench, DSO-relative addresses as perf prints them),
// libc, a stripped library ([unknown] symbols) and kernel frames on top of a quarter of them.
//
//   npx tsx bench/gen-perf.ts OUT.perf.txt [MB]     (default 100 MB)

import { closeSync, openSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { prng } from '../test/helpers/prng';

const BIN = '/opt/bench/bin/bench';
const LIBC = '/usr/lib/x86_64-linux-gnu/libc.so.6';
const LIB = '/usr/lib/x86_64-linux-gnu/libstripped.so.1';
const KERNEL = [
  'asm_sysvec_apic_timer_interrupt',
  'sysvec_apic_timer_interrupt',
  '__irq_exit_rcu',
  'handle_softirqs',
  'run_timer_softirq',
  'asm_exc_page_fault',
  'exc_page_fault',
  'handle_mm_fault',
  '__handle_mm_fault',
  'do_anonymous_page',
];
const THREADS = [
  { comm: 'bench', pid: 4242, tid: 4242 },
  { comm: 'bench-worker', pid: 4242, tid: 4250 },
  { comm: 'bench-worker', pid: 4242, tid: 4251 },
];

interface Fn {
  name: string;
  dso: string;
  addr: number;
  size: number;
}

function functions(rand: () => number): Fn[] {
  const out: Fn[] = [];
  let a = 0x1100;
  for (let i = 0; i < 3000; i++) {
    const size = 0x20 + Math.floor(rand() * 0x400);
    const name = i % 5 === 0 ? `bench::ns${i % 37}::Worker<int>::step${i}(unsigned long) const` : `fn_${i}`;
    out.push({ name, dso: BIN, addr: a, size });
    a += size;
  }
  a = 0x26000;
  for (let i = 0; i < 300; i++) {
    const size = 0x40 + Math.floor(rand() * 0x800);
    out.push({ name: `__libc_fn_${i}`, dso: LIBC, addr: a, size });
    a += size;
  }
  a = 0x4000;
  for (let i = 0; i < 200; i++) {
    const size = 0x40 + Math.floor(rand() * 0x400);
    out.push({ name: '[unknown]', dso: LIB, addr: a, size });
    a += size;
  }
  return out;
}

const pad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);

/** Writes the text; returns [bytes, samples]. */
export function makeSyntheticPerfScript(file: string, mb = 100): [number, number] {
  const rand = prng(0x9e2f);
  const fns = functions(rand);
  const user = fns.filter((f) => f.dso !== LIB);
  const target = mb * 1024 * 1024;
  const fd = openSync(file, 'w');
  let bytes = 0;
  let samples = 0;
  let time = 12345.678901;
  let chunk: string[] = [];
  let chunkLen = 0;
  // A few hundred "hot paths" the samples repeat with variations, as real profiles do.
  const paths: Fn[][] = [];
  for (let p = 0; p < 400; p++) {
    const depth = 20 + Math.floor(rand() * 50);
    const path: Fn[] = [];
    for (let d = 0; d < depth; d++) {
      const pool = d > depth - 4 && rand() < 0.5 ? fns.filter((f) => f.dso !== BIN) : user;
      path.push(pool[Math.floor(rand() * pool.length)]);
    }
    paths.push(path);
  }
  while (bytes < target) {
    const t = THREADS[samples % THREADS.length];
    time += 0.002 + rand() * 0.00001;
    const lines = [`${t.comm} ${pad(String(t.tid), 6)} ${time.toFixed(6)}:    2004008 cpu-clock: `];
    if (rand() < 0.25) {
      const k = 2 + Math.floor(rand() * 6);
      for (let i = k - 1; i >= 0; i--) {
        // the high word as text: kernel addresses are above 2^53
        const off = Math.floor(rand() * 0x1000);
        const lo = (0x81000000 + i * 0x10000 + off).toString(16);
        lines.push(`\tffffffff${lo} ${KERNEL[i]}+0x${off.toString(16)} ([kernel.kallsyms])`);
      }
    }
    const path = paths[Math.floor(rand() * rand() * paths.length)];
    const cut = Math.floor(rand() * 4);
    for (let d = path.length - 1 - cut; d >= 0; d--) {
      const f = path[d];
      const off = d === path.length - 1 - cut ? Math.floor(rand() * f.size) : (f.size >> 1) + (d % 7);
      const sym = f.name === '[unknown]' ? '[unknown]' : `${f.name}+0x${off.toString(16)}`;
      lines.push(`\t${pad((f.addr + off).toString(16), 16)} ${sym} (${f.dso})`);
    }
    lines.push('', '');
    const s = lines.join('\n');
    chunk.push(s);
    chunkLen += s.length;
    bytes += s.length;
    samples++;
    if (chunkLen > 1 << 20) {
      writeSync(fd, chunk.join(''));
      chunk = [];
      chunkLen = 0;
    }
  }
  writeSync(fd, chunk.join(''));
  closeSync(fd);
  return [bytes, samples];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2] ?? 'bench/out/synthetic-100mb.perf.txt';
  const [bytes, samples] = makeSyntheticPerfScript(out, Number(process.argv[3] ?? 100));
  process.stdout.write(`${out}: ${bytes} bytes, ${samples} samples\n`);
}
