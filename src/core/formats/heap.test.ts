// gperftools heap profiles: real ones from test/fixtures/heap (allocs.c linked with tcmalloc, and
// Debian's xz under LD_PRELOAD), checked against their own headers, perl google-pprof's --text and
// --collapsed made from the same binaries, and Go pprof's -raw for the heap_v2 un-sampling.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.ts';
import { readLlvmOracle } from '../../../test/helpers/llvm.ts';
import { errorOf, rawStacks } from '../../../test/helpers/raw.ts';
import { foldProfile } from '../model/fold.ts';
import { withSampleType } from '../model/sample-types.ts';
import { toFoldedText } from '../model/serialize.ts';
import { detectFormat, parseProfile } from './detect.ts';
import { HEAP_SAMPLE_TYPES, looksLikeHeap, parseHeap, scaleHeapSample } from './heap.ts';

const FX = new URL('../../../test/fixtures/', import.meta.url);
const path = (p: string) => new URL(p, FX).pathname;
const fixture = (p: string) => new Uint8Array(readFileSync(path(p)));
const text = (p: string) => readFileSync(path(p), 'utf8');
const enc = (s: string) => new TextEncoder().encode(s);

const ALLOCS = readdirSync(path('heap'))
  .filter((f) => /^allocs\.\d+\.heap$/.test(f))
  .sort();

const sum = (a: Float64Array) => a.reduce((x, y) => x + y, 0);

describe('heap header and sniffing', () => {
  it('reads the fixture headers and sniffs them', () => {
    expect(ALLOCS.length).toBeGreaterThanOrEqual(3);
    for (const f of [...ALLOCS, 'xz.0001.heap', 'synthetic-v2.heap']) {
      const b = fixture(`heap/${f}`);
      expect(looksLikeHeap(b), f).toBe(true);
      expect(detectFormat(b), f).toBe('heap');
    }
  });

  it('accepts the header variants pprof accepts', () => {
    for (const h of [
      'heap profile:   1:   2 [   3:   4] @ heapprofile',
      'heap profile: 1: 2 [3: 4] @ heap_v2/524288',
      'heap profile: 1: 2 [3: 4] @ heap/1048576',
      'heap profile: 1: 2 [3: 4] @ heapz_v2/524288',
      'heap profile: 1: 2 [ 3: 4] @ growthz',
      'heap profile: 1: 2 [ 3: 4] @ growth',
      'heap profile: 1: 2 [ 3: 4] @ fragmentationz',
    ]) {
      expect(looksLikeHeap(enc(`${h}\n1: 2 [3: 4] @ 0x1\n`)), h).toBe(true);
    }
    expect(looksLikeHeap(enc('heap profile: nonsense\n'))).toBe(false);
    expect(looksLikeHeap(enc('main;a 1\n'))).toBe(false);
  });

  it('reads a header with a long run of blanks in linear time (fuzz: 3.5 s for 50 000 blanks)', () => {
    const blanks = ' '.repeat(200_000);
    const t0 = performance.now();
    const bad = errorOf(() => parseHeap(enc(`heap profile: 1: 2 [3: 4] @${blanks}x y\n1: 2 [3: 4] @ 0x1\n`)));
    expect(bad.format).toBe('heap');
    const p = parseHeap(enc(`heap profile: 1: 2 [3: 4] @${blanks}heap_v2/2\t${blanks}\n1: 2 [3: 4] @ 0x1\n`));
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(p.meta.extra?.['heap profile type']).toBe('heap_v2/2');
  });
});

describe('heap samples', () => {
  it('keeps four value columns, in-use bytes by default, leaf-first addresses, callers adjusted', () => {
    const raw = parseHeap(fixture(`heap/${ALLOCS[ALLOCS.length - 1]}`));
    expect(raw.format).toBe('heap');
    expect(raw.sampleTypes).toEqual(HEAP_SAMPLE_TYPES);
    // pprof's order (go tool pprof -raw's `Samples:` line), so an index is pprof's -sample_index
    const goTypes = /^Samples:\n(.*)$/m.exec(text('heap/synthetic-v2.go-raw.txt'))![1].trim().split(/\s+/);
    expect(raw.sampleTypes!.map((t) => `${t.type}/${t.unit}`)).toEqual(goTypes);
    expect(raw.sampleTypes![raw.defaultSampleType!].type).toBe('inuse_space');
    expect(raw.samples.values).toHaveLength(4);
    expect(raw.samples.weight).toBe(raw.samples.values![raw.defaultSampleType!]);
    expect(raw.adjustCallers).toBe(true);
    expect(raw.meta.dropFrames).toMatch(/^calloc\|cfree\|malloc\|/);
    expect(raw.meta.keepFrames).toBe('runtime\\.panic|runtime\\.reflectcall|runtime\\.call[0-9]*');
    expect(raw.meta.mappings.some((m) => m.path.endsWith('/allocs'))).toBe(true);
    expect(raw.warnings).toEqual([]);
    // the first sample line's addresses, root first
    const first = text(`heap/${ALLOCS[ALLOCS.length - 1]}`).split('\n')[1];
    const addrs = first
      .split('@')[1]
      .trim()
      .split(/\s+/)
      .map((h) => BigInt(h).toString(16));
    expect(rawStacks(raw).has(addrs.reverse().join(';'))).toBe(true);
  });

  it('sums to the header totals (heapprofile: no scaling)', () => {
    for (const f of [...ALLOCS, 'xz.0001.heap']) {
      const raw = parseHeap(fixture(`heap/${f}`));
      const h = /heap profile:\s*(\d+):\s*(\d+)\s*\[\s*(\d+):\s*(\d+)\]/.exec(text(`heap/${f}`))!;
      const v = raw.samples.values!;
      // the header: `inuse_objects: inuse_space [alloc_objects: alloc_space]`; the columns: alloc, then inuse
      expect([sum(v[2]), sum(v[3]), sum(v[0]), sum(v[1])], f).toEqual(h.slice(1, 5).map(Number));
      expect(raw.meta.extra?.sampling).toMatch(/no scaling/);
    }
  });

  it("un-samples heap_v2/RATE exactly as Go pprof's scaleHeapSample", () => {
    const raw = parseHeap(fixture('heap/synthetic-v2.heap'));
    expect(raw.meta.extra?.sampling).toBe(
      "unsampled at rate 524288 (pprof's formula: × 1/(1 − e^(−avgsize/rate)))",
    );
    expect(raw.meta.period).toEqual({ value: 524288, type: { type: 'space', unit: 'bytes' } });
    // go tool pprof -raw: `alloc_objects alloc_space inuse_objects inuse_space: locations`
    const oracle = [
      ...text('heap/synthetic-v2.go-raw.txt').matchAll(/^\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+):/gm),
    ].map((m) => [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])]);
    const v = raw.samples.values!;
    const ours = [];
    for (let s = 0; s < raw.samples.count; s++) {
      if (v[0][s] === 0 && v[2][s] === 0) continue; // Go drops the all-zero sample
      ours.push([v[0][s], v[1][s], v[2][s], v[3][s]]);
    }
    expect(ours).toEqual(oracle);
    expect(scaleHeapSample(5, 500, 1)).toEqual([5, 500]);
    expect(scaleHeapSample(5, 500, 0)).toEqual([5, 500]);
    expect(scaleHeapSample(0, 0, 524288)).toEqual([0, 0]);
  });

  it('reads v1 `heap/N` as pprof does: v2 at rate N/2', () => {
    const raw = parseHeap(enc('heap profile: 1: 100 [1: 100] @ heap/1048576\n1: 100 [1: 100] @ 0x10 0x20\n'));
    const [n, b] = scaleHeapSample(1, 100, 524288);
    expect(raw.samples.values![0][0]).toBe(n);
    expect(raw.samples.values![1][0]).toBe(b);
    expect(n).toBeGreaterThan(5000);
  });

  it('keeps good samples of a damaged file and warns with line numbers', () => {
    const good = text(`heap/${ALLOCS[ALLOCS.length - 1]}`).split('\n');
    const lines = good.slice();
    lines.splice(2, 0, '  17: garbage [ 1: 2] @ 0x12');
    lines.splice(4, 0, '   0:  1000 [ 1: 1000] @ 0x12 0x34');
    const raw = parseHeap(enc(lines.join('\n')));
    const clean = parseHeap(enc(good.join('\n')));
    expect(raw.samples.count).toBe(clean.samples.count);
    expect(sum(raw.samples.weight)).toBe(sum(clean.samples.weight));
    expect(raw.warnings.map((w) => w.line)).toEqual([3, 5]);
    expect(raw.warnings[1].message).toMatch(/in-use count 0 but bytes not 0/);

    // cut in the middle of a sample line: the maps are gone, a warning says where
    const cut = good.slice(0, 4).join('\n').slice(0, -7);
    const t = parseHeap(enc(cut));
    expect(t.samples.count).toBe(3);
    expect(t.warnings.at(-1)?.line).toBe(4);
    expect(t.warnings.at(-1)?.message).toMatch(/ends inside line 4/);
  });

  it('gives a clear error for a non-profile', () => {
    const e = errorOf(() => parseHeap(enc('hello\nworld\n')));
    expect(e.format).toBe('heap');
    expect(e.describe()).toMatch(/not a gperftools heap profile.*\(at line 1\)/);
    expect(
      errorOf(() => parseHeap(enc('heap profile: 1: 2 [3: 4] @ heapprofile\nbad\nworse\n'))).message,
    ).toMatch(/no readable samples \(2 damaged lines\)/);
  });
});

// ---------------------------------------------------------------------------------------------
// perl google-pprof as the oracle. Normalisation of perl's names, all of it:
//  P1. the address tag perl adds to names it took from `nm` (`main<00000000000012f6>`) is removed;
//  P2. perl names some libc functions after internal aliases or inlined callees where our ELF
//      symbolizer names the exported symbol or the real function (PERL_ALIASES below);
//  P3. stacks and functions worth 0 in the chosen value are left out (perl lists them).
// Our side: `flamelens fold` with the program, libc and libc's debug file from the sysroot.

const PERL_ALIASES: Record<string, string> = {
  __libc_start_main_impl: '__libc_start_main',
  __printf: 'printf',
  outstring_func: '__vfprintf_internal', // inlined into __vfprintf_internal
  _IO_new_file_xsputn: '_IO_file_xsputn',
  _IO_new_file_overflow: '_IO_file_overflow',
  __GI__IO_doallocbuf: '_IO_doallocbuf',
  __GI__IO_file_doallocate: '_IO_file_doallocate',
};
const perlName = (n: string) => {
  const s = n.replace(/<[0-9a-f]+>$/, '');
  return PERL_ALIASES[s] ?? s;
};

function stacksOf(folded: string, norm: (n: string) => string = (n) => n): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of folded.split('\n')) {
    if (line.trim() === '') continue;
    const sp = line.lastIndexOf(' ');
    const n = Number(line.slice(sp + 1));
    if (n === 0) continue;
    const k = line.slice(0, sp).split(';').map(norm).join(';');
    out.set(k, (out.get(k) ?? 0) + n);
  }
  return out;
}

/** Flat and cumulative totals per function (cum counts a function once per stack). */
function functionTotals(stacks: Map<string, number>): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (const [k, n] of stacks) {
    const frames = k.split(';');
    const leaf = frames[frames.length - 1];
    for (const f of new Set(frames)) {
      const t = out.get(f) ?? [0, 0];
      t[1] += n;
      if (f === leaf) t[0] += n;
      out.set(f, t);
    }
  }
  return out;
}

const SYMBOL_FILES = [
  'sysroot/usr/lib/x86_64-linux-gnu/libc.so.6',
  'sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug',
].map(path);

async function foldWith(file: string, extra: string[], err: RegExp = /^$/): Promise<string> {
  // perl pprof names frames from the symbol tables, without inlined functions.
  const r = await runCli([
    'fold',
    '--noinlines',
    ...extra,
    ...SYMBOL_FILES.flatMap((f) => ['--binary', f]),
    path(file),
  ]);
  expect(r.err).toMatch(err);
  expect(r.code).toBe(0);
  return r.out;
}

describe('heap profiles against perl google-pprof', () => {
  for (const f of ALLOCS) {
    const base = `heap/${f.replace(/\.heap$/, '')}`;
    it(`${f}: in-use and allocated stacks equal --collapsed`, async () => {
      const bin = ['--binary', path('heap/bin/allocs')];
      const inuse = await foldWith(`heap/${f}`, bin);
      expect(stacksOf(inuse)).toEqual(stacksOf(text(`${base}.collapsed.txt`), perlName));
      const alloc = await foldWith(`heap/${f}`, [...bin, '--sample-type', 'alloc_space']);
      expect(stacksOf(alloc)).toEqual(stacksOf(text(`${base}.alloc-collapsed.txt`), perlName));
    });

    it(`${f}: function totals equal --text (MB, as perl rounds them)`, async () => {
      for (const [type, oracle] of [
        ['inuse_space', 'inuse'],
        ['alloc_space', 'alloc'],
      ]) {
        const ours = functionTotals(
          stacksOf(await foldWith(`heap/${f}`, ['--binary', path('heap/bin/allocs'), '--sample-type', type])),
        );
        const perl = new Map<string, [string, string]>();
        let total = '';
        for (const line of text(`${base}.${oracle}.txt`).split('\n')) {
          const m = /^\s*([\d.]+)\s+[\d.]+%\s+[\d.]+%\s+([\d.]+)\s+[\d.]+%\s+(.+)$/.exec(line);
          if (m) perl.set(perlName(m[3]), [m[1], m[2]]);
          const t = /^Total: ([\d.]+) MB/.exec(line);
          if (t) total = t[1];
        }
        const mb = (n: number) => (n / 1048576).toFixed(1);
        const ourTotal = [...ours.values()].reduce((a, [flat]) => a + flat, 0);
        expect(mb(ourTotal), `${f} ${type} total`).toBe(total);
        expect(new Map([...ours].map(([k, [fl, cum]]) => [k, [mb(fl), mb(cum)]])), `${f} ${type}`).toEqual(
          perl,
        );
      }
    });
  }

  it('xz (Debian, stripped): totals equal the header and perl; every stack starts in xz', async () => {
    const raw = parseHeap(fixture('heap/xz.0001.heap'));
    for (const [col, oracle] of [
      [3, 'collapsed'], // inuse_space
      [1, 'alloc-collapsed'], // alloc_space
    ] as const) {
      const perlTotal = [...stacksOf(text(`heap/xz.0001.${oracle}.txt`)).values()].reduce((a, b) => a + b, 0);
      expect(sum(raw.samples.values![col])).toBe(perlTotal);
    }
    const folded = stacksOf(toFoldedText(foldProfile(withSampleType(raw, 1), { fileName: 'xz' }))); // alloc_space
    for (const k of folded.keys()) expect(k).toMatch(/^xz\+0x[0-9a-f]+;/);
    // with liblzma from the sysroot, its exported functions are named (perl names the rest after
    // the preceding dynamic symbol, so its names are not compared)
    const lzma = path('sysroot/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1');
    const xz = ['--binary', path('heap/bin/xz'), '--binary', lzma];
    const named = await foldWith('heap/xz.0001.heap', xz, /^flamelens: warning: xz: no function symbols/);
    expect(named).toMatch(/;lzma_stream_encoder;/);
  });

  it('drops allocator frames by pprof rules, keeps them on request', () => {
    // A stack through operator new and malloc, as a tcmalloc without frame skipping writes it.
    const p = [
      'heap profile: 2: 64 [2: 64] @ heapprofile',
      '1: 32 [1: 32] @ 0x1010 0x1020 0x1030 0x1040',
      '1: 32 [1: 32] @ 0x1050 0x1040',
      '',
    ].join('\n');
    const raw = parseHeap(enc(p));
    // Every address is looked up at PC − 1, the leaf's too (pprof's parseHeap).
    const names: Record<string, string> = { '100f': 'malloc', '101f': 'operator new(unsigned long)' };
    Object.assign(names, { '102f': 'make', '103f': 'main', '104f': 'malloc' });
    const symbolizer = {
      lookup: (_hi: number, lo: number) => {
        const n = names[lo.toString(16)];
        return n ? [n] : null;
      },
    };
    const dropped = toFoldedText(foldProfile(raw, { fileName: 'x', symbolizer }));
    expect(dropped).toBe('main 32\nmain;make 32\n');
    const kept = toFoldedText(foldProfile(raw, { fileName: 'x', symbolizer, ignoreDropFrames: true }));
    expect(kept).toBe('main;make;operator new(unsigned long);malloc 32\nmain;malloc 32\n');
  });

  it('parseProfile dispatches heap text', () => {
    expect(parseProfile(fixture('heap/allocs.0001.heap')).format).toBe('heap');
  });
});

describe('heap maps variants', () => {
  it('reads `--- Memory map:` with build=, and warns when there are no maps', () => {
    const p = [
      'heap profile: 1: 16 [1: 16] @ heapprofile',
      '1: 16 [1: 16] @ 0x401010 0x401020',
      '--- Memory map: ---',
      'build=/opt/b',
      '00400000-00402000 r-xp 00000000 08:01 1 $build/prog',
      '',
    ].join('\n');
    const raw = parseHeap(enc(p));
    expect(raw.meta.mappings.map((m) => m.path)).toEqual(['/opt/b/prog']);
    expect(raw.meta.headerLines).toEqual([{ key: 'build', value: '/opt/b', known: true }]);
    expect(raw.warnings).toEqual([]);
    const none = parseHeap(enc(p.split('--- Memory')[0]));
    expect(none.warnings.map((w) => w.message)).toEqual([
      'no MAPPED_LIBRARIES section: addresses stay unsymbolized',
    ]);
  });
});

// Every frame of a heap profile is a return address, the leaf's too (the call to the allocator):
// pprof's legacy heap reader looks each up at PC − 1. The oracle: llvm-symbolizer at every leaf in
// libc minus 1 (heap/xz.0001.libc-leaves.*, made by src/heap_leaf_oracle.py), against the leaf
// frames of `fold --granularity lines` (allocator frames kept, so that the leaf is the sample's).
describe('heap leaves are return addresses (PC − 1), as in pprof', () => {
  it('xz in libc at Frames = lines: each leaf is the line of its call (localealias.c:401, not :403)', async () => {
    const raw = parseHeap(fixture('heap/xz.0001.heap'));
    const runtimes = text('heap/xz.0001.libc-leaves.addrs.txt')
      .trim()
      .split('\n')
      .map((l) => BigInt(l.split(' ')[0]));
    const llvm = readLlvmOracle(path('heap/xz.0001.libc-leaves.llvm.txt.gz'));
    expect(llvm).toHaveLength(runtimes.length);
    // The innermost frame's name and line at each leaf, weighted by the in-use bytes of the
    // samples whose leaf it is.
    const want = new Map<string, number>();
    const leafOf = new Map(runtimes.map((a, i) => [a, llvm[i].frames.at(-1)!]));
    const { stackStart, stackLocs, values } = raw.samples;
    for (let s = 0; s < raw.samples.count; s++) {
      const loc = stackLocs[stackStart[s]];
      const a = (BigInt(raw.locations.addrHi[loc]) << 32n) | BigInt(raw.locations.addrLo[loc]);
      const f = leafOf.get(a);
      if (f === undefined) continue;
      const key = `${f.name}:${f.line}`;
      want.set(
        key,
        (want.get(key) ?? 0) + values![HEAP_SAMPLE_TYPES.findIndex((t) => t.type === 'inuse_space')][s],
      );
    }
    expect(want.get('extend_alias_table:401')).toBeGreaterThan(0);
    const r = await runCli([
      'fold',
      '--granularity',
      'lines',
      '--keep-drop-frames',
      ...SYMBOL_FILES.flatMap((f) => ['--binary', f]),
      path('heap/xz.0001.heap'),
    ]);
    expect(r.code, r.err).toBe(0);
    const got = new Map<string, number>();
    for (const line of r.out.trim().split('\n')) {
      const sp = line.lastIndexOf(' ');
      const m = /^(\S+) .*:(\d+)$/.exec(line.slice(0, sp).split(';').at(-1)!);
      if (m === null) continue;
      const key = `${m[1]}:${m[2]}`;
      if (want.has(key)) got.set(key, (got.get(key) ?? 0) + Number(line.slice(sp + 1)));
    }
    // fold leaves out stacks whose in-use weight is zero (allocations freed since).
    expect(got).toEqual(new Map([...want].filter(([, w]) => w > 0)));
    expect(r.out).not.toMatch(/extend_alias_table \S+localealias\.c:403 /);
  });
});

describe('heap lines read from their bytes', () => {
  // A sample line of the usual form is read from its bytes (heap.ts's SampleLineReader); any other
  // (other white space, long numbers) as text by SAMPLE_RE. Both must read a line alike.
  const HEAD = 'heap profile:    4:    400 [   8:   800] @ heap_v2/524288\n';
  const MAPS = '\nMAPPED_LIBRARIES:\n00400000-00404000 r-xp 00000000 08:01 1234     /opt/p\n';
  const usual = [
    '     1:      100 [     2:      200] @ 0x401000 0x402000 0x403000',
    '\t3:\t600000 [\t8:1600000]\t@\t0x401100 0x00000000000000402000\t0X',
    '     0:        0 [     0:        0] @ 0xffffffffffffffff 0x0',
    '    -1:      -50 [     0:        0] @ 0x401300',
  ];
  // the same lines spelt so that only the text path reads them (a vertical tab, a form feed, a
  // number of 16 digits with leading zeros are white space and digits to SAMPLE_RE)
  const text = [
    '\v    1:      100 [     2:      200] @ 0x401000 0x402000 0x403000',
    '\t3:\t600000 [\t8:1600000]\t@\t0x401100\f0x00000000000000402000\t0X',
    '     0:        0 [     0:0000000000000000] @ 0xffffffffffffffff 0x0',
    '    -1:      -50 [     0:        0] @ 0x401300\v',
  ];
  it('gives the same samples either way', () => {
    // the second line ends in `0X`: not an address, the line is skipped, by both paths
    const a = parseHeap(enc(HEAD + usual.join('\n') + MAPS));
    const b = parseHeap(enc(HEAD + text.join('\n') + MAPS));
    expect(a.samples.count).toBe(3);
    expect(b.samples.count).toBe(a.samples.count);
    expect(rawStacks(b)).toEqual(rawStacks(a));
    expect(b.samples.values).toEqual(a.samples.values);
    expect(b.labels).toEqual(a.labels);
    expect(b.warnings.map((w) => w.line)).toEqual(a.warnings.map((w) => w.line));
    expect(a.warnings.map((w) => w.line)).toEqual([3]);
    expect(a.locations.addrHi[a.samples.stackLocs[a.samples.stackStart[1]]]).toBe(0xffffffff);
  });

  it('keeps line numbers, a cut last line and CRLF as the text did', () => {
    const crlf = `${HEAD}\r\n# comment\r\n${usual[0]}\r\n${usual[2]}`;
    const r = parseHeap(enc(crlf));
    expect(r.samples.count).toBe(2);
    expect(r.warnings.map((w) => w.message)).toEqual([
      'the file ends inside line 5 (truncated?): its last sample may have lost frames; no mapped-libraries list',
    ]);
    const bom = parseHeap(enc(`\uFEFF${HEAD}${usual[0]}${MAPS}`));
    expect(bom.samples.count).toBe(1);
    expect(bom.meta.mappings.length).toBe(1);
  });
});
