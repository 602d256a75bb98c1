// Time ranges of perf recordings (test/fixtures/perf-data) through the analysis seam, against perf's
// own: the folded stacks of a range equal `perf script --time START,END` of the same file collapsed
// (perf_ref.py, as test/perf-data.test.ts checks whole files), the outputs perf made once by
// test/fixtures/src/make_perf_time_fixtures.sh (NAME.time.txt, NAME.range-LABEL.perf.txt.gz). Also
// the perf script text of a recording: its time stamps (microseconds) give the same ranges.
// Needs python3.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { TimelineResult } from '../src/core/analysis/derivations.ts';
import { AnalysisSession } from '../src/core/analysis/session.ts';
import type { FoldedProfile, LabelFilter } from '../src/core/types.ts';
import { DEFAULT_VIEW, type WorkerView, workerViewOf } from '../src/core/view/schema.ts';
import { fieldLines, oracle, type Recording, recording, symbolFiles } from './helpers/perf-oracles.ts';

const PERF_REF = fileURLToPath(new URL('./checks/perf_ref.py', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'flamelens-perftime-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** perf_ref.py's verdict on our folded text against a perf script text: [passed, its line]. */
function perfRef(perfText: string, folded: string, event?: string): [boolean, string] {
  const txt = join(tmp, 'perf.txt');
  writeFileSync(txt, perfText);
  const ours = join(tmp, 'ours.folded');
  writeFileSync(ours, folded);
  const r = spawnSync('python3', [PERF_REF, 'compare', txt, ours], {
    encoding: 'utf8',
    env: { ...process.env, ...(event && { PERF_REF_EVENT: event }) },
  });
  return [r.status === 0, `${r.stdout}${r.stderr}`.trim()];
}

/** Seconds with nine decimals as nanoseconds, exactly. */
const nsOf = (t: string): bigint => {
  const [s, f] = t.split('.');
  return BigInt(s) * 1_000_000_000n + BigInt(f.padEnd(9, '0'));
};

/** NAME.time.txt: the ranges perf was given, as ns since the earliest sample (ours: time 0). */
function ranges(name: Recording): { label: string; start: number; end: number }[] {
  const lines = oracle(`${name}.time.txt`)
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  const first = nsOf(lines.find((l) => l[0] === 'FIRST')![1]);
  // the earliest sample perf printed is ours at 0
  const earliest = fieldLines(name).reduce((m, l) => (l.time < m ? l.time : m), fieldLines(name)[0].time);
  expect(first).toBe(earliest);
  return lines
    .filter((l) => l[0] !== 'FIRST')
    .map(([label, s, e]) => ({ label, start: Number(nsOf(s) - first), end: Number(nsOf(e) - first) }));
}

/** Samples perf printed in a perf script text. */
const samplesIn = (text: string, event: string) =>
  text.split('\n').filter((l) => /^\S/.test(l) && l.includes(` ${event}:`)).length;

async function session(name: Recording, view: Partial<WorkerView> = {}) {
  const s = new AnalysisSession();
  const files = [...symbolFiles(), { name: `${name}.data`, bytes: recording(name) }];
  const v = { ...workerViewOf(DEFAULT_VIEW), sampleType: 'samples', ...view };
  const r = await s.add(files, v, { consume: true });
  return { s, r, v };
}

const shownFolded = (s: AnalysisSession) => {
  const parts: string[] = [];
  s.writeFolded([], (t) => parts.push(t));
  return parts.join('');
};

const EVENTS: Record<string, string[]> = {
  threads: ['cpu-clock'],
  procs: ['cpu-clock'],
  'two-events': ['cpu-clock', 'task-clock'],
};

describe('a time range of perf.data equals perf script --time of the same file (perf_ref.py)', () => {
  for (const name of ['threads', 'procs', 'two-events'] as const) {
    for (const event of EVENTS[name]) {
      const several = EVENTS[name].length > 1;
      const labelFilters: LabelFilter[] = several ? [{ key: 'event', op: 'focus', values: [event] }] : [];
      it(`${name}${several ? ` (${event})` : ''}: every range, its stacks and its sample count`, async () => {
        const { s, v } = await session(name, { labelFilters });
        for (const r of ranges(name)) {
          const perfText = oracle(`${name}.range-${r.label}.perf.txt`);
          const res = await s.apply({ ...v, range: { start: r.start, end: r.end } });
          const profile = res.analysis!.profile as FoldedProfile;
          expect(profile.meta.totalSamples, r.label).toBe(samplesIn(perfText, event));
          const [ok, line] = perfRef(perfText, shownFolded(s), several ? event : undefined);
          expect(ok, `${r.label}: ${line}`).toBe(true);
          expect(s.sampleCount(), r.label).toBe(samplesIn(perfText, event));
        }
      });
    }
  }

  it("the range's samples per mapped file are its own", async () => {
    const { s, v } = await session('threads');
    const [early] = ranges('threads');
    const r = await s.apply({ ...v, range: early });
    expect(r.analysis!.profile.meta.mappingSamplesPending).toBe(true);
    const held = s.mappingSamples();
    const perf = oracle('threads.range-early.perf.txt');
    // samples with a frame of the program (perf: its path), each once
    const inProgram = perf.split('\n\n').filter((b) => b.includes('/bin/threads)')).length;
    expect(held.find((m) => m.path.endsWith('/bin/threads'))?.total).toBe(inProgram);
  });

  it('the range is a stage after the fold: a new range reweighs, it does not fold again', async () => {
    const { s, v } = await session('threads');
    const [early, late] = ranges('threads');
    const a = await s.apply({ ...v, range: early });
    const folded = s.folded();
    const b = await s.apply({ ...v, range: late });
    expect(s.folded()).toBe(folded);
    expect(b.labels).toBeUndefined(); // the labels follow a fold only
    expect(a.analysis!.profile.meta.totalSamples).not.toBe(b.analysis!.profile.meta.totalSamples);
    // and back to the whole profile
    const whole = await s.apply(v);
    expect(whole.analysis!.profile.meta.totalSamples).toBe(fieldLines('threads').length);
  });

  it('two ranges compared: the differential graph of B against A, each side as perf sees it', async () => {
    const { s, v } = await session('threads');
    const [e, l] = ranges('threads');
    const early = { start: e.start, end: e.end };
    const late = { start: l.start, end: l.end };
    const r = await s.apply({ ...v, mode: 'diff', compareRanges: { a: early, b: late } });
    expect(r.mode).toBe('diff');
    const a = r.analysis!;
    const meta = a.profile.meta;
    expect([meta.fileName, meta.timeRange]).toEqual(['threads.data', late]);
    expect([a.diff!.baseMeta.fileName, a.diff!.baseMeta.timeRange]).toEqual(['threads.data', early]);
    const count = (label: string) => samplesIn(oracle(`threads.range-${label}.perf.txt`), 'cpu-clock');
    expect(a.diff!.baseMeta.totalSamples).toBe(count('early'));
    expect(a.diff!.compFunctions.self.reduce((x, y) => x + y, 0)).toBe(count('late'));
    // the comparison's folded text (BASE NEW per stack): each column is its range's perf text
    const parts: string[] = [];
    s.writeFolded([], (t) => parts.push(t));
    const lines = parts.join('').trim().split('\n');
    const column = (k: number) =>
      lines
        .map((l) => {
          const f = l.split(' ');
          return `${f.slice(0, -2).join(' ')} ${f[f.length - 2 + k]}`;
        })
        .filter((l) => !l.endsWith(' 0'))
        .join('\n');
    for (const [k, label] of [
      [0, 'early'],
      [1, 'late'],
    ] as const) {
      const [ok, line] = perfRef(oracle(`threads.range-${label}.perf.txt`), column(k));
      expect(ok, `${label}: ${line}`).toBe(true);
    }
  });
});

describe('the timeline of perf.data', () => {
  it('a track per thread, its samples per bucket summing to perf script fields, CPUs as perf says', async () => {
    const { r } = await session('threads');
    const t = r.derived?.timeline as TimelineResult;
    if (t.none !== undefined) throw new Error(t.none);
    const fields = fieldLines('threads');
    const byThread = new Map<string, { n: number; comm: Map<string, number> }>();
    for (const l of fields) {
      const k = `${l.pid}/${l.tid}`;
      const e = byThread.get(k) ?? { n: 0, comm: new Map() };
      e.n++;
      e.comm.set(l.comm, (e.comm.get(l.comm) ?? 0) + 1);
      byThread.set(k, e);
    }
    expect(t.tracks.map((k) => `${k.pid}/${k.tid}`)).toEqual([...byThread.keys()].sort());
    for (const [k, track] of t.tracks.entries()) {
      const want = byThread.get(`${track.pid}/${track.tid}`)!;
      const top = [...want.comm].sort((x, y) => y[1] - x[1])[0][0];
      expect([track.name, track.samples]).toEqual([top, want.n]);
      const row = t.samples.subarray(k * t.buckets, (k + 1) * t.buckets);
      expect(row.reduce((x, y) => x + y, 0)).toBe(want.n);
    }
    expect(t.cpus).toEqual([...new Set(fields.map((l) => String(l.cpu)))].sort());
    expect([t.first, t.last]).toEqual([0, t.end]);
    const first = fields.reduce((m, l) => (l.time < m ? l.time : m), fields[0].time);
    const last = fields.reduce((m, l) => (l.time > m ? l.time : m), fields[0].time);
    expect(t.last).toBe(Number(last - first));
  });

  it('hover: the sample of a thread at a moment, with its stack as the view shows it', async () => {
    const { s, r } = await session('threads');
    const t = r.derived?.timeline as TimelineResult;
    if (t.none !== undefined) throw new Error(t.none);
    const fields = fieldLines('threads');
    const first = fields.reduce((m, l) => (l.time < m ? l.time : m), fields[0].time);
    const k = t.tracks.findIndex((x) => x.name === 'hasher');
    const line = fields.find((l) => l.comm === 'hasher')!;
    const at = s.sampleAt(k, Number(line.time - first) + 1000, 5000)!;
    expect(at.time).toBe(Number(line.time - first));
    expect(at.comm).toBe('hasher');
    expect(at.cpu).toBe(String(line.cpu));
    // perf script's stack of that sample, root first
    const text = oracle('threads.perf.txt');
    const stamp = `${line.time / 1_000_000_000n}.${String(line.time % 1_000_000_000n)
      .padStart(9, '0')
      .slice(0, 6)}:`;
    const block = text.split('\n\n').find((b) => b.split('\n')[0].includes(stamp))!;
    const perfFrames = block
      .split('\n')
      .slice(1)
      .map((l) => /^\s+[0-9a-f]+ (.*?)(\+0x[0-9a-f]+)? \(/.exec(l)![1])
      .reverse();
    expect(at.names).toEqual(perfFrames);
    expect(s.sampleAt(k, -1e9, 1000)).toBeNull();
  });

  it('the flame chart of a thread: boxes of its frames in time order', async () => {
    const { s, r } = await session('threads');
    const t = r.derived?.timeline as TimelineResult;
    if (t.none !== undefined) throw new Error(t.none);
    const k = t.tracks.findIndex((x) => x.name === 'hasher');
    const c = s.flameChart({ track: k, start: t.first, end: t.last, width: 1000 });
    expect(c.count).toBeGreaterThan(0);
    // every root box is the thread's outermost frame, start_thread (or clone3 above it)
    const roots = new Set<string>();
    for (let i = 0; i < c.count; i++) if (c.depth[i] === 0) roots.add(c.names[c.frame[i]]);
    expect([...roots].every((n) => /clone|start_thread/.test(n))).toBe(true);
    for (let i = 0; i < c.count; i++) expect(c.end[i]).toBeGreaterThan(c.start[i]);
    expect(c.names).toContain('mix');
  });

  it('a profile without time stamps says so where the timeline would be', async () => {
    const s = new AnalysisSession();
    const r = await s.add(
      [{ name: 'threads.folded', bytes: new TextEncoder().encode('main;a 3\nmain;b 2\n') }],
      workerViewOf(DEFAULT_VIEW),
    );
    expect(r.derived?.timeline).toEqual({ none: 'this profile has no time stamps' });
    expect(() => s.flameChart({ track: 0, start: 0, end: 1, width: 10 })).toThrow(/no time stamps/);
    expect(s.sampleAt(0, 0, 10)).toBeNull();
    // a range asked of it leaves no sample, and says why
    const ranged = await s.apply({ ...workerViewOf(DEFAULT_VIEW), range: { start: 0, end: 10 } });
    expect(ranged.analysis!.profile.meta.totalSamples).toBe(0);
    expect(ranged.analysis!.profile.meta.warnings.map((w) => w.message)).toContain(
      'no range of time: this profile has no time stamps',
    );
  });
});

describe('perf script text has the same times', () => {
  it('ranges of threads.perf.txt (microsecond stamps) equal perf script --time', async () => {
    const s = new AnalysisSession();
    const v = { ...workerViewOf(DEFAULT_VIEW), sampleType: 'samples' };
    const r = await s.add(
      [
        ...symbolFiles(),
        { name: 'threads.perf.txt', bytes: new TextEncoder().encode(oracle('threads.perf.txt')) },
      ],
      v,
    );
    const t = r.derived?.timeline as TimelineResult;
    if (t.none !== undefined) throw new Error(t.none);
    expect(t.tracks.map((k) => k.tid)).toEqual(['2462', '2472', '2473', '2474']);
    expect(t.cpus).toEqual(['0', '1']);
    for (const range of ranges('threads')) {
      // perf script printed microseconds: the range's ends to the microsecond below
      const us = (x: number) => Math.floor(x / 1000) * 1000;
      const first = nsOf(oracle('threads.time.txt').split('\n')[0].split(' ')[1]);
      const shift = Number(first % 1000n); // our 0 is the first sample's printed microsecond
      await s.apply({ ...v, range: { start: us(range.start + shift), end: us(range.end + shift) } });
      const perfText = oracle(`threads.range-${range.label}.perf.txt`);
      const [ok, line] = perfRef(perfText, shownFolded(s));
      expect(ok, `${range.label}: ${line}`).toBe(true);
      expect(s.folded().meta.totalSamples).toBe(fieldLines('threads').length);
      expect(s.sampleCount()).toBe(samplesIn(perfText, 'cpu-clock'));
    }
  });
});
