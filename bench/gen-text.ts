// Deterministic synthetic inputs for the bench's other formats, each about `bytes` long:
//   heap        a gperftools heap profile (heap_v2/524288): `N: B [N: B] @ 0x… 0x…` records, 8–40
//               frames leaf first over a main binary and libc, then MAPPED_LIBRARIES
//   dcpi        a DCPI 0.07 profile: the header, chunks of uint32 counts over the text (a few
//               thousand hot functions' addresses counted, the rest zero), the footer
//   folded      `root;…;leaf COUNT` lines: 10–60 frames from a few hundred hot paths, C++ names
//   difffolded  the same stacks as `stack BASE NEW` (difffolded.pl)
// Like gen-perf.ts: a few hundred hot paths repeated with variations, as real profiles are.
//
//   npx tsx bench/gen-text.ts OUT_DIR [MB]     (writes OUT_DIR/synthetic-<MB>mb.{heap,dcpi,folded,difffolded.txt})

import { mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { prng } from '../test/helpers/prng';

export type TextBenchId = 'heap' | 'dcpi' | 'folded' | 'difffolded';

/** The file name of each input at `mb` MB, as run.ts names them. */
export const textBenchFile = (dir: string, id: TextBenchId, mb: number): string =>
  `${dir}/synthetic-${mb}mb.${id === 'difffolded' ? 'difffolded.txt' : id}`;

/** Builds a large text from pieces, encoded as ASCII (the generators write only ASCII). */
class Ascii {
  private buf: Uint8Array;
  length = 0;
  constructor(capacity: number) {
    this.buf = new Uint8Array(capacity);
  }
  push(s: string): void {
    if (this.length + s.length > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + s.length));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    const b = this.buf;
    let at = this.length;
    for (let i = 0; i < s.length; i++) b[at++] = s.charCodeAt(i);
    this.length = at;
  }
  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** A few hundred hot paths of frame indices into `n` functions, depths lo..hi. */
function hotPaths(rand: () => number, n: number, lo: number, hi: number): number[][] {
  const paths: number[][] = [];
  for (let p = 0; p < 400; p++) {
    const depth = lo + Math.floor(rand() * (hi - lo));
    const path: number[] = [];
    for (let d = 0; d < depth; d++) path.push(Math.floor(rand() * n));
    paths.push(path);
  }
  return paths;
}

function makeHeap(bytes: number): Uint8Array {
  const rand = prng(0x4ea9);
  const out = new Ascii(bytes + (1 << 16));
  // 4000 functions of the binary at 0x400000.., 400 of libc at 0x7f3a12000000..
  const fnAddr: string[] = [];
  for (let i = 0; i < 4000; i++) fnAddr.push((0x401000 + i * 0x180).toString(16));
  for (let i = 0; i < 400; i++) fnAddr.push((0x7f3a12026000 + i * 0x400).toString(16));
  const paths = hotPaths(rand, fnAddr.length, 8, 40);
  const W = 14;
  const header = `heap profile: ${'9'.repeat(W)}: ${'9'.repeat(W)} [${'9'.repeat(W)}: ${'9'.repeat(W)}] @ heap_v2/524288\n`;
  out.push(header);
  let inuseN = 0;
  let inuseB = 0;
  let allocN = 0;
  let allocB = 0;
  const tail =
    '\nMAPPED_LIBRARIES:\n' +
    '00400000-00a00000 r-xp 00000000 08:01 1234     /opt/bench/bin/bench\n' +
    '7f3a12000000-7f3a12200000 r-xp 00000000 08:01 5678     /usr/lib/x86_64-linux-gnu/libc.so.6\n';
  while (out.length < bytes - tail.length) {
    const path = paths[Math.floor(rand() * rand() * paths.length)];
    const cut = Math.floor(rand() * 4);
    const an = 1 + Math.floor(rand() * 50);
    const size = 16 << Math.floor(rand() * 8);
    const n = rand() < 0.3 ? 0 : Math.floor(rand() * an);
    let line = `${String(n).padStart(6)}: ${String(n * size).padStart(8)} [${String(an).padStart(6)}: ${String(an * size).padStart(8)}] @`;
    // leaf first: the leaf a return address in its function, callers at their call sites
    for (let d = path.length - 1 - cut; d >= 0; d--) {
      const off = d === path.length - 1 - cut ? Math.floor(rand() * 0x170) : 0x40 + (d % 9);
      line += ` 0x${(Number.parseInt(fnAddr[path[d]], 16) + off).toString(16)}`;
    }
    out.push(`${line}\n`);
    inuseN += n;
    inuseB += n * size;
    allocN += an;
    allocB += an * size;
  }
  out.push(tail);
  const b = out.bytes();
  // the header's totals, now known, written over the placeholder (same width)
  const col = (x: number) => String(x).padStart(W);
  const real = `heap profile: ${col(inuseN)}: ${col(inuseB)} [${col(allocN)}: ${col(allocB)}] @ heap_v2/524288\n`;
  if (real.length !== header.length) throw new Error('gen-text: heap totals wider than the header holds');
  for (let i = 0; i < real.length; i++) b[i] = real.charCodeAt(i);
  return b;
}

function makeDcpi(bytes: number): Uint8Array {
  const rand = prng(0xdc91);
  const counts = Math.max(64, Math.floor((bytes - 400) / 4));
  const header =
    'version pdb-0.07\nimage 19970328081403c0c18b\nepoch 9805191724\nplatform walnut\nevent cycles\n' +
    `period 63488\ntstart 120000000\ntsize ${counts * 2}\ncpuspeed 300\npath /opt/bench/bin/bench\nsamples\n`;
  const buf = new Uint8Array(header.length + counts * 4 + 4096);
  for (let i = 0; i < header.length; i++) buf[i] = header.charCodeAt(i);
  const dv = new DataView(buf.buffer);
  let p = header.length;
  let addr = 0;
  let nonZero = 0;
  let total = 0;
  // chunks of 1–4096 counts, gaps between them; in each a hot function's addresses every 4 bytes
  // (instructions), most others zero
  while (p + 8 + 4 + 8 <= header.length + counts * 4) {
    const num = Math.min(
      1 + Math.floor(rand() * 4096),
      Math.floor((header.length + counts * 4 - p - 8 - 8) / 4),
    );
    if (num < 1) break;
    dv.setUint32(p, addr, true);
    dv.setUint32(p + 4, num, true);
    p += 8;
    const hot = rand() < 0.3;
    for (let i = 0; i < num; i++) {
      const c = (addr + i) % 4 === 0 && (hot || rand() < 0.05) ? Math.floor(rand() * rand() * 2000) : 0;
      dv.setUint32(p, c, true);
      p += 4;
      if (c > 0) {
        nonZero++;
        total += c;
      }
    }
    addr += num + Math.floor(rand() * 64) + 1;
  }
  dv.setUint32(p, nonZero, true);
  dv.setUint32(p + 4, total >>> 0, true);
  return buf.slice(0, p + 8);
}

function foldedNames(rand: () => number): string[] {
  const names: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const r = rand();
    names.push(
      r < 0.4
        ? `bench::ns${i % 37}::Worker<std::vector<int> >::step${i}(unsigned long) const`
        : r < 0.9
          ? `fn_${i}`
          : `[libc.so.6]`,
    );
  }
  return names;
}

function makeFolded(bytes: number, diff: boolean): Uint8Array {
  const rand = prng(diff ? 0xd1ff : 0xf01d);
  const names = foldedNames(rand);
  const paths = hotPaths(rand, names.length, 10, 60);
  const out = new Ascii(bytes + (1 << 16));
  while (out.length < bytes) {
    const path = paths[Math.floor(rand() * rand() * paths.length)];
    const cut = Math.floor(rand() * 6);
    let line = 'bench';
    for (let d = 0; d < path.length - cut; d++) line += `;${names[path[d]]}`;
    // a variation at the leaf, as sampled stacks end in many places
    if (rand() < 0.5) line += `;${names[Math.floor(rand() * names.length)]}`;
    const w = 1 + Math.floor(rand() * rand() * 500);
    if (diff) {
      const base = rand() < 0.1 ? 0 : w;
      const comp = rand() < 0.1 ? 0 : Math.max(0, w + Math.floor(rand() * 40) - 20);
      line += ` ${base} ${comp}\n`;
    } else line += ` ${w}\n`;
    out.push(line);
  }
  return out.bytes();
}

/** Each input of about `bytes` bytes. */
export function makeTextBenchInput(id: TextBenchId, bytes: number): Uint8Array {
  switch (id) {
    case 'heap':
      return makeHeap(bytes);
    case 'dcpi':
      return makeDcpi(bytes);
    case 'folded':
      return makeFolded(bytes, false);
    case 'difffolded':
      return makeFolded(bytes, true);
  }
}

export const TEXT_BENCH_IDS: readonly TextBenchId[] = ['heap', 'dcpi', 'folded', 'difffolded'];

/** All four at about `bytes` each (the readers' digest test takes them small). */
export function benchTextInputs(bytes: number): { id: TextBenchId; bytes: Uint8Array }[] {
  return TEXT_BENCH_IDS.map((id) => ({ id, bytes: makeTextBenchInput(id, bytes) }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = process.argv[2] ?? 'bench/out';
  const mb = Number(process.argv[3] ?? 100);
  mkdirSync(dir, { recursive: true });
  for (const id of TEXT_BENCH_IDS) {
    const file = textBenchFile(dir, id, mb);
    const b = makeTextBenchInput(id, mb * 1024 * 1024);
    writeFileSync(file, b);
    process.stdout.write(`${file}: ${b.length} bytes\n`);
  }
}
