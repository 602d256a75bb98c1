// DWARF symbolization timing: a large -g binary (bench/gen-dwarf.ts), ~50k distinct addresses
// spread over its code, symbolized in node with the symbol table only (dwarf: false) and with
// DWARF inline chains (lookupFrames). Prints the times (including building the symbolizer: the
// DWARF index), what DWARF adds, and peak memory. Names stay mangled: demangling costs the same
// either way and is not DWARF's.
//
//   npx tsx bench/dwarf.ts [BINARY] [ADDRESSES]   default gen-dwarf.ts's cached binary (built
//                                                 when missing), 50000

import { readFileSync } from 'node:fs';
import { readElf } from '../src/core/symbols/elf';
import { symbolizerFromFiles } from '../src/core/symbols/symbolize';
import type { Mapping } from '../src/core/types';
import { prng } from '../test/helpers/prng';
import { ensureDwarfBench } from './gen-dwarf';

const BIN = process.argv[2] ?? (await ensureDwarfBench()).bin;
const N = Number(process.argv[3] ?? 50_000);
const bytes = new Uint8Array(readFileSync(BIN));
const elf = readElf(bytes, 'dwarf-bench');
let debugBytes = 0;
for (const s of elf.dwarf?.sections.values() ?? []) debugBytes += s.bytes.length;

// Distinct addresses, uniform over the executable segment.
const text = elf.loadSegments.find((s) => s.flags & 1)!;
const rnd = prng(42);
const picked = new Set<number>();
const want = Math.min(N, text.filesz);
while (picked.size < want) picked.add(text.vaddrLo + Math.floor(rnd() * text.filesz));
const addrs = [...picked];
const maps: Mapping[] = [
  { start: 0n, end: 1n << 40n, offset: 0n, path: '/bench/dwarf-bench', linkTimeAddresses: true },
];
const files = [{ name: 'dwarf-bench', bytes }];

let peakRss = 0;
const sample = () => {
  const r = process.memoryUsage().rss;
  if (r > peakRss) peakRss = r;
};

function run(dwarf: boolean): { ms: number; cpuMs: number; buildMs: number; frames: number; named: number } {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const { symbolizer, report } = symbolizerFromFiles(maps, files, { mangled: true, dwarf });
  const t1 = performance.now();
  if (report.warnings.length > 0) console.log('warnings:', report.warnings.slice(0, 5));
  let frames = 0;
  let named = 0;
  for (let i = 0; i < addrs.length; i++) {
    const a = addrs[i];
    const r = dwarf ? symbolizer.lookupFrames!(0, a) : symbolizer.lookup(0, a);
    if (r !== null) {
      named++;
      frames += r.length;
    }
    if ((i & 4095) === 0) sample();
  }
  sample();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000, buildMs: t1 - t0, frames, named };
}

sample();
const rssStart = peakRss;
const base = run(false);
const withDwarf = run(true);
console.log(
  `${BIN}: ${(bytes.length / 1e6).toFixed(1)} MB file, ${(debugBytes / 1e6).toFixed(1)} MB of .debug_* sections`,
);
console.log(`${addrs.length} distinct addresses`);
console.log(`symbol table only: ${base.ms.toFixed(0)} ms (${base.named} named, ${base.frames} frames)`);
console.log(
  `with DWARF:        ${withDwarf.ms.toFixed(0)} ms (index ${withDwarf.buildMs.toFixed(0)} ms; ${withDwarf.named} named, ${withDwarf.frames} frames)`,
);
console.log(
  `DWARF adds ${(withDwarf.ms - base.ms).toFixed(0)} ms (CPU time ${(withDwarf.cpuMs - base.cpuMs).toFixed(0)} ms: less sensitive to a busy machine)`,
);
console.log(
  `peak RSS ${(peakRss / 1e6).toFixed(0)} MB (${((peakRss - rssStart) / 1e6).toFixed(0)} MB above the RSS after reading the file)`,
);
