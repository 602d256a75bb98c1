// perf.data: real recordings from test/fixtures/perf-data (perf 6.1, recorded by
// make_perf_data_fixtures.sh) read and checked against what perf itself says of the same files:
// each sample's comm, pid, tid, cpu, time, period and event (perf script -F), the records in file
// order (perf script -D), the header (perf report --header-only), the lost samples (perf report).
// The folded stacks and the top functions against perf script and perf report: test/perf-data.test.ts.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import {
  fieldLines,
  headerFacts,
  lostSamples,
  oracle,
  PERF_DATA,
  RECORDINGS,
  type Recording,
  recording,
  recordList,
  SYSTEM_WIDE,
} from '../../../test/helpers/perf-oracles.ts';
import { toBigEndian } from '../../../test/helpers/perfdata-be.ts';
import { errorOf } from '../../../test/helpers/raw.ts';
import { withSampleType } from '../model/sample-types.ts';
import { looksLikeKallsyms, parseKallsyms } from '../symbols/kallsyms.ts';
import { symbolizerFromFiles } from '../symbols/symbolize.ts';
import type { RawProfile } from '../types.ts';
import { detectFormat, maybeGunzip, parseProfile } from './detect.ts';
import { looksLikePerfData, parsePerfData } from './perfdata.ts';
import { parseSnapshot, writeSnapshot } from './snapshot.ts';

const parsed = new Map<string, RawProfile>();
function raw(name: Recording | 'spin.truncated'): RawProfile {
  let r = parsed.get(name);
  if (r === undefined) parsed.set(name, (r = parseProfile(recording(name))));
  return r;
}

const stringLabel = (r: RawProfile, key: string): (string | undefined)[] => {
  const l = r.labels?.find((x) => x.key === key);
  if (l === undefined) return [];
  if (l.kind !== 'string') throw new Error(`${key} is a string label`);
  return Array.from(l.value, (v) => (v < 0 ? undefined : r.strings[v]));
};

/** The earliest sample's time stamp in ns, from the metadata (`S.NNNNNNNNN s`). */
function firstSampleNs(r: RawProfile): bigint {
  const m = /^(\d+)\.(\d{9}) s$/.exec(r.meta.extra?.['first sample'] ?? '');
  if (m === null) throw new Error('no first sample time');
  return BigInt(m[1]) * 1000000000n + BigInt(m[2]);
}

/** Each sample's fields as perf script prints them, ours in time order (stable), as perf sorts them. */
function ourFields(r: RawProfile) {
  const n = r.samples.count;
  const comm = stringLabel(r, 'comm');
  const pid = stringLabel(r, 'pid');
  const tid = stringLabel(r, 'tid');
  const cpu = stringLabel(r, 'cpu');
  const event = stringLabel(r, 'event');
  const time = r.samples.time!;
  const base = firstSampleNs(r);
  const types = r.sampleTypes!.map((t) => t.type);
  const rows = Array.from({ length: n }, (_, s) => {
    const column = types.indexOf(event[s]!);
    const row = {
      comm: comm[s],
      pid: Number(pid[s]),
      tid: Number(tid[s]),
      time: base + BigInt(time[s]),
      period: r.samples.values![column][s],
      event: event[s],
    };
    return cpu.length > 0 ? { ...row, cpu: Number(cpu[s]) } : row;
  });
  return rows
    .map((row, s) => ({ row, s }))
    .sort((a, b) => (a.row.time < b.row.time ? -1 : a.row.time > b.row.time ? 1 : a.s - b.s))
    .map((x) => x.row);
}

describe('perf.data sniffing', () => {
  it('recognises every recording, gzipped or not, in both byte orders and in pipe mode', () => {
    for (const name of RECORDINGS) expect(detectFormat(recording(name)), name).toBe('perf-data');
    expect(detectFormat(recording('spin.truncated'))).toBe('perf-data');
  });

  it('claims no other text: perf script output and kallsyms are not perf.data', () => {
    const enc = new TextEncoder();
    expect(looksLikePerfData(enc.encode(oracle('spin.perf.txt')))).toBe(false);
    expect(looksLikePerfData(enc.encode(oracle('kallsyms.txt')))).toBe(false);
    expect(detectFormat(enc.encode(oracle('kallsyms.txt')))).toBeNull();
    expect(looksLikePerfData(enc.encode('PERFILE'))).toBe(false);
  });

  it('says why for perf.data version 1 and for a header it cannot read', () => {
    const v1 = new Uint8Array(64);
    v1.set(new TextEncoder().encode('PERFFILE'));
    expect(errorOf(() => parsePerfData(v1)).message).toMatch(/version 1 \(PERFFILE.*not read/);
    const odd = recording('spin').slice(0, 104);
    new DataView(odd.buffer).setUint32(8, 200, true);
    const e = errorOf(() => parsePerfData(odd));
    expect(e.describe()).toMatch(/header of 200 bytes .*\(at byte 8\)/);
  });
});

describe('perf.data samples against perf script', () => {
  for (const name of RECORDINGS) {
    it(`${name}: each sample's comm, pid, tid, cpu, time, period and event equal perf script's`, () => {
      const r = raw(name);
      const perf = fieldLines(name);
      expect(r.samples.count).toBe(perf.length);
      expect(ourFields(r)).toEqual(perf);
    });
  }

  for (const name of RECORDINGS) {
    it(`${name}: reads every record perf reads`, () => {
      const r = raw(name);
      expect(r.meta.extra?.records).toBe(String(recordList(name).length));
      expect(r.meta.extra?.samples).toBe(String(recordList(name).filter((x) => x.type === 9).length));
    });
  }

  it('stacks are the call chains, leaf first, kernel frames before user frames, no context markers', () => {
    const r = raw('syscalls');
    const { stackStart, stackLocs } = r.samples;
    const { addrHi } = r.locations;
    let mixed = 0;
    for (let s = 0; s < r.samples.count; s++) {
      const kernel = Array.from(
        stackLocs.subarray(stackStart[s], stackStart[s + 1]),
        (l) => addrHi[l] >= 0xffff8000,
      );
      // markers (0xffffffff_fffff001 and up) are gone
      for (let p = stackStart[s]; p < stackStart[s + 1]; p++)
        expect(r.locations.addrLo[stackLocs[p]] < 0xfffff001 || addrHi[stackLocs[p]] !== 0xffffffff).toBe(
          true,
        );
      // once a user frame, never a kernel one again
      expect(kernel.indexOf(false) < 0 || kernel.slice(kernel.indexOf(false)).every((k) => !k)).toBe(true);
      if (kernel[0] && kernel.includes(false)) mixed++;
    }
    expect(mixed).toBeGreaterThan(r.samples.count / 2);
    expect(r.adjustCallers).toBe(false);
  });
});

describe('perf.data header and attributes against perf report --header-only', () => {
  for (const name of ['spin', 'threads.pipe', 'syscalls', 'spin.be'] as const) {
    it(`${name}: host, OS, perf, CPUs, memory, command line and events`, () => {
      const r = raw(name);
      const h = headerFacts(name);
      const x = r.meta.extra!;
      expect(x.hostname).toBe(h.get('hostname'));
      expect(x['os release']).toBe(h.get('os release'));
      expect(x['perf version']).toBe(h.get('perf version'));
      expect(x.arch).toBe(h.get('arch'));
      expect(x.cpus).toBe(`${h.get('nrcpus online')} online, ${h.get('nrcpus avail')} available`);
      expect(x.cpu).toBe(`${h.get('cpudesc')} (${h.get('cpuid')})`);
      expect(x.memory).toBe(h.get('total memory'));
      expect(x['command line']).toBe(h.get('cmdline'));
      const events = [...oracle(`${name}.header.txt`).matchAll(/^# event : name = ([^,]+),/gm)].map(
        (m) => m[1],
      );
      expect(r.sampleTypes!.map((t) => t.type)).toEqual([...events, 'samples']);
      expect(x.mode).toBe(name === 'threads.pipe' ? 'pipe (perf record -o -)' : 'file');
      expect(r.meta.byteOrder).toBe(name === 'spin.be' ? 'big' : 'little');
      if (h.get('time of first sample') !== '0.000000') {
        // perf's own time of the first sample (µs; pipe mode and --buildid-mmap have none) agrees with ours
        const first = firstSampleNs(r);
        expect(`${first / 1000000000n}.${((first % 1000000000n) / 1000n).toString().padStart(6, '0')}`).toBe(
          h.get('time of first sample'),
        );
      }
    });
  }

  it('two events: a value column each (nanoseconds for the clocks), then the sample count; samples told apart by id', () => {
    const r = raw('two-events');
    expect(r.sampleTypes).toEqual([
      { type: 'cpu-clock', unit: 'nanoseconds' },
      { type: 'task-clock', unit: 'nanoseconds' },
      { type: 'samples', unit: 'count' },
    ]);
    expect(r.defaultSampleType).toBe(0);
    expect(r.samples.weight).toBe(r.samples.values![0]);
    const perf = fieldLines('two-events');
    const event = stringLabel(r, 'event');
    for (const e of ['cpu-clock', 'task-clock']) {
      const count = event.filter((x) => x === e).length;
      expect(count).toBe(perf.filter((l) => l.event === e).length);
      // a sample of one event has no value in the other's column
      const col = r.samples.values![e === 'cpu-clock' ? 0 : 1];
      expect(event.filter((x, s) => x !== e && col[s] !== 0)).toEqual([]);
    }
    // ns of cpu-clock → µs
    expect(r.meta.periodUs).toBe(0.001);
    expect(r.meta.extra?.events).toMatch(
      /^cpu-clock \(499 Hz, IP\|TID\|TIME\|CALLCHAIN\|ID\|PERIOD\): \d+ samples; task-clock/,
    );
  });

  it('threads: labels comm, pid, tid, cpu, event; the renamed threads under their own names', () => {
    const r = raw('threads');
    expect(r.labels!.map((l) => l.key)).toEqual(['comm', 'pid', 'tid', 'cpu', 'event']);
    expect(new Set(stringLabel(r, 'comm'))).toEqual(new Set(fieldLines('threads').map((l) => l.comm)));
    expect(new Set(stringLabel(r, 'comm'))).toContain('hasher');
    expect(new Set(stringLabel(r, 'tid')).size).toBe(4);
    expect(r.meta.extra?.threads).toBe('4 in 1 processes');
    // no cpu label where the samples have none
    expect(raw('spin').labels!.map((l) => l.key)).toEqual(['comm', 'pid', 'tid', 'event']);
  });

  it('a system-wide recording (perf record -a): the idle task (pid 0, no COMM record) is swapper, as perf names it', () => {
    const r = parseProfile(new Uint8Array(readFileSync(`${PERF_DATA}${SYSTEM_WIDE}.data.gz`)));
    const perf = fieldLines(SYSTEM_WIDE);
    expect(perf.filter((l) => l.tid === 0).length).toBeGreaterThan(0);
    expect(perf.filter((l) => l.tid !== 0).length).toBeGreaterThan(0);
    expect(ourFields(r)).toEqual(perf);
    expect(new Set(stringLabel(r, 'comm'))).toContain('swapper');
  });

  it('mappings: per executable mapping, the kernel at its run-time addresses, build-ids from the header', () => {
    const r = raw('spin');
    const paths = r.meta.mappings.map((m) => m.path.replace(/.*\//, ''));
    expect(paths).toEqual(
      expect.arrayContaining(['[kernel.kallsyms]', 'spin', 'libc.so.6', 'ld-linux-x86-64.so.2']),
    );
    const kernel = r.meta.mappings.find((m) => m.path === '[kernel.kallsyms]')!;
    expect(kernel.linkTimeAddresses).toBe(true);
    const spin = r.meta.mappings.find((m) => m.path.endsWith('/spin'))!;
    const bin = new Uint8Array(readFileSync(`${PERF_DATA}bin/spin`));
    const { report } = symbolizerFromFiles(r.meta.mappings, [{ name: 'spin', bytes: bin }]);
    expect(spin.buildId).toMatch(/^[0-9a-f]{40}$/);
    expect(report.matched).toEqual([{ mappingPath: spin.path, elfFile: 'spin', by: 'build-id' }]);
  });

  it('MMAP2 records with build-ids (perf record --buildid-mmap): every mapping has its build-id', () => {
    const r = raw('syscalls');
    for (const m of r.meta.mappings)
      if (m.path !== '[vdso]') expect(m.buildId, m.path).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('perf.data damage, losses and what is not read', () => {
  it('a truncated file keeps every complete record and says where it ends', () => {
    const full = raw('spin');
    const cut = raw('spin.truncated');
    const size = recording('spin.truncated').length;
    const records = recordList('spin');
    const k = records.findIndex((x) => x.offset + x.size > size);
    const kept = records.slice(0, k);
    expect(cut.meta.extra?.records).toBe(String(kept.length));
    expect(cut.samples.count).toBe(kept.filter((x) => x.type === 9).length);
    const w = cut.warnings.find((x) => /ends inside a record/.test(x.message))!;
    expect(w.offset).toBe(records[k].offset);
    expect(w.message).toContain(`at byte ${records[k].offset}`);
    expect(cut.warnings.some((x) => /feature sections .* missing/.test(x.message))).toBe(true);
    // the samples kept are the full file's first ones, frame for frame
    const stack = (r: RawProfile, s: number) =>
      Array.from(r.samples.stackLocs.subarray(r.samples.stackStart[s], r.samples.stackStart[s + 1]), (l) =>
        [r.locations.addrHi[l], r.locations.addrLo[l]].join(':'),
      );
    for (let s = 0; s < cut.samples.count; s++) expect(stack(cut, s)).toEqual(stack(full, s));
  });

  it('LOST records are counted and said, as perf report counts them', () => {
    const r = raw('lost');
    const lost = lostSamples('lost');
    const records = recordList('lost').filter((x) => x.type === 2).length;
    expect(lost).toBeGreaterThan(0);
    expect(r.meta.extra?.['lost samples']).toBe(String(lost));
    expect(r.warnings.map((w) => w.message)).toContain(
      `${lost} samples were lost (${records} LOST records: perf's ring buffer overflowed; record with a larger buffer, -m, or a lower frequency, -F)`,
    );
  });

  it('--call-graph dwarf: says the stacks are not unwound and keeps each sample its leaf frame', () => {
    const r = raw('dwarf');
    expect(r.warnings.map((w) => w.message).join('\n')).toMatch(
      /--call-graph dwarf \(cpu-clock\): .* to unwind, which this reader does not do; each sample shows its leaf frame/,
    );
    const { stackStart } = r.samples;
    for (let s = 0; s < r.samples.count; s++) expect(stackStart[s + 1] - stackStart[s]).toBeGreaterThan(0);
  });

  it('an unknown record type is skipped by its size; a record too short to skip ends the read', () => {
    const records = recordList('spin');
    const samples = records.filter((x) => x.type === 9);
    const b = recording('spin').slice();
    new DataView(b.buffer).setUint32(samples[0].offset, 99, true);
    const r = parsePerfData(b);
    expect(r.samples.count).toBe(samples.length - 1);
    expect(r.meta.extra?.['records not read']).toBe('type 99 × 1');
    const c = recording('spin').slice();
    new DataView(c.buffer).setUint16(samples[20].offset + 6, 4, true);
    const cut = parsePerfData(c);
    const w = cut.warnings.find((x) => /a record of 4 bytes/.test(x.message))!;
    expect(w.offset).toBe(samples[20].offset);
    expect(cut.samples.count).toBe(20);
  });

  it('a damaged sample is skipped with its offset; the others are kept', () => {
    const b = recording('spin').slice();
    const dv = new DataView(b.buffer);
    const sample = recordList('spin').filter((x) => x.type === 9)[3];
    // IP, TID, TIME, PERIOD, then the chain's length: a chain longer than the record
    dv.setUint32(sample.offset + 8 + 32, 0xffff, true);
    const r = parsePerfData(b);
    expect(r.samples.count).toBe(raw('spin').samples.count - 1);
    const w = r.warnings.find((x) =>
      /call chain of 65535 entries overruns it: record skipped/.test(x.message),
    )!;
    expect(w.offset).toBe(sample.offset);
  });

  it('sample_type bits of a later kernel are said, and the samples are read as before (their fields come last)', () => {
    const b = recording('spin').slice();
    // bit 40 of the attribute's sample_type (the attribute table's offset is at byte 24): unknown
    const attrs = Number(new DataView(b.buffer).getBigUint64(24, true));
    new DataView(b.buffer).setUint32(attrs + 24 + 4, 1 << 8, true);
    const r = parsePerfData(b);
    expect(r.samples).toEqual(raw('spin').samples);
    expect(r.warnings.map((w) => w.message)).toContain(
      'cpu-clock: sample_type bits 0x10000000000 are unknown here; their fields come after those read, so they are skipped',
    );
  });

  it('a file with no samples is an error that says so', () => {
    const b = recording('spin').slice();
    const dv = new DataView(b.buffer);
    for (const x of recordList('spin')) if (x.type === 9) dv.setUint32(x.offset, 9999, true);
    expect(errorOf(() => parsePerfData(b)).message).toMatch(/^perf\.data has no samples \(\d+ records\)$/);
  });
});

describe('perf.data byte orders and times', () => {
  it('a big-endian file reads as its little-endian original', () => {
    const le = raw('spin');
    const be = raw('spin.be');
    expect(be.meta.byteOrder).toBe('big');
    expect(be.samples).toEqual(le.samples);
    expect(be.locations).toEqual(le.locations);
    expect(be.labels).toEqual(le.labels);
    expect(be.meta.mappings).toEqual(le.meta.mappings);
    expect(be.sampleTypes).toEqual(le.sampleTypes);
    // the converter that made it is the test helper's, byte for byte
    expect(toBigEndian(recording('spin'))).toEqual(recording('spin.be'));
  });

  it('sample times: ns since the earliest sample, exact (perf script --ns)', () => {
    const r = raw('threads');
    const time = r.samples.time!;
    expect(Math.min(...time)).toBe(0);
    const perf = fieldLines('threads');
    const span = perf[perf.length - 1].time - perf[0].time;
    expect(r.meta.durationNs).toBe(Number(span));
    expect(r.meta.extra?.duration).toBe(`${(Number(span) / 1e6).toFixed(3)} ms`);
  });

  it('the time column survives a snapshot and a change of sample type', () => {
    const r = raw('two-events');
    const back = parseSnapshot(gunzipSync(writeSnapshot(r)));
    expect(back.samples.time).toEqual(r.samples.time);
    expect(back.format).toBe('perf-data');
    expect(withSampleType(r, 1).samples.time).toBe(r.samples.time);
  });
});

describe('/proc/kallsyms', () => {
  const text = new TextEncoder().encode(oracle('kallsyms.txt'));

  it('is recognised by its content, and nm listings and profiles are not', () => {
    expect(looksLikeKallsyms(text)).toBe(true);
    expect(
      looksLikeKallsyms(new TextEncoder().encode('0000000000001139 T main\n0000000000001000 t _init\n')),
    ).toBe(false);
    expect(looksLikeKallsyms(maybeGunzip(recording('spin')))).toBe(false);
  });

  it('keeps code symbols, the last listed at an address (as perf), module names', () => {
    const k = parseKallsyms(
      new TextEncoder().encode(
        [
          'ffffffff81000000 T _stext',
          'ffffffff81000000 T _text',
          'ffffffff81379d40 t __do_sys_getppid',
          'ffffffff81379d40 T __ia32_sys_getppid',
          'ffffffff81379d40 T __x64_sys_getppid',
          'ffffffff81379d80 D some_data',
          'ffffffff81379d90 t next_function',
          'ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]',
        ].join('\n'),
      ),
      'kallsyms',
    );
    expect(k.symbols.names).toEqual(['_text', '__x64_sys_getppid', 'next_function', 'ftrace_trampoline']);
    expect(k.modules).toEqual(['__builtin__ftrace']);
    // a symbol ends where the next code symbol begins (data symbols are not code)
    const at = (a: bigint) => k.symbols.lookup(Number(a >> 32n), Number(a & 0xffffffffn));
    expect(k.symbols.names[at(0xffffffff81379d8fn)]).toBe('__x64_sys_getppid');
  });

  it('read without permission (every address 0) is an error that says how to read it', () => {
    const zero = new TextEncoder().encode(
      '0000000000000000 T _stext\n0000000000000000 T _text\n0000000000000000 t foo\n',
    );
    expect(looksLikeKallsyms(zero)).toBe(true);
    const { errors } = symbolizerFromFiles([], [{ name: 'kallsyms', bytes: zero }]);
    expect(errors[0].message).toMatch(
      /kallsyms: every kernel symbol's address is 0.*as root.*kptr_restrict=0/,
    );
  });

  it("names a kernel module's frames too, from its `[module]` lines", () => {
    const k = new TextEncoder().encode(
      [
        'ffffffff81000000 T _stext',
        'ffffffff81000100 T start_kernel',
        'ffffffffc0a00000 t ext4_map_blocks\t[ext4]',
        'ffffffffc0a00400 t ext4_iget\t[ext4]',
      ].join('\n'),
    );
    const kernel = {
      start: 0xffffffffc0a00000n,
      end: 0xffffffffc0a10000n,
      offset: 0n,
      linkTimeAddresses: true,
    };
    for (const path of ['/lib/modules/6.1.0/kernel/fs/ext4/ext4.ko.xz', '[ext4]']) {
      const { symbolizer, report } = symbolizerFromFiles(
        [{ ...kernel, path }],
        [{ name: 'kallsyms', bytes: k }],
      );
      expect(report.matched.map((x) => x.by)).toEqual(['kallsyms']);
      expect(symbolizer.lookup(0xffffffff, 0xc0a00410)).toEqual(['ext4_iget']);
    }
    // a user-space pseudo-file is not the kernel's
    const vdso = { start: 0x7f0000000000n, end: 0x7f0000002000n, offset: 0n, path: '[vdso]' };
    expect(symbolizerFromFiles([vdso], [{ name: 'kallsyms', bytes: k }]).report.matched).toEqual([]);
  });

  it('names kernel frames in [kernel.kallsyms], and only there', () => {
    const r = raw('syscalls');
    const { symbolizer, report } = symbolizerFromFiles(r.meta.mappings, [
      { name: 'kallsyms.txt', bytes: text },
    ]);
    expect(report.matched).toEqual([
      { mappingPath: '[kernel.kallsyms]', elfFile: 'kallsyms.txt', by: 'kallsyms' },
    ]);
    const perf = oracle('syscalls.perf.txt');
    const m = /^\s+(ffffffff[0-9a-f]{8}) (\S+)\+0x[0-9a-f]+ \(\[kernel\.kallsyms\]\)$/m.exec(perf)!;
    const a = BigInt(`0x${m[1]}`);
    expect(symbolizer.lookup(Number(a >> 32n), Number(a & 0xffffffffn))).toEqual([m[2]]);
  });
});
