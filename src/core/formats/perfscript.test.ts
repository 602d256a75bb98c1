// `perf script` text: real recordings from test/fixtures/perf (perf 6.1, cpu-clock at 499 Hz with
// call graphs) of sorter.c, its stripped copy, Debian's xz and both at once, plus damaged copies;
// folded stacks checked against test/checks/stackcollapse_perf.py's output on the same files.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.ts';
import { errorOf } from '../../../test/helpers/raw.ts';
import { foldProfile } from '../model/fold.ts';
import { withSampleType } from '../model/sample-types.ts';
import { toFoldedText } from '../model/serialize.ts';
import { symbolizerFromFiles } from '../symbols/symbolize.ts';
import type { RawProfile } from '../types.ts';
import { detectFormat } from './detect.ts';
import { isSpace, looksLikePerfScript, parsePerfFrame, parsePerfScript } from './perfscript.ts';

const FX = new URL('../../../test/fixtures/', import.meta.url);
const path = (p: string) => new URL(p, FX).pathname;
const fixture = (p: string) => new Uint8Array(readFileSync(path(p)));
const text = (p: string) => readFileSync(path(p), 'utf8');
const enc = (s: string) => new TextEncoder().encode(s);

const PERF = readdirSync(path('perf'))
  .filter((f) => f.endsWith('.perf.txt'))
  .sort();

/** `raw` with its `comm` label as a root frame (stackcollapse-perf's root), counting samples. */
function withCommRoot(raw: RawProfile): RawProfile {
  const comm = raw.labels!.find((l) => l.key === 'comm')!;
  if (comm.kind !== 'string') throw new Error('comm is a string label');
  const n = raw.locations.count;
  const strings = raw.strings.slice();
  const commLoc = new Map<number, number>();
  const { stackStart, stackLocs } = raw.samples;
  const start = new Uint32Array(raw.samples.count + 1);
  const locs: number[] = [];
  for (let s = 0; s < raw.samples.count; s++) {
    for (let p = stackStart[s]; p < stackStart[s + 1]; p++) locs.push(stackLocs[p]);
    const c = comm.value[s];
    if (!commLoc.has(c)) commLoc.set(c, n + commLoc.size);
    locs.push(commLoc.get(c)!);
    start[s + 1] = locs.length;
  }
  const m = n + commLoc.size;
  const grow = <T extends Uint32Array | Uint8Array | Int32Array>(
    a: T,
    make: (k: number) => T,
    fill: number,
  ): T => {
    const b = make(m);
    b.set(a);
    b.fill(fill, n);
    return b;
  };
  const locName = grow(raw.locations.locName, (k) => new Int32Array(k), -1);
  for (const [c, loc] of commLoc) locName[loc] = c;
  const out: RawProfile = {
    ...raw,
    strings,
    locations: {
      count: m,
      addrHi: grow(raw.locations.addrHi, (k) => new Uint32Array(k), 0),
      addrLo: grow(raw.locations.addrLo, (k) => new Uint32Array(k), 0),
      hasAddr: grow(raw.locations.hasAddr, (k) => new Uint8Array(k), 0),
      locName,
    },
    samples: { ...raw.samples, stackStart: start, stackLocs: Uint32Array.from(locs) },
  };
  return withSampleType(out, raw.sampleTypes!.length - 1);
}

const lines = (s: string) => s.split('\n').filter((l) => l !== '');

describe('perf script sniffing', () => {
  it('finds white space in a header as `\\s` does', () => {
    for (let c = 0; c < 0x10000; c++) {
      if (isSpace(c) !== /\s/.test(String.fromCharCode(c))) expect.fail(`U+${c.toString(16)}`);
    }
  });

  it('recognises every recording and damaged copy', () => {
    expect(PERF.length).toBeGreaterThanOrEqual(6);
    for (const f of PERF) {
      expect(looksLikePerfScript(fixture(`perf/${f}`)), f).toBe(true);
      expect(detectFormat(fixture(`perf/${f}`)), f).toBe('perf-script');
    }
  });

  it('accepts the header variants other importers accept', () => {
    for (const h of [
      'java 25607 4794564.109216: cycles:',
      'java 12688 [002] 6544038.708352: cpu-clock:',
      'V8 WorkerThread 25607 4794564.109216: cycles:',
      'java 24636/25607 [000] 4794564.109216: cycles:',
      'Gecko\t25122 [007] 115539.936601:\t\t1000000 task-clock:u:',
      'java 12688/12764 6544038.708352: cpu-clock:',
      'FS Broker 5858  5791/5860  30171.917889:    4612247 cycles:ppp: ',
      'java 25607/25608 4794564.109216: 33 cycles:uppp',
    ]) {
      const b = enc(`${h}\n\t    7f12 main+0x12 (/usr/bin/java)\n\n`);
      expect(looksLikePerfScript(b), h).toBe(true);
      const raw = parsePerfScript(b);
      expect(raw.samples.count, h).toBe(1);
    }
    const fs = parsePerfScript(
      enc('FS Broker 5858  5791/5860  30171.917889:    4612247 cycles:ppp: \n\t1 a (b)\n'),
    );
    expect(fs.sampleTypes).toEqual([
      { type: 'cycles:ppp', unit: 'events' },
      { type: 'samples', unit: 'count' },
    ]);
    expect(fs.samples.weight[0]).toBe(4612247);
    const label = (k: string) => {
      const l = fs.labels!.find((x) => x.key === k)!;
      return fs.strings[(l.value as Int32Array)[0]];
    };
    expect([label('comm'), label('pid'), label('tid')]).toEqual(['FS Broker 5858', '5791', '5860']);
  });

  it('does not take folded text, pprof --raw, heap profiles or prose', () => {
    for (const s of [
      'main;a;b 12\nmain;c 3\n',
      '--- symbol\nbinary=x\n',
      'heap profile: 1: 2 [3: 4] @ heapprofile\n1: 2 [3: 4] @ 0x1\n',
      'Hello world: this is text\nsecond line\n',
      'note 12 here:\nplain\n',
    ]) {
      expect(looksLikePerfScript(enc(s)), s).toBe(false);
    }
  });

  it('reads a header with a long run of blanks in linear time (fuzz: the header regexp backtracked quadratically)', () => {
    // 200 000 blanks took the old `^(\S.*?)\s+…` over 30 s, first in the sniff of every text file
    const blanks = ' '.repeat(200_000);
    const t0 = performance.now();
    expect(looksLikePerfScript(enc(`a${blanks}x\n`))).toBe(false);
    const raw = parsePerfScript(
      enc(`my prog${blanks}7799 322.494863: 2004008 cpu-clock:\n\t1186 main (/tmp/x)\n`),
    );
    expect(performance.now() - t0).toBeLessThan(2000);
    const comm = raw.labels!.find((l) => l.key === 'comm')!;
    expect(comm.kind === 'string' && raw.strings[comm.value[0]]).toBe('my prog');
    expect(raw.samples.weight[0]).toBe(2004008);
  });

  it('reads lines with blanks before a CR or U+2028 in linear time (fuzz: 20 s for one frame line)', () => {
    const blanks = ' '.repeat(200_000);
    const t0 = performance.now();
    const raw = parsePerfScript(
      enc(
        `sorter 7799 322.494863: 2004008 cpu-clock:${blanks}\u2028\n` +
          `\t1186${blanks}slow_key+0xd (/tmp/sorter)\u2028\n\t3fbf4${blanks}main (/tmp/sorter)\r\n`,
      ),
    );
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(raw.samples.count).toBe(1);
    expect(raw.samples.stackStart[1]).toBe(2);
  });

  it('parses frame lines', () => {
    expect(parsePerfFrame('ffffffff821f2521 sysvec_apic_timer_interrupt+0x31 ([kernel.kallsyms])')).toEqual({
      hi: 0xffffffff,
      lo: 0x821f2521,
      symbol: 'sysvec_apic_timer_interrupt',
      dso: '[kernel.kallsyms]',
    });
    expect(parsePerfFrame('  1186 std::vector<int>::at(unsigned long) const+0x3 (/bin/x y)')).toEqual({
      hi: 0,
      lo: 0x1186,
      symbol: 'std::vector<int>::at(unsigned long) const',
      dso: '/bin/x y',
    });
    expect(parsePerfFrame('15be0 [unknown] (/usr/lib/liblzma.so.5)')?.symbol).toBe('[unknown]');
    expect(parsePerfFrame('1186 (/tmp/sorter)')).toEqual({
      hi: 0,
      lo: 0x1186,
      symbol: '',
      dso: '/tmp/sorter',
    });
    expect(parsePerfFrame('not a frame')).toBeNull();
  });
});

describe('perf script samples', () => {
  it("has events as value columns, comm/pid/tid/cpu labels and each sample's time", () => {
    const raw = parsePerfScript(fixture('perf/mixed.perf.txt'));
    expect(raw.format).toBe('perf-script');
    expect(raw.sampleTypes).toEqual([
      { type: 'cpu-clock', unit: 'nanoseconds' },
      { type: 'samples', unit: 'count' },
    ]);
    expect(raw.defaultSampleType).toBe(0);
    expect(raw.samples.weight).toBe(raw.samples.values![0]);
    expect(raw.samples.weight.every((w) => w > 1000)).toBe(true);
    expect(raw.labels!.map((l) => l.key)).toEqual(['comm', 'pid', 'tid', 'cpu']);
    // the `[CPU]` of each header, as a number's text (perf.data's cpu label)
    const text = new TextDecoder().decode(fixture('perf/mixed.perf.txt'));
    const headers = text.split('\n').filter((l) => /^\S/.test(l));
    const cpu = raw.labels![3].value as Int32Array;
    expect([...cpu].map((c) => raw.strings[c])).toEqual(
      headers.map((l) => String(Number(/\[(\d+)\]/.exec(l)![1]))),
    );
    // time stamps: ns since the earliest header's, from its digits
    const stamps = headers
      .map((l) => /\s(\d+)\.(\d{6}):/.exec(l)!)
      .map((m) => BigInt(m[1]) * 1_000_000n + BigInt(m[2]));
    const first = stamps.reduce((x, y) => (y < x ? y : x));
    expect(Array.from(raw.samples.time!)).toEqual(stamps.map((t) => Number((t - first) * 1000n)));
    const comm = raw.labels![0].value as Int32Array;
    expect(new Set([...comm].map((c) => raw.strings[c]))).toEqual(new Set(['sorter', 'xz', 'sh']));
    expect(raw.adjustCallers).toBe(true);
    expect(raw.warnings).toEqual([]);
    expect(raw.meta.durationNs).toBeGreaterThan(0);
    // perf's default fields have no pid, nor a CPU: no pid or cpu label
    expect(parsePerfScript(fixture('perf/sorter.perf.txt')).labels!.map((l) => l.key)).toEqual([
      'comm',
      'tid',
    ]);
    // a header without a time stamp: NaN
    const some = parsePerfScript(
      new TextEncoder().encode('a 1 5.000001: 1 cpu-clock:\n\t1 f (/x)\n\na 1 1 cpu-clock:\n\t1 f (/x)\n'),
    );
    expect(Array.from(some.samples.time!)).toEqual([0, Number.NaN]);
  });

  for (const f of PERF) {
    it(`${f}: folded stacks equal stackcollapse_perf.py's`, () => {
      const raw = parsePerfScript(fixture(`perf/${f}`));
      const ours = lines(toFoldedText(foldProfile(withCommRoot(raw), { fileName: f })));
      expect(ours).toEqual(lines(text(`perf/${f.replace(/\.perf\.txt$/, '.collapsed.txt')}`)));
    });
  }

  it('names kernel frames as perf does and unnamed user frames DSO+0xADDR (callers at PC − 1)', () => {
    const folded = toFoldedText(
      foldProfile(parsePerfScript(fixture('perf/xz.perf.txt')), { fileName: 'xz' }),
    );
    expect(folded).toMatch(/;asm_exc_page_fault;exc_page_fault;/);
    expect(folded).toMatch(/liblzma\.so\.5\.4\.1\+0x[0-9a-f]+/);
    const stripped = toFoldedText(
      foldProfile(parsePerfScript(fixture('perf/sorter-stripped.perf.txt')), { fileName: 's' }),
    );
    expect(stripped).toMatch(/^msort_with_tmp\.part\.0;sorter-stripped\+0x[0-9a-f]+ \d+$/m);
  });

  it('symbolizes unnamed frames with the unstripped binary dropped under the DSO name', () => {
    const raw = withSampleType(parsePerfScript(fixture('perf/sorter-stripped.perf.txt')), 1);
    const files = [{ name: 'sorter-stripped', bytes: fixture('perf/bin/sorter') }];
    const { symbolizer, errors } = symbolizerFromFiles(raw.meta.mappings, files, { mangled: true });
    expect(errors).toEqual([]);
    const folded = toFoldedText(foldProfile(raw, { fileName: 's', symbolizer }));
    expect(folded).not.toMatch(/sorter-stripped\+0x/);
    expect(folded).toMatch(/^msort_with_tmp\.part\.0;slow_key \d+$/m);
    // every address perf left unnamed is now one of sorter.c's functions
    const unnamed = lines(text('perf/sorter-stripped.collapsed.txt')).reduce(
      (n, l) => n + (l.includes('sorter-stripped+0x') ? Number(l.slice(l.lastIndexOf(' ') + 1)) : 0),
      0,
    );
    const ours = lines(folded).reduce(
      (n, l) =>
        n + (/(^|;)(slow_key|cmp|main|run)(;| )/.test(l) ? Number(l.slice(l.lastIndexOf(' ') + 1)) : 0),
      0,
    );
    expect(ours).toBe(unnamed);
  });

  it('keeps the good samples of damaged files and warns with line numbers', () => {
    const g = parsePerfScript(fixture('perf/damaged-garbage.perf.txt'));
    const clean = parsePerfScript(fixture('perf/sorter.perf.txt'));
    expect(g.samples.count).toBe(clean.samples.count - 1);
    const damaged = text('perf/damaged-garbage.perf.txt').split('\n');
    const at = (s: string) => damaged.indexOf(s) + 1;
    expect(g.warnings.map((w) => w.line)).toEqual([
      at('sorter garbage header without event'),
      at('\tthis is not a frame line'),
      at('garbage in the middle of a sample'),
    ]);
    expect(g.warnings[0].message).toMatch(/not a sample header .*; the frames after it are ignored/);
    expect(g.warnings[1].message).toMatch(/not a frame line/);

    const t = parsePerfScript(fixture('perf/damaged-truncated.perf.txt'));
    const n = text('perf/damaged-truncated.perf.txt').split('\n').length;
    expect(t.warnings).toEqual([
      { message: `the file ends inside line ${n} (truncated?): the sample there was left out`, line: n },
    ]);
    expect(t.samples.count).toBeGreaterThan(50);
  });

  it('gives clear errors', () => {
    expect(errorOf(() => parsePerfScript(enc(''))).message).toBe('empty file');
    expect(errorOf(() => parsePerfScript(enc('# perf script --header\n\n'))).message).toMatch(
      /has no samples \(no line of the form `COMM TID \[TIME:\] \[PERIOD\] EVENT:`\)/,
    );
    // samples perf printed without frames are samples (perfscript-shapes.test.ts)
    expect(parsePerfScript(enc('prog 12 1.5: cycles:\n\nprog 12 1.6: cycles:\n')).samples.count).toBe(2);
    expect(errorOf(() => parsePerfScript(enc('just words\n'))).message).toMatch(/no readable samples/);
  });

  it('CLI fold and info work on perf script text', async () => {
    const fold = await runCli(['fold', path('perf/mixed.perf.txt')]);
    expect(fold.code).toBe(0);
    expect(fold.err).toBe('');
    const info = await runCli(['info', '--sample-type', 'samples', path('perf/mixed.perf.txt')]);
    const j = JSON.parse(info.out);
    expect(j.format).toBe('perf-script');
    expect(j.sampleType).toEqual({ type: 'samples', unit: 'count' });
    expect(j.samples).toBe(parsePerfScript(fixture('perf/mixed.perf.txt')).samples.count);
    const bad = await runCli(['fold', '--sample-type', 'cycles', path('perf/mixed.perf.txt')]);
    expect(bad.code).toBe(2); // bad usage (issue 32)
    expect(bad.err).toMatch(
      /no sample type "cycles" in this profile \(it has 0: cpu-clock\/\S+, 1: samples\/count\)/,
    );
  });
});

describe('perf script without call chains', () => {
  it('takes the frame printed on the header line', () => {
    const t = [
      'sorter 7799 322.494863:    2004008 cpu-clock:            1186 slow_key+0xd (/tmp/sorter)',
      'sorter 7799 322.496853:    2004008 cpu-clock:            11c0 cmp+0x2f (/tmp/sorter)',
      '',
    ].join('\n');
    expect(looksLikePerfScript(enc(t))).toBe(true);
    const raw = parsePerfScript(enc(t));
    expect(toFoldedText(foldProfile(raw, { fileName: 't' }))).toBe('cmp 2004008\nslow_key 2004008\n');
  });
});

describe('perf script events and addresses', () => {
  it('gives each event its own value column', () => {
    const t = [
      'prog 10 1.000001:     1000 cycles:u: ',
      '\t1000 f+0x1 (/bin/prog)',
      '',
      'prog 10 1.000002:      300 instructions:u: ',
      '\t1000 f+0x1 (/bin/prog)',
      '',
      'prog 10 1.000003:     2000 cycles:u: ',
      '\t1010 g+0x1 (/bin/prog)',
      '',
    ].join('\n');
    const raw = parsePerfScript(enc(t));
    expect(raw.sampleTypes!.map((s) => `${s.type}/${s.unit}`)).toEqual([
      'cycles:u/events',
      'instructions:u/events',
      'samples/count',
    ]);
    expect(raw.samples.values!.map((v) => [...v])).toEqual([
      [1000, 0, 2000],
      [0, 300, 0],
      [1, 1, 1],
    ]);
    expect(raw.meta.period).toEqual({ value: 1000, type: { type: 'cycles:u', unit: 'events' } });
    expect(raw.meta.durationNs).toBe(2000);
    const fold = (i: number) => toFoldedText(foldProfile(withSampleType(raw, i), { fileName: 't' }));
    // g has no instructions event: folded text leaves out a stack of weight zero (issue 32).
    expect(fold(1)).toBe('f 300\n');
    expect(fold(0)).toBe('f 1000\ng 2000\n');
  });

  it('maps DSO-relative addresses, leaves run-time ones unmapped', () => {
    const t = [
      'a 1 1.0: 1 cpu-clock:',
      '\t1186 [unknown] (/bin/rel)',
      '\t5555555551a2 [unknown] (/bin/abs)',
      '\t7f0000001000 main+0x10 (/bin/abs)',
      '\t0 [unknown] ([unknown])',
      '',
    ].join('\n');
    const raw = parsePerfScript(enc(t));
    expect(raw.meta.mappings.map((m) => [m.path, m.start.toString(16)])).toEqual([
      ['/bin/rel', '1000000000000000'],
    ]);
    expect(raw.meta.extra?.['run-time addresses']).toMatch(/^1 DSOs \(\/bin\/abs\)/);
    expect(toFoldedText(foldProfile(raw, { fileName: 't' }))).toBe(
      '0xffffffffffffffff;main;0x5555555551a1;rel+0x1186 1\n',
    );
  });
});
