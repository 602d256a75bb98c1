// Deterministic synthetic gperftools CPU profile (64-bit little endian) for benchmarks.
// Shaped like a long real run: ~70k records of 120–250-frame stacks over a few thousand addresses
// in a main binary (/opt/bench/bin/bench) and libc, a trailer and a /proc/maps text.
//
//   npx tsx bench/gen-synthetic.ts OUT.prof [MB]     (default 100 MB; SHAPE=short: makeShortRecordsProfile)

import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { prng } from '../test/helpers/prng';

export const BIN_START = 0x5555_5555_4000;
/** The main binary's r-xp mapping: at BIN_TEXT, file offset 0x1000 (= BIN_TEXT - BIN_START). */
export const BIN_TEXT = BIN_START + 0x1000;
export const BIN_TEXT_SIZE = 0x40_0000;
const LIBC_START = 0x7f12_3450_0000;
const LIBC_TEXT = LIBC_START + 0x2_6000;
const LIBC_TEXT_SIZE = 0x15_6000;

const MAPS = [
  `${hex(BIN_START)}-${hex(BIN_TEXT)} r--p 00000000 08:01 131 /opt/bench/bin/bench`,
  `${hex(BIN_TEXT)}-${hex(BIN_TEXT + BIN_TEXT_SIZE)} r-xp 00001000 08:01 131 /opt/bench/bin/bench`,
  `${hex(BIN_TEXT + BIN_TEXT_SIZE)}-${hex(BIN_TEXT + BIN_TEXT_SIZE + 0x10000)} rw-p 00401000 08:01 131 /opt/bench/bin/bench`,
  '555556000000-555556100000 rw-p 00000000 00:00 0 [heap]',
  `${hex(LIBC_START)}-${hex(LIBC_TEXT)} r--p 00000000 08:01 900 /usr/lib/x86_64-linux-gnu/libc.so.6`,
  `${hex(LIBC_TEXT)}-${hex(LIBC_TEXT + LIBC_TEXT_SIZE)} r-xp 00026000 08:01 900 /usr/lib/x86_64-linux-gnu/libc.so.6`,
  '7fff12340000-7fff12342000 r-xp 00000000 00:00 0 [vdso]',
  '7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]',
];

function hex(n: number): string {
  return n.toString(16).padStart(12, '0');
}

/**
 * How a second profile differs from the first one made with the same seed (for comparisons): each
 * record is drawn as in the first, then a `fraction` of them (chosen by a second generator seeded
 * with `seed`) take a new count and a new walk of the call graph from a random depth on, keeping
 * their length. The rest stay identical, so most paths are shared.
 */
export interface Perturbation {
  seed: number;
  fraction: number;
}

/** A profile of about `targetBytes` bytes; the same (targetBytes, seed[, perturb]) gives the same bytes. */
export function makeSyntheticProfile(
  targetBytes: number,
  seed: number,
  perturb?: Perturbation,
  /** The main binary's code size: its functions spread over it (default 3 MB, 0x800 apart). */
  textSize = 1500 * 0x800 + 0x200,
): Uint8Array {
  const rnd = prng(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  const prnd = perturb ? prng(perturb.seed) : rnd;
  const ppick = (n: number) => Math.floor(prnd() * n);
  // Functions: 1500 in the binary, 200 in libc; each with 4 call-site (return) addresses.
  const nBin = 1500;
  const nLibc = 200;
  const fnBase: number[] = [];
  const spacing = Math.max(0x40, Math.floor((textSize - 0x200) / nBin / 0x10) * 0x10);
  for (let f = 0; f < nBin; f++) fnBase.push(BIN_TEXT + 0x100 + f * spacing);
  for (let f = 0; f < nLibc; f++) fnBase.push(LIBC_TEXT + 0x200 + f * 0x1000);
  const site = (f: number) => fnBase[f] + 0x10 + pick(4) * 0x37;
  // Each binary function calls a few others: a sparse call graph gives realistic sharing.
  const callees: number[][] = [];
  for (let f = 0; f < nBin; f++) callees.push([pick(nBin), pick(nBin), pick(nBin)]);
  const root = [BIN_TEXT + 0x25, LIBC_TEXT + 0x1305, LIBC_TEXT + 0x124a, fnBase[0] + 0x2b];

  const header = 5 * 8;
  const trailer = 3 * 8;
  const mapsText = `${MAPS.join('\n')}\n`;
  const budget = targetBytes - header - trailer - mapsText.length;
  const chunks: Float64Array[] = [];
  let used = 0;
  // Records are assembled as float64 numbers, then written as two uint32 halves.
  const stack: number[] = [];
  while (used < budget) {
    const depth = 120 + pick(131);
    stack.length = 0;
    for (const r of root) stack.push(r);
    let f = pick(nBin);
    while (stack.length < depth - 1) {
      stack.push(site(f));
      f = callees[f][pick(3)];
    }
    stack.push(rnd() < 0.2 ? fnBase[nBin + pick(nLibc)] + pick(64) : fnBase[f] + 0x40 + pick(256));
    let count = 1 + (rnd() < 0.05 ? pick(3) : 0);
    if (perturb && prnd() < perturb.fraction) {
      // root frames stay; the walk changes from `from` on (a new leaf at least)
      const from = root.length + ppick(stack.length - root.length);
      let g = ppick(nBin);
      for (let k = from; k < stack.length - 1; k++) {
        stack[k] = fnBase[g] + 0x10 + ppick(4) * 0x37;
        g = callees[g][ppick(3)];
      }
      stack[stack.length - 1] = fnBase[g] + 0x40 + ppick(256);
      count = 1 + ppick(3);
    }
    const rec = new Float64Array(2 + stack.length);
    rec[0] = count;
    rec[1] = stack.length;
    for (let k = 0; k < stack.length; k++) rec[2 + k] = stack[stack.length - 1 - k]; // leaf first
    chunks.push(rec);
    used += rec.length * 8;
  }
  return profileBytes(used, mapsText, (put) => {
    for (const rec of chunks) for (let k = 0; k < rec.length; k++) put(rec[k]);
  });
}

/**
 * A 64-bit little-endian gperftools profile: the header (period 250 µs), `bodyBytes` of records
 * written by `body` one slot at a time, the trailer and the maps text.
 */
function profileBytes(
  bodyBytes: number,
  mapsText: string,
  body: (put: (v: number) => void) => void,
): Uint8Array {
  const text = new TextEncoder().encode(mapsText);
  const out = new Uint8Array(5 * 8 + bodyBytes + 3 * 8 + text.length);
  const dv = new DataView(out.buffer);
  let off = 0;
  const put = (v: number) => {
    dv.setUint32(off, v % 4294967296, true);
    dv.setUint32(off + 4, Math.floor(v / 4294967296), true);
    off += 8;
  };
  for (const v of [0, 3, 0, 250, 0]) put(v);
  body(put);
  put(0);
  put(1);
  put(0);
  out.set(text, off);
  return out;
}

/**
 * The other shape of a long run: ~1.2M short records (4–13 frames) per 100 MB, drawn from 100k
 * distinct stacks over 50k distinct PCs (12,500 functions, 4 call sites each), a few stacks far
 * more often than most (half of the draws a power law), as a busy server's profile with evictions. Same mappings.
 */
export function makeShortRecordsProfile(targetBytes: number, seed: number): Uint8Array {
  const rnd = prng(seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  const nFn = 12_500;
  const fnBase: number[] = [];
  for (let f = 0; f < nFn; f++) fnBase.push(BIN_TEXT + 0x100 + f * 0x140);
  const callees: number[][] = [];
  for (let f = 0; f < nFn; f++) callees.push([pick(nFn), pick(nFn), pick(nFn), pick(nFn)]);
  // The distinct stacks, leaf first, as the file stores them.
  const nStacks = 100_000;
  const stacks: number[][] = [];
  for (let s = 0; s < nStacks; s++) {
    const depth = 4 + pick(10);
    const walk: number[] = [BIN_TEXT + 0x25];
    let f = pick(64); // a few entry points, as threads' loops
    while (walk.length < depth) {
      walk.push(fnBase[f] + 0x10 + pick(4) * 0x37);
      f = callees[f][pick(4)];
    }
    stacks.push(walk.reverse());
  }
  const mapsText = `${MAPS.join('\n')}\n`;
  const budget = targetBytes - 5 * 8 - 3 * 8 - mapsText.length;
  let used = 0;
  const picks: number[] = [];
  while (used < budget) {
    // Half uniform, half a power law (stack k ~ 1/(k+1)): every stack seen, a few very often.
    const s =
      rnd() < 0.5
        ? pick(nStacks)
        : Math.min(nStacks - 1, Math.floor(Math.exp(rnd() * Math.log(nStacks + 1))) - 1);
    picks.push(s);
    used += (2 + stacks[s].length) * 8;
  }
  return profileBytes(used, mapsText, (put) => {
    for (const s of picks) {
      put(1 + (rnd() < 0.1 ? pick(4) : 0));
      put(stacks[s].length);
      for (const pc of stacks[s]) put(pc);
    }
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [outPath, mb] = process.argv.slice(2);
  if (!outPath) {
    process.stderr.write('usage: tsx bench/gen-synthetic.ts OUT.prof [MB]\n');
    process.exit(2);
  }
  const size = Math.round(Number(mb ?? 100) * 1e6);
  const bytes =
    process.env.SHAPE === 'short' ? makeShortRecordsProfile(size, 1) : makeSyntheticProfile(size, 1);
  writeFileSync(outPath, bytes);
  process.stdout.write(`${outPath}: ${bytes.length} bytes\n`);
}
