// perf.data recordings (test/fixtures/perf-data) through the whole pipeline and the CLI, with the
// programs, the C library and the loader (with their debug files) and the kernel's kallsyms lines
// dropped for symbols, against perf's own outputs of the same files:
//  1. the folded stacks equal `perf script`'s collapsed by test/checks/perf_ref.py (a copy of the
//     shared check: stackcollapse-perf's semantics, one count per sample): the check passes (99 %);
//  2. the top 10 functions by self equal `perf report --no-children --stdio`'s (its lines summed
//     over commands and objects, each rounded to 0.01 %).
// Needs python3.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { toFoldedText } from '../src/core/model/serialize.ts';
import { runPipeline } from '../src/core/pipeline.ts';
import { frameName } from '../src/core/text/frame-text.ts';
import type { LabelFilter } from '../src/core/types.ts';
import { runCli } from './helpers/cli.ts';
import {
  fieldLines,
  oracle,
  PERF_DATA,
  RECORDINGS,
  type Recording,
  recording,
  recordingPath,
  reportEntries,
  SYSTEM_WIDE,
  symbolArgs,
  symbolFiles,
} from './helpers/perf-oracles.ts';

const PERF_REF = fileURLToPath(new URL('./checks/perf_ref.py', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'flamelens-perfdata-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** perf_ref.py's verdict on folded text against NAME.perf.txt: [passed, its line]. */
function perfRef(
  name: Recording,
  folded: string,
  event?: string,
  env: Record<string, string> = {},
): [boolean, string] {
  const txt = join(tmp, `${name}.perf.txt`);
  writeFileSync(txt, oracle(`${name}.perf.txt`));
  const ours = join(tmp, `${name}.${event ?? 'all'}.folded`);
  writeFileSync(ours, folded);
  const r = spawnSync('python3', [PERF_REF, 'compare', txt, ours], {
    encoding: 'utf8',
    env: { ...process.env, ...(event && { PERF_REF_EVENT: event }), ...env },
  });
  return [r.status === 0, `${r.stdout}${r.stderr}`.trim()];
}

/** The events of a recording, as perf report names them. */
const eventsOf = (name: Recording) => [...reportEntries(name).keys()];

const FOLDED = RECORDINGS.filter((n) => n !== 'dwarf');

describe('perf.data folded stacks equal perf script collapsed (perf_ref.py)', () => {
  const files = symbolFiles();
  for (const name of FOLDED) {
    for (const event of eventsOf(name)) {
      const several = eventsOf(name).length > 1;
      const filters: LabelFilter[] = several ? [{ key: 'event', op: 'focus', values: [event] }] : [];
      it(`${name}${several ? ` (${event})` : ''}: through the pipeline`, async () => {
        const { base } = await runPipeline(recording(name), name, {
          symbolFiles: files,
          sampleType: 'samples',
          labelFilters: filters,
        });
        const [ok, line] = perfRef(name, toFoldedText(base), several ? event : undefined);
        expect(ok, line).toBe(true);
      });
      it(`${name}${several ? ` (${event})` : ''}: through the CLI`, async () => {
        const r = await runCli([
          'fold',
          recordingPath(name),
          ...symbolArgs(),
          '--sample-type',
          'samples',
          ...(several ? ['--tagfocus', `event=${event}`] : []),
        ]);
        expect(r.code).toBe(0);
        const [ok, line] = perfRef(name, r.out, several ? event : undefined);
        expect(ok, line).toBe(true);
      });
    }
  }
});

describe('perf.data without kallsyms', () => {
  it('kernel code is one frame, [kernel.kallsyms], at function level (perf_ref.py, kernel as one frame)', async () => {
    const files = symbolFiles().filter((f) => f.name !== 'kallsyms.txt');
    const { base } = await runPipeline(recording('syscalls'), 'syscalls', {
      symbolFiles: files,
      sampleType: 'samples',
    });
    const folded = toFoldedText(base);
    expect(folded).toMatch(/;sys4;\[kernel\.kallsyms\];\[kernel\.kallsyms\]/);
    const [ok, line] = perfRef('syscalls', folded, undefined, { PERF_REF_KERNEL: 'module' });
    expect(ok, line).toBe(true);
  });
});

describe("perf.data and perf script's text of it give the same user frames", () => {
  it('the user IP where the kernel was entered is looked up as it is in both (syscalls, at address granularity)', async () => {
    const files = symbolFiles().filter((f) => f.name !== 'kallsyms.txt');
    /** Each stack's user part (root first, up to its first kernel frame), at address granularity. */
    const userParts = async (bytes: Uint8Array, name: string) => {
      const { base } = await runPipeline(bytes, name, {
        symbolFiles: files,
        sampleType: 'samples',
        granularity: 'addresses',
      });
      const { frames, modules, stacks } = base;
      const parts = new Map<string, number>();
      for (let s = 0; s < stacks.count; s++) {
        const names: string[] = [];
        for (let i = stacks.start[s]; i < stacks.start[s + 1]; i++) {
          const f = stacks.frames[i];
          const m = frames.module[f];
          if (m < 0 || modules[m] === '[kernel.kallsyms]') break;
          names.push(frameName(frames, f));
        }
        const key = names.join(';');
        parts.set(key, (parts.get(key) ?? 0) + stacks.weight[s]);
      }
      return parts;
    };
    const data = await userParts(recording('syscalls'), 'syscalls.data');
    const text = await userParts(new TextEncoder().encode(oracle('syscalls.perf.txt')), 'syscalls.perf.txt');
    // the system calls' user frames: sys4 at the instruction after its syscall
    expect([...data.keys()].some((k) => /;sys4\+0x[0-9a-f]+$/.test(k))).toBe(true);
    expect(text).toEqual(data);
  });
});

describe('perf.data through flamelens list: values in the sample type unit, as pprof -list prints them', () => {
  it("threads: Total, mix's flat and cum are perf script's periods summed, in ms (not raw nanoseconds)", async () => {
    const fields = fieldLines('threads');
    const blocks = oracle('threads.perf.txt')
      .split('\n\n')
      .filter((b) => b.trim() !== '');
    expect(blocks.length).toBe(fields.length);
    const symbols = blocks.map((b) =>
      b
        .split('\n')
        .slice(1)
        .map((l) => /^\s+[0-9a-f]+ (\S+?)(\+0x[0-9a-f]+)? \(/.exec(l)?.[1]),
    );
    let total = 0;
    let flat = 0;
    let cum = 0;
    fields.forEach((f, i) => {
      total += f.period;
      if (symbols[i][0] === 'mix') flat += f.period;
      if (symbols[i].includes('mix')) cum += f.period;
    });
    expect(flat).toBeGreaterThan(0);
    const r = await runCli([
      'list',
      '^mix$',
      recordingPath('threads'),
      '--binary',
      `${PERF_DATA}bin/threads`,
    ]);
    expect(r.code).toBe(0);
    const NS: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };
    /** A label's value in ns, and half its last digit's worth (pprof prints two decimals at most). */
    const ns = (label: string): [number, number] => {
      const m = /^([\d.]+)(ns|us|ms|s)$/.exec(label);
      expect(m, label).not.toBeNull();
      return [Number(m![1]) * NS[m![2]], 0.005 * NS[m![2]]];
    };
    const near = (label: string, want: number) => {
      const [v, tolerance] = ns(label);
      expect(Math.abs(v - want), `${label} for ${want} ns`).toBeLessThanOrEqual(tolerance);
    };
    const totalLine = /^Total: (\S+)$/m.exec(r.out);
    expect(totalLine, r.out).not.toBeNull();
    near(totalLine![1], total);
    const head = /^\s+(\S+)\s+(\S+) \(flat, cum\)\s+([\d.]+)% of Total$/m.exec(r.out);
    expect(head, r.out).not.toBeNull();
    near(head![1], flat);
    near(head![2], cum);
    expect(Number(head![3])).toBeCloseTo((100 * cum) / total, 1);
  });
});

describe('perf.data through flamelens dot: the legend names the program, not the kernel', () => {
  it("threads: File and Build ID are bin/threads' (readelf -n), though the kernel's mapping comes first", async () => {
    const notes = spawnSync('readelf', ['-n', `${PERF_DATA}bin/threads`], { encoding: 'utf8' }).stdout;
    const buildId = /Build ID: ([0-9a-f]+)/.exec(notes)![1];
    const r = await runCli(['dot', recordingPath('threads')]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^digraph "threads" \{/);
    expect(r.out).toContain(`label="File: threads\\lBuild ID: ${buildId}\\l`);
  });
});

describe('perf.data: the kernel past its mapping', () => {
  // perf's MMAP of the kernel ends at _etext; the idle task's stacks (perf record -a) begin in the
  // init text after it: common_startup_64 → x86_64_start_kernel → … → start_kernel → rest_init.
  const bytes = new Uint8Array(readFileSync(`${PERF_DATA}${SYSTEM_WIDE}.data.gz`));
  const kallsyms = readFileSync(`${PERF_DATA}${SYSTEM_WIDE}.kallsyms.txt`, 'utf8');
  const idle: LabelFilter[] = [{ key: 'comm', op: 'focus', values: ['swapper'] }];

  it('with kallsyms, the idle stacks are named as perf names them (a return address at a symbol start: its caller, at PC − 1)', async () => {
    const { base } = await runPipeline(bytes, 'system.data.gz', {
      symbolFiles: [{ name: 'system.kallsyms.txt', bytes: new TextEncoder().encode(kallsyms) }],
      sampleType: 'samples',
      labelFilters: idle,
    });
    // the code symbol holding an address, from the kallsyms text itself
    const symbols = kallsyms
      .split('\n')
      .map((l) => l.split(' '))
      .filter((f) => f.length === 3 && /^[tTwW]$/.test(f[1]))
      .map(([a, , name]) => ({ at: BigInt(`0x${a}`), name }))
      .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const holding = (a: bigint) => symbols.filter((x) => x.at <= a).at(-1)!.name;
    const expected = new Map<string, number>();
    for (const block of oracle(`${SYSTEM_WIDE}.perf.txt`).split('\n\n')) {
      if (!/^\s*swapper\s/.test(block)) continue;
      const frames = block
        .split('\n')
        .slice(1)
        .map((l) => /^\s+([0-9a-f]+) (\S+?)\+0x([0-9a-f]+) /.exec(l)!)
        .map((m, i) => (i > 0 && m[3] === '0' ? holding(BigInt(`0x${m[1]}`) - 1n) : m[2]));
      const stack = frames.reverse().join(';');
      expected.set(stack, (expected.get(stack) ?? 0) + 1);
    }
    expect(expected.size).toBeGreaterThan(0);
    expect([...expected.keys()].some((k) => k.includes(';start_kernel;'))).toBe(true);
    const ours = new Map(
      toFoldedText(base)
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))]),
    );
    expect(ours).toEqual(expected);
  });

  it('without kallsyms, its init text is [kernel.kallsyms] like the rest of its code, not 0x… frames', async () => {
    const { base } = await runPipeline(bytes, 'system.data.gz', {
      sampleType: 'samples',
      labelFilters: idle,
    });
    const folded = toFoldedText(base);
    expect(folded).toMatch(/^\[kernel\.kallsyms\](;\[kernel\.kallsyms\])+ \d+$/m);
    expect(folded).not.toMatch(/0xffff/);
  });
});

describe('perf.data top 10 by self equal perf report --no-children', () => {
  const files = symbolFiles();
  for (const name of RECORDINGS) {
    for (const [event, entries] of reportEntries(name)) {
      it(`${name} (${event})`, async () => {
        // functions as perf names them: by their ELF symbols, whole (no inline frames from DWARF)
        const { base, analysis } = await runPipeline(recording(name), name, {
          symbolFiles: files,
          sampleType: event,
          dwarf: false,
          names: 'full',
        });
        // perf's lines, per symbol (perf names code it cannot name by its address: as ours, [object])
        const perf = new Map<string, { pct: number; lines: number }>();
        for (const e of entries) {
          const key = /^0x[0-9a-f]+$/.test(e.symbol) ? `[${e.dso.replace(/.*\//, '')}]` : e.symbol;
          const p = perf.get(key) ?? { pct: 0, lines: 0 };
          perf.set(key, { pct: p.pct + e.pct, lines: p.lines + 1 });
        }
        const total = base.stacks.weight.reduce((a, w) => a + w, 0);
        const ours = new Map<string, number>();
        const { self } = analysis.functions;
        for (let f = 0; f < base.frames.count; f++) {
          if (self[f] === 0) continue;
          const key = frameName(base.frames, f);
          ours.set(key, (ours.get(key) ?? 0) + (100 * self[f]) / total);
        }
        const top = (m: Map<string, number>) =>
          [...m]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 10)
            .map(([k]) => k);
        const perfPct = new Map([...perf].map(([k, v]) => [k, v.pct]));
        const names = new Set([...top(perfPct), ...top(ours)]);
        for (const k of names) {
          // each of perf's lines is rounded to 0.01 %
          const tolerance = 0.005 * (perf.get(k)?.lines ?? 1) + 1e-9;
          expect(Math.abs((ours.get(k) ?? 0) - (perfPct.get(k) ?? 0)), k).toBeLessThanOrEqual(tolerance);
        }
        expect(top(ours).length).toBe(top(perfPct).length);
      });
    }
  }
});

describe('flamelens info on perf.data', () => {
  it("shows the header's facts, the events and the labels", async () => {
    const r = await runCli(['info', recordingPath('threads')]);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.out) as {
      format: string;
      byteOrder: string;
      sampleTypes: { type: string; unit: string }[];
      labels: { key: string }[];
      extra: Record<string, string>;
    };
    expect(info.format).toBe('perf-data');
    expect(info.byteOrder).toBe('little');
    expect(info.sampleTypes).toEqual([
      { type: 'cpu-clock', unit: 'nanoseconds' },
      { type: 'samples', unit: 'count' },
    ]);
    expect(info.labels.map((l) => l.key)).toEqual(['comm', 'pid', 'tid', 'cpu', 'event']);
    const header = oracle('threads.header.txt');
    for (const key of ['hostname', 'os release', 'perf version', 'arch']) {
      expect(header).toContain(`# ${key} : ${info.extra[key]}\n`);
    }
    expect(header).toContain(`# cmdline : ${info.extra['command line']} \n`);
    expect(info.extra.events).toMatch(
      /^cpu-clock \(499 Hz, IP\|TID\|TIME\|CALLCHAIN\|CPU\|PERIOD\): \d+ samples$/,
    );
  });
});
