// `perf script` text in the shapes perf writes besides the default call graphs, recorded here by
// test/fixtures/src/make_perf_script_fixtures.sh (perf 6.1) with perf's own reports of the same
// recordings as oracles: a recording without -g, `-G`, `-F` without ip, side-band records
// (`--show-mmap-events --show-task-events`) and DWARF call graphs with `(inlined)` frames.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.ts';
import { foldProfile } from '../model/fold.ts';
import { withSampleType } from '../model/sample-types.ts';
import { toFoldedText } from '../model/serialize.ts';
import { symbolizerFromFiles } from '../symbols/symbolize.ts';
import type { RawProfile } from '../types.ts';
import { detectFormat } from './detect.ts';
import { looksLikePerfScript, NO_FRAMES, parsePerfScript } from './perfscript.ts';

const DIR = new URL('../../../test/fixtures/perf/shapes/', import.meta.url);
const path = (f: string) => new URL(f, DIR).pathname;
const bytes = (f: string) => new Uint8Array(readFileSync(path(f)));
const text = (f: string) => readFileSync(path(f), 'utf8');
const enc = (s: string) => new TextEncoder().encode(s);
const lines = (s: string) => s.split('\n').filter((l) => l !== '');

const SHAPES = ['sorter-g', 'sorter-G', 'sorter-nog', 'sorter-noip', 'sorter-sideband', 'inlined-dwarf'];

/** Counting samples: the last value column. */
const bySamples = (raw: RawProfile) => withSampleType(raw, raw.sampleTypes!.length - 1);

/** Folded stacks with the process name as the root frame (stackcollapse-perf's shape), in samples. */
function foldedWithComm(raw: RawProfile): string[] {
  const folded = toFoldedText(foldProfile(bySamples(raw), { fileName: 't', groupBy: 'comm' }));
  return lines(folded)
    .map((l) => l.replace(/^comm=/, ''))
    .sort();
}

/** `perf report --no-children -n --sort sym`: samples per symbol, and the header's totals. */
function report(f: string): { bySymbol: Map<string, number>; samples: number; eventCount: number } {
  const t = text(f);
  const bySymbol = new Map<string, number>();
  for (const m of t.matchAll(/^\s+[\d.]+%\s+(\d+)\s+\[[.k]\] (.+?)\s*$/gm)) bySymbol.set(m[2], Number(m[1]));
  return {
    bySymbol,
    samples: Number(/^# Samples: (\d+)/m.exec(t)![1]),
    eventCount: Number(/^# Event count \(approx\.\): (\d+)/m.exec(t)![1]),
  };
}

/** Samples per leaf function of the fold (its self), as perf report counts them. */
function selfByLeaf(raw: RawProfile): Map<string, number> {
  const out = new Map<string, number>();
  for (const l of lines(toFoldedText(foldProfile(bySamples(raw), { fileName: 't' })))) {
    const sp = l.lastIndexOf(' ');
    const leaf = l.slice(0, sp).split(';').pop()!;
    out.set(leaf, (out.get(leaf) ?? 0) + Number(l.slice(sp + 1)));
  }
  return out;
}

describe('perf script shapes: detection', () => {
  for (const s of SHAPES) {
    it(`${s} is perf script text`, () => {
      expect(looksLikePerfScript(bytes(`${s}.perf.txt`))).toBe(true);
      expect(detectFormat(bytes(`${s}.perf.txt`))).toBe('perf-script');
    });
  }

  it('takes a head of side-band records alone, and indented headers only when stamped', () => {
    const mmap =
      'sorter  1675   953.373222: PERF_RECORD_MMAP2 1675/1675: [0x55f41ed2c000(0x1000) @ 0x1000 fe:00 5 1]: r-xp /tmp/sorter\n';
    expect(looksLikePerfScript(enc(mmap.repeat(3)))).toBe(true);
    expect(looksLikePerfScript(enc('  sorter  1675   953.375263:    2004008 cpu-clock: \n'))).toBe(true);
    expect(looksLikePerfScript(enc('  note 12 here:\n  more 13 there:\n'))).toBe(false);
    expect(looksLikePerfScript(enc('text PERF_RECORD_MMAP2 without a header\n'))).toBe(false);
  });
});

describe('perf script shapes: call graphs', () => {
  it('sorter-g: folded stacks equal stackcollapse_perf.py of the same file', () => {
    expect(foldedWithComm(parsePerfScript(bytes('sorter-g.perf.txt')))).toEqual(
      lines(text('sorter-g.collapsed.txt')).sort(),
    );
  });

  it('side-band records (PERF_RECORD_*) are skipped: the same stacks as the recording without them', () => {
    const raw = parsePerfScript(bytes('sorter-sideband.perf.txt'));
    expect(foldedWithComm(raw)).toEqual(lines(text('sorter-g.collapsed.txt')).sort());
    expect(raw.warnings).toEqual([]);
    const records = lines(text('sorter-sideband.perf.txt')).filter((l) => / PERF_RECORD_/.test(l)).length;
    expect(records).toBeGreaterThan(3);
    expect(raw.meta.extra!['side-band records']).toMatch(new RegExp(`^${records} PERF_RECORD_\\* lines`));
  });
});

describe('perf script shapes: one line per sample', () => {
  it('-G (--hide-call-graph): each sample is its leaf frame; self equals perf report of the recording', () => {
    const raw = parsePerfScript(bytes('sorter-G.perf.txt'));
    expect(raw.warnings).toEqual([]);
    const r = report('sorter-g.report.txt');
    expect(raw.samples.count).toBe(r.samples);
    expect(selfByLeaf(raw)).toEqual(r.bySymbol);
    for (let s = 0; s < raw.samples.count; s++) {
      expect(raw.samples.stackStart[s + 1] - raw.samples.stackStart[s]).toBe(1);
    }
  });

  it('a recording without -g: self equals perf report', () => {
    const raw = parsePerfScript(bytes('sorter-nog.perf.txt'));
    expect(raw.warnings).toEqual([]);
    const r = report('sorter-nog.report.txt');
    expect(raw.samples.count).toBe(r.samples);
    expect(selfByLeaf(raw)).toEqual(r.bySymbol);
    expect(raw.samples.weight.reduce((a, b) => a + b, 0)).toBe(r.eventCount);
  });

  it('reads an indented header whose command is hex digits as a header, not a frame', () => {
    const t = [
      '             cc1  1652   952.109943:    2004008 cpu-clock:      55d170516186 parse+0xd (/usr/lib/gcc/cc1)',
      '             cc1  1652   952.111977:    2004008 cpu-clock:      55d170516190 lex+0x4 (/usr/lib/gcc/cc1)',
      '',
    ].join('\n');
    const raw = parsePerfScript(enc(t));
    expect(raw.samples.count).toBe(2);
    expect(lines(toFoldedText(foldProfile(raw, { fileName: 't' })))).toEqual([
      'lex 2004008',
      'parse 2004008',
    ]);
  });
});

describe('perf script shapes: -F without ip', () => {
  it('keeps every sample as one [no frames] frame, with its thread and time, and says why', () => {
    const raw = parsePerfScript(bytes('sorter-noip.perf.txt'));
    const r = report('sorter-g.report.txt');
    expect(raw.samples.count).toBe(r.samples);
    expect(lines(toFoldedText(foldProfile(raw, { fileName: 't' })))).toEqual([
      `${NO_FRAMES} ${r.eventCount}`,
    ]);
    expect(raw.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(new RegExp(`^${r.samples} samples have no frames .*\`-F\` without \`ip\``)),
    ]);
    expect(raw.labels!.map((l) => l.key)).toEqual(['comm', 'tid']);
    expect(raw.meta.durationNs).toBeGreaterThan(0);
  });

  it('a sample without frames among others keeps its weight', () => {
    const raw = parsePerfScript(
      enc('prog 12 1.5: 10 cycles:\n\t1 f (/bin/prog)\n\nprog 12 1.6: 5 cycles:\n'),
    );
    expect(lines(toFoldedText(foldProfile(raw, { fileName: 't' })))).toEqual([`${NO_FRAMES} 5`, 'f 10']);
  });
});

describe('perf script shapes: (inlined) frames', () => {
  const raw = parsePerfScript(bytes('inlined-dwarf.perf.txt'));

  it('folded stacks equal stackcollapse_perf.py: inline frames above their function, self to the innermost', () => {
    expect(foldedWithComm(raw)).toEqual(lines(text('inlined-dwarf.collapsed.txt')).sort());
    expect(raw.warnings).toEqual([]);
    expect(raw.meta.mappings.map((m) => m.path)).not.toContain('inlined');
    expect(toFoldedText(foldProfile(raw, { fileName: 't' }))).toMatch(/;main;hot;step;mix \d+$/m);
  });

  it('an inline run and its function are one location named by the function: perf report Symbol counts', () => {
    const { stackStart, stackLocs } = raw.samples;
    const bySymbol = new Map<string, number>();
    for (let s = 0; s < raw.samples.count; s++) {
      const leaf = stackLocs[stackStart[s]];
      const name = raw.strings[raw.locations.locName[leaf]];
      bySymbol.set(name, (bySymbol.get(name) ?? 0) + 1);
    }
    expect(bySymbol).toEqual(report('inlined-dwarf.report.txt').bySymbol);
    const lines = raw.lines!;
    const leaf = stackLocs[stackStart[0]];
    const chain = [...lines.name.subarray(lines.start[leaf], lines.start[leaf + 1])].map(
      (n) => raw.strings[n],
    );
    expect(['hot,step,mix', 'cold,mix']).toContain(chain.join(','));
  });

  it('stays as perf named it when the binary is dropped (no inline frame twice)', () => {
    const files = [{ name: 'inlined', bytes: bytes('bin/inlined') }];
    const { symbolizer, report: rep } = symbolizerFromFiles(raw.meta.mappings, files);
    expect(rep.matched.map((m) => m.mappingPath)).toEqual(['/tmp/flamelens-shapes/inlined']);
    expect(toFoldedText(foldProfile(raw, { fileName: 't', symbolizer }))).toBe(
      toFoldedText(foldProfile(raw, { fileName: 't' })),
    );
  });

  it('a run whose function perf did not print at its address is a location of its own', () => {
    const t = [
      'prog 12 1.5: 10 cpu-clock: ',
      '\t1010 inner+0x4 (inlined)',
      '\t1010 outer+0x10 (/bin/prog)',
      '\t2020 lone_inline+0x2 (inlined)',
      '\t3030 _start+0x1 (/bin/prog)',
      '',
    ].join('\n');
    const r = parsePerfScript(enc(t));
    expect(toFoldedText(foldProfile(r, { fileName: 't' }))).toBe('_start;lone_inline;outer;inner 10\n');
    expect(r.samples.stackStart[1]).toBe(3);
  });
});

describe('perf script shapes: nanosecond periods give time', () => {
  it('cpu-clock weights are nanoseconds: periodUs 0.001, and a sample is the period in time', () => {
    const raw = parsePerfScript(bytes('sorter-g.perf.txt'));
    expect(raw.sampleTypes![0]).toEqual({ type: 'cpu-clock', unit: 'nanoseconds' });
    expect(raw.meta.periodUs).toBe(0.001);
    const period = raw.meta.period!.value;
    expect(bySamples(raw).meta.periodUs).toBeCloseTo(period / 1000, 9);
    // cycles count events: no time
    expect(parsePerfScript(enc('p 1 1.5: 1000 cycles:u: \n\t1 f (/bin/p)\n')).meta.periodUs).toBe(0);
  });

  it('flamelens info shows the sampling time', async () => {
    const f = path('sorter-g.perf.txt');
    const info = JSON.parse((await runCli(['info', f])).out);
    const r = report('sorter-g.report.txt');
    expect(info.periodUs).toBe(0.001);
    expect(info.samplingTimeUs).toBeCloseTo(r.eventCount / 1000, 6);
    const bySamplesInfo = JSON.parse((await runCli(['info', '--sample-type', 'samples', f])).out);
    expect(bySamplesInfo.samplingTimeUs).toBeCloseTo((r.samples * info.period.value) / 1000, 6);
  });
});
