// The perf.data fixtures (test/fixtures/perf-data, made by src/make_perf_data_fixtures.sh) and the
// outputs perf made of each: perf script's text and per-sample fields, perf report's, the header,
// the records in file order. Parsers of those texts for the tests.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import type { DroppedFile } from '../../src/core/formats/importer.ts';
import { joinBytes } from '../../src/core/formats/text-preview.ts';

export const PERF_DATA = new URL('../fixtures/perf-data/', import.meta.url).pathname;
const SYSROOT = new URL('../fixtures/sysroot/usr/lib/', import.meta.url).pathname;

/** The recordings, by name: NAME.data (or .data.gz). */
export const RECORDINGS = [
  'spin',
  'two-events',
  'threads',
  'threads.pipe',
  'syscalls',
  'procs',
  'lost',
  'dwarf',
  'spin.be',
] as const;
export type Recording = (typeof RECORDINGS)[number];

const GZIPPED = new Set<string>(['lost', 'dwarf']);

/** The path of a recording's file. */
export function recordingPath(name: Recording): string {
  return `${PERF_DATA}${name}.data${GZIPPED.has(name) ? '.gz' : ''}`;
}

/** A recording's bytes as stored (gzipped ones gzipped: the importers look through gzip). */
export function recording(name: Recording | 'spin.truncated'): Uint8Array {
  const file = name === 'spin.truncated' ? `${PERF_DATA}spin.truncated.data` : recordingPath(name);
  return new Uint8Array(readFileSync(file));
}

/** A text fixture, from NAME or NAME.gz. */
export function oracle(file: string): string {
  try {
    return readFileSync(`${PERF_DATA}${file}`, 'utf8');
  } catch {
    return gunzipSync(readFileSync(`${PERF_DATA}${file}.gz`)).toString('utf8');
  }
}

/** One line of `perf script --ns -F comm,pid,tid[,cpu],time,period,event`. */
export interface FieldLine {
  comm: string;
  pid: number;
  tid: number;
  cpu?: number;
  /** Nanoseconds. */
  time: bigint;
  period: number;
  event: string;
}

const FIELDS = /^\s*(.*?)\s+(\d+)\/(\d+)\s+(?:\[(\d+)\]\s+)?(\d+)\.(\d{9}):\s+(\d+)\s+(\S+):\s*$/;

/**
 * A system-wide recording (`perf record -a`, system.data.gz): other processes' samples and the idle
 * task's. Not one of RECORDINGS: its kernel frames are of another boot than kallsyms.txt's, and its
 * programs are not in the fixtures, so only its samples' fields are compared.
 */
export const SYSTEM_WIDE = 'system';

export function fieldLines(name: Recording | typeof SYSTEM_WIDE): FieldLine[] {
  return oracle(`${name}.fields.txt`)
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const m = FIELDS.exec(l);
      if (m === null) throw new Error(`${name}.fields.txt: ${l}`);
      const line: FieldLine = {
        comm: m[1],
        pid: Number(m[2]),
        tid: Number(m[3]),
        time: BigInt(m[5]) * 1000000000n + BigInt(m[6]),
        period: Number(m[7]),
        event: m[8],
      };
      if (m[4] !== undefined) line.cpu = Number(m[4]);
      return line;
    });
}

/** The records perf read, in file order (perf lists them as it processes them). */
export function recordList(name: Recording): { offset: number; size: number; type: number }[] {
  return oracle(`${name}.records.txt`)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [o, s, t] = l.split(' ');
      return { offset: Number(o), size: Number(s), type: Number(t) };
    })
    .sort((a, b) => a.offset - b.offset);
}

/** perf report's top-level entries per event (`Overhead Command Shared-Object [k|.] Symbol`). */
export function reportEntries(name: Recording): Map<string, { pct: number; dso: string; symbol: string }[]> {
  const out = new Map<string, { pct: number; dso: string; symbol: string }[]>();
  let event = '';
  for (const l of oracle(`${name}.report.txt`).split('\n')) {
    const e = /^# Samples: \S+\s+of event '(.*)'$/.exec(l);
    if (e) {
      event = e[1];
      out.set(event, []);
      continue;
    }
    const m = /^\s+(\d+\.\d+)%\s+(.+?)\s+(\S+)\s+\[[.kgujH]\]\s+(.+?)\s*$/.exec(l);
    if (m) out.get(event)?.push({ pct: Number(m[1]), dso: m[3], symbol: m[4] });
  }
  return out;
}

/** `perf report --header-only`'s `# key : value` lines. */
export function headerFacts(name: Recording): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of oracle(`${name}.header.txt`).split('\n')) {
    const m = /^# ([a-z][a-z ]*?)\s*: (.*)$/.exec(l);
    if (m && !out.has(m[1])) out.set(m[1], m[2].trim());
  }
  return out;
}

/** `perf report`'s total lost samples. */
export function lostSamples(name: Recording): number {
  const m = /^# Total Lost Samples: (\d+)$/m.exec(oracle(`${name}.report.txt`));
  if (m === null) throw new Error(`${name}.report.txt: no lost samples line`);
  return Number(m[1]);
}

const file = (name: string, path: string): DroppedFile => ({
  name,
  bytes: new Uint8Array(readFileSync(path)),
});

/**
 * The symbol files for every recording: the programs, the C library and the dynamic loader with
 * their debug files (the system's, as in fixtures/sysroot), and the kernel's symbols.
 */
export function symbolFiles(): DroppedFile[] {
  return [
    file('spin', `${PERF_DATA}bin/spin`),
    file('threads', `${PERF_DATA}bin/threads`),
    file('syscalls', `${PERF_DATA}bin/syscalls`),
    file('libc.so.6', `${SYSROOT}x86_64-linux-gnu/libc.so.6`),
    file('ld-linux-x86-64.so.2', `${SYSROOT}x86_64-linux-gnu/ld-linux-x86-64.so.2`),
    file('libc.debug', `${SYSROOT}debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug`),
    file('ld.debug', `${SYSROOT}debug/.build-id/7e/bc65e52f2bbea498b4040fa92f7238377aaba9.debug`),
    file('kallsyms.txt', `${PERF_DATA}kallsyms.txt`),
  ];
}

/** The same files as CLI arguments (`--binary PATH`, `--symbols PATH` for the kallsyms text). */
export function symbolArgs(): string[] {
  return [
    ...['spin', 'threads', 'syscalls'].flatMap((b) => ['--binary', `${PERF_DATA}bin/${b}`]),
    ...[
      'x86_64-linux-gnu/libc.so.6',
      'x86_64-linux-gnu/ld-linux-x86-64.so.2',
      'debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug',
      'debug/.build-id/7e/bc65e52f2bbea498b4040fa92f7238377aaba9.debug',
    ].flatMap((p) => ['--binary', `${SYSROOT}${p}`]),
    '--symbols',
    `${PERF_DATA}kallsyms.txt`,
  ];
}

/**
 * A pipe-mode perf.data of at least `size` bytes: threads.pipe.data with its SAMPLE records
 * repeated after its own records (pipe mode has no data section whose size to patch).
 */
export function largePipeRecording(size: number): Uint8Array {
  const file = recording('threads.pipe');
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const samples: Uint8Array[] = [];
  for (let at = 16; at + 8 <= file.length; at += view.getUint16(at + 6, true))
    if (view.getUint32(at, true) === 9) samples.push(file.subarray(at, at + view.getUint16(at + 6, true)));
  const parts = [file];
  let n = file.length;
  while (n < size) {
    for (const s of samples) parts.push(s);
    n += samples.reduce((a, s) => a + s.length, 0);
  }
  return joinBytes(parts);
}
