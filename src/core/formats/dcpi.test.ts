import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { prng } from '../../../test/helpers/prng';
import { bigOf, hexOf } from '../address';
import { ProfileError, type RawProfile } from '../types';
import { looksLikeDcpi, parseDcpi, readDcpiHeader } from './dcpi';
import { joinBytes } from './text-preview';

const FIXTURES = new URL('../../../test/fixtures/dcpi/', import.meta.url);

interface Expect {
  expect: 'ok' | 'warn' | 'error';
  why: string;
  bytes: number;
  header_lines: string[];
  unknown_lines: string[];
  binary_offset: number | null;
  footer_written: [number, number] | null;
  computed: { total_offsets: number; total_samples: number };
  counts?: Record<string, number>;
  addresses?: Record<string, number>;
  tstart?: string;
}

const names = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.dcpi'))
  .map((f) => f.slice(0, -'.dcpi'.length))
  .sort();

function load(name: string): { bytes: Uint8Array; exp: Expect } {
  const bytes = new Uint8Array(readFileSync(new URL(`${name}.dcpi`, FIXTURES)));
  const exp = JSON.parse(readFileSync(new URL(`${name}.expect.json`, FIXTURES), 'utf8')) as Expect;
  return { bytes, exp };
}

function parseError(bytes: Uint8Array): ProfileError {
  try {
    parseDcpi(bytes);
  } catch (e) {
    if (e instanceof ProfileError) return e;
    throw e;
  }
  throw new Error('expected a ProfileError');
}

/** index (address − tstart, decimal) → count, and address (hex) → count. */
function countsOf(p: RawProfile): { byIndex: Record<string, number>; byAddr: Record<string, number> } {
  const tstart = p.meta.mappings[0].start;
  const byIndex: Record<string, number> = {};
  const byAddr: Record<string, number> = {};
  for (let s = 0; s < p.samples.count; s++) {
    expect(p.samples.stackStart[s + 1] - p.samples.stackStart[s]).toBe(1);
    const loc = p.samples.stackLocs[p.samples.stackStart[s]];
    const hi = p.locations.addrHi[loc];
    const lo = p.locations.addrLo[loc];
    byIndex[String(bigOf(hi, lo) - tstart)] = p.samples.weight[s];
    byAddr[hexOf(hi, lo)] = p.samples.weight[s];
  }
  return { byIndex, byAddr };
}

/** Byte offset of 1-based line `n` of a file. */
function lineStart(bytes: Uint8Array, n: number): number {
  let at = 0;
  for (let k = 1; k < n; k++) at = bytes.indexOf(0x0a, at) + 1;
  return at;
}

/**
 * Where each corpus error must be reported: a header line (and the byte offset of its start, also
 * reported), or a byte offset in the binary part.
 */
const ERROR_AT: Record<string, { line?: number; offset?: number }> = {
  bad_chunk_past_eof: { offset: 184 + 24 + 4 },
  bad_duplicate_image: { line: 11 },
  bad_equal_offsets: { offset: 184 + 12 },
  bad_image_not_hex: { line: 2 },
  bad_missing_required_cpuspeed: { line: 10 },
  bad_missing_required_image: { line: 10 },
  bad_missing_terminator: { line: 11 },
  bad_not_dcpi: { line: 1 },
  bad_number_huge: { offset: 184 + 4 },
  bad_number_zero: { offset: 184 + 4 },
  bad_overlapping_chunks: { offset: 184 + 24 },
  bad_trailing_bytes: { offset: 268 - 8 },
  bad_unsorted_offsets: { offset: 184 + 12 },
  bad_version_1: { line: 1 },
  bad_whitespace_after_terminator: { offset: 182 + 4 },
};

describe('DCPI corpus', () => {
  it('has all 26 files', () => {
    expect(names.length).toBe(26);
  });

  for (const name of names) {
    const { bytes, exp } = load(name);
    it(`${name}: ${exp.expect}`, () => {
      expect(bytes.length).toBe(exp.bytes);
      expect(looksLikeDcpi(bytes)).toBe(name !== 'bad_not_dcpi');
      if (exp.expect === 'error') {
        const err = parseError(bytes);
        expect(err.format).toBe('dcpi');
        expect(err.line !== undefined || err.offset !== undefined).toBe(true);
        expect(err.message.length).toBeGreaterThan(10);
        const want = ERROR_AT[name];
        expect({ line: err.line, offset: err.offset }).toEqual({
          line: want.line,
          offset: want.offset ?? lineStart(bytes, want.line!),
        });
        // Both places in the message, for header errors.
        if (want.line !== undefined) expect(err.describe()).toMatch(/ \(at line \d+, byte \d+\)$/);
        return;
      }
      const p = parseDcpi(bytes);
      expect(p.format).toBe('dcpi');
      expect(p.flat).toBe(true);
      expect(p.adjustCallers).toBe(false);
      expect(p.meta.periodUs).toBe(0);
      if (exp.expect === 'ok') expect(p.warnings).toEqual([]);
      else expect(p.warnings.length).toBeGreaterThan(0);

      // counts and addresses
      const { byIndex, byAddr } = countsOf(p);
      expect(byIndex).toEqual(exp.counts);
      if (exp.addresses !== undefined) expect(byAddr).toEqual(exp.addresses);
      const tstartLine = exp.header_lines.find((l) => l.startsWith('tstart '));
      const tstart = tstartLine === undefined ? 0n : BigInt(`0x${tstartLine.slice(7)}`);
      if (exp.tstart !== undefined) expect(tstart).toBe(BigInt(`0x${exp.tstart}`));
      expect(p.meta.mappings[0].start).toBe(tstart);

      // totals
      expect(p.locations.count).toBe(exp.computed.total_offsets);
      expect(p.samples.count).toBe(exp.computed.total_offsets);
      expect(p.samples.weight.reduce((a, b) => a + b, 0)).toBe(exp.computed.total_samples);
      expect(p.meta.extra?.['total samples']).toBe(String(exp.computed.total_samples));
      expect(p.meta.extra?.['addresses with samples']).toBe(String(exp.computed.total_offsets));

      // header lines, unknown lines, binary offset
      const h = readDcpiHeader(bytes);
      expect(h.binaryOffset).toBe(exp.binary_offset);
      expect(h.lines.map((l) => l.raw)).toEqual(exp.header_lines);
      expect(h.lines.filter((l) => !l.known).map((l) => l.raw)).toEqual(exp.unknown_lines);
      expect(p.meta.headerLines?.map((l) => l.key)).toEqual(h.lines.map((l) => l.key));
      expect(p.meta.headerLines?.filter((l) => !l.known).length).toBe(exp.unknown_lines.length);
      for (const [i, l] of (p.meta.headerLines ?? []).entries()) {
        expect(exp.header_lines[i].startsWith(l.key)).toBe(true);
        expect(exp.header_lines[i].endsWith(l.value)).toBe(true);
      }

      // footer mismatches are warnings that carry both figures
      const [fo, fs] = exp.footer_written!;
      const text = p.warnings.map((w) => w.message).join('\n');
      if (fo !== exp.computed.total_offsets) {
        const w = p.warnings.find((x) => x.message.includes('addresses have samples'));
        expect(w?.message).toContain(String(fo));
        expect(w?.message).toContain(String(exp.computed.total_offsets));
        expect(w?.offset).toBe(exp.bytes - 8);
      } else {
        expect(text).not.toContain('addresses have samples');
      }
      if (fs !== exp.computed.total_samples) {
        const w = p.warnings.find((x) => x.message.includes('samples in total'));
        expect(w?.message).toContain(String(fs));
        expect(w?.message).toContain(String(exp.computed.total_samples));
        expect(w?.offset).toBe(exp.bytes - 4);
      } else {
        expect(text).not.toContain('samples in total');
      }
    });
  }

  it('valid_basic: mapping, metadata and header lines', () => {
    const p = parseDcpi(load('valid_basic').bytes);
    expect(p.meta.mappings).toEqual([
      {
        start: 0x120000000n,
        end: 0x120000000n + 8388608n,
        offset: 0n,
        path: '/usr/local/bin/xemacs',
        linkTimeAddresses: true,
      },
    ]);
    expect(p.meta.headerLines?.[0]).toEqual({ key: 'version', value: 'pdb-0.07', known: true });
    expect(p.meta.extra).toMatchObject({
      'image id': '19970328081403c0c18b',
      version: 'pdb-0.07',
      epoch: '1998-05-19T17:24:00Z',
      event: 'cycles',
      platform: 'walnut',
      cpuspeed: '300',
      'text start': '0x120000000',
      chunks: '4',
    });
    expect(p.meta.extra?.period).toContain('63488');
    expect(p.strings).toEqual([]);
    expect(Array.from(p.locations.locName)).toEqual(new Array(8).fill(-1));
    expect(Array.from(p.locations.hasAddr)).toEqual(new Array(8).fill(1));
  });

  it('valid_minimal_seed_grammar: warns for version and tstart; image-<id> mapping', () => {
    const p = parseDcpi(load('valid_minimal_seed_grammar').bytes);
    expect(p.warnings.map((w) => w.message).join('\n')).toMatch(/'version'[\s\S]*'tstart'/);
    expect(p.meta.mappings[0]).toEqual({
      start: 0n,
      end: 8388608n,
      offset: 0n,
      path: 'image-19970328081403c0c18b',
      // Without tstart the addresses are offsets from the text start, not image addresses.
      linkTimeAddresses: false,
    });
  });

  it('valid_long_epoch: 14-digit epoch read as YYYYMMDDHHMMSS, with a warning on its line', () => {
    const p = parseDcpi(load('valid_long_epoch').bytes);
    expect(p.meta.extra?.epoch).toBe('1998-05-19T17:24:03Z');
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0].line).toBe(3);
  });

  it('bad_duplicate_period: keeps the first period and warns on the second line', () => {
    const p = parseDcpi(load('bad_duplicate_period').bytes);
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0].line).toBe(11);
    expect(p.meta.extra?.period).toContain('63488');
  });

  it('valid_unknown_lines: keeps unknown lines verbatim, in order', () => {
    const p = parseDcpi(load('valid_unknown_lines').bytes);
    expect(p.meta.headerLines?.filter((l) => !l.known)).toEqual([
      { key: 'label', value: 'my run #1', known: false },
      { key: 'x-custom', value: 'a\tb  c', known: false },
      { key: 'name', value: 'xemacs', known: false },
    ]);
  });
});

// A small writer for hand-made cases.
const HEADER = [
  'version pdb-0.07',
  'image 19970328081403c0c18b',
  'epoch 9805191724',
  'platform walnut',
  'event cycles',
  'period 63488',
  'tstart 120000000',
  'tsize 8388608',
  'cpuspeed 300',
];

function make(lines: string[], chunks: [number, number[]][], footer?: [number, number]): Uint8Array {
  const head = new TextEncoder().encode(`${lines.join('\n')}\nsamples\n`);
  let words = 0;
  for (const [, c] of chunks) words += 2 + c.length;
  const out = new Uint8Array(head.length + 4 * words + 8);
  out.set(head);
  const dv = new DataView(out.buffer);
  let p = head.length;
  let offs = 0;
  let total = 0;
  for (const [off, counts] of chunks) {
    dv.setUint32(p, off, true);
    dv.setUint32(p + 4, counts.length, true);
    p += 8;
    for (const c of counts) {
      dv.setUint32(p, c, true);
      p += 4;
      if (c) offs++;
      total += c;
    }
  }
  dv.setUint32(p, footer ? footer[0] : offs, true);
  dv.setUint32(p + 4, footer ? footer[1] : total, true);
  return out;
}

/** HEADER with `key`'s line replaced in place (or appended). */
const withLine = (key: string, value: string, lines = HEADER): string[] => {
  const out = lines.map((l) => (l.startsWith(`${key} `) ? `${key} ${value}` : l));
  if (!out.includes(`${key} ${value}`)) out.push(`${key} ${value}`);
  return out;
};

describe('parseDcpi: hand-made cases', () => {
  it('adds tstart exactly, across the 2^32 carry and above 2^53', () => {
    const p = parseDcpi(
      make(withLine('tsize', '16', withLine('tstart', 'fffffffffffffff0')), [[0x8, [1, 2, 3]]]),
    );
    expect(p.warnings).toEqual([]);
    expect(countsOf(p).byAddr).toEqual({ fffffffffffffff8: 1, fffffffffffffff9: 2, fffffffffffffffa: 3 });
    const q = parseDcpi(make(withLine('tstart', '1fffffffe'), [[0xfffffffe, [4, 0, 5]]]));
    expect(countsOf(q).byAddr).toEqual({ '2fffffffc': 4, '2fffffffe': 5 });
  });

  it("reads the footer's 32-bit total of samples modulo 2^32 (a total past 2^32 cannot be written whole)", () => {
    // 0xffffffff + 5 samples: the writer's 32-bit field holds 4
    const p = parseDcpi(make(HEADER, [[0x10, [0xffffffff, 5]]]));
    expect(p.warnings).toEqual([]);
    expect(countsOf(p).byIndex).toEqual({ '16': 0xffffffff, '17': 5 });
    // a footer that is off by other than a multiple of 2^32 is still said
    const q = parseDcpi(make(HEADER, [[0x10, [0xffffffff, 5]]], [2, 3]));
    expect(q.warnings.map((w) => w.message)).toEqual([
      'The footer says 3 samples in total, but the counts add up to 4294967300. Showing the counts.',
    ]);
  });

  it('rejects a text segment past the 64-bit end', () => {
    const e = parseError(make(withLine('tstart', 'ffffffffffffff00'), [[0, [1]]]));
    expect(e.line).toBe(8);
    expect(parseError(make(withLine('tstart', '10000000000000000'), [])).line).toBe(7);
  });

  it('reads a 12-digit epoch as YYYYMMDDHHMM (the dcpicat example) and warns', () => {
    const p = parseDcpi(make(withLine('epoch', '199805191724'), [[0, [1]]]));
    expect(p.meta.extra?.epoch).toBe('1998-05-19T17:24:00Z');
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0].message).toContain('YYYYMMDDHHMM');
  });

  it('reads 2-digit years with the POSIX pivot (69..99 → 19xx, 00..68 → 20xx)', () => {
    expect(parseDcpi(make(withLine('epoch', '0203041506'), [])).meta.extra?.epoch).toBe(
      '2002-03-04T15:06:00Z',
    );
    expect(parseDcpi(make(withLine('epoch', '6901010000'), [])).meta.extra?.epoch).toBe(
      '1969-01-01T00:00:00Z',
    );
  });

  it('warns on an impossible date but rejects a non-digit epoch', () => {
    const p = parseDcpi(make(withLine('epoch', '9813191724'), []));
    expect(p.warnings.map((w) => w.message).join()).toContain('not a valid date');
    expect(p.meta.extra?.epoch).toBe('9813191724');
    expect(parseError(make(withLine('epoch', '1998-05-19'), [])).line).toBe(3);
    expect(parseError(make(withLine('epoch', '98051917'), [])).line).toBe(3);
  });

  it('tolerates trailing blanks after typed values, keeps them on text values', () => {
    const lines = HEADER.map((l) => (l.startsWith('period') ? 'period 63488  \t' : l));
    lines.push('path /bin/x  ');
    const p = parseDcpi(make(lines, [[0, [1]]]));
    expect(p.meta.extra?.period).toMatch(/^63488 /);
    expect(p.meta.headerLines?.find((l) => l.key === 'path')?.value).toBe('/bin/x  ');
    expect(p.meta.mappings[0].path).toBe('/bin/x');
  });

  it('rejects grammar violations with the line number', () => {
    expect(parseError(make([...HEADER, ''], [])).line).toBe(10);
    expect(parseError(make([...HEADER, 'lonely'], [])).line).toBe(10);
    expect(parseError(make([...HEADER, '  indented value'], [])).line).toBe(10);
    expect(parseError(make([...HEADER, 'key   '], [])).line).toBe(10);
    expect(parseError(make(withLine('tsize', '0x800000'), [])).line).toBe(8);
    expect(parseError(make(withLine('cpuamask', 'zz'), [])).line).toBe(10);
    expect(parseError(make(withLine('version', 'pdb-0'), [])).line).toBe(1);
    expect(parseError(make(withLine('version', 'pdb-2.00'), [])).line).toBe(1);
    expect(parseError(make([...HEADER, 'tstart 1'], [])).line).toBe(10);
    expect(parseError(make([...HEADER, 'version pdb-0.06'], [])).line).toBe(10);
  });

  it('rejects CRLF headers with a hint', () => {
    const crlf = new TextEncoder().encode(`${HEADER.join('\r\n')}\r\nsamples\r\n\0\0\0\0\0\0\0\0`);
    const e = parseError(crlf);
    expect(e.line).toBe(1);
    expect(e.message).toContain('carriage return');
  });

  it('accepts other minor versions of major 0 and unknown lines before the terminator', () => {
    const p = parseDcpi(make([...withLine('version', 'pdb-0.06'), 'samples 12'], [[0, [3]]]));
    expect(p.warnings).toEqual([]);
    expect(p.meta.headerLines?.at(-1)).toEqual({ key: 'samples', value: '12', known: false });
  });

  it('keeps the first of repeated optional keywords and warns', () => {
    const p = parseDcpi(make([...HEADER, 'path /a', 'path /b'], [[0, [1]]]));
    expect(p.meta.mappings[0].path).toBe('/a');
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0].line).toBe(11);
  });

  it('allows adjacent chunks and warns about addresses beyond tsize', () => {
    const p = parseDcpi(
      make(withLine('tsize', '6'), [
        [0, [1, 2]],
        [2, [3]],
        [5, [0, 4, 0]],
      ]),
    );
    expect(countsOf(p).byIndex).toEqual({ 0: 1, 1: 2, 2: 3, 6: 4 });
    expect(p.warnings).toHaveLength(1);
    expect(p.warnings[0].message).toContain('beyond the text size');
    expect(p.warnings[0].message).toMatch(/^1 addresses/);
  });

  it('gives, once the chunks are scanned, exactly the addresses of at least a share of all samples', () => {
    // Rising counts: the early ones are heavy against the total so far, not against the whole.
    const counts = Array.from({ length: 3000 }, (_, i) => 1 + i);
    const chunks: [number, number[]][] = [
      [0, counts],
      [5000, [0, 500_000, 3, 0, 2_000_000]],
      [0x7fffff, [4_000]],
    ];
    const file = make(HEADER, chunks);
    const full = parseDcpi(file);
    let all = 0;
    for (const w of full.samples.weight) all += w;
    const want = new Map<string, number>();
    for (let i = 0; i < full.samples.count; i++)
      if (full.samples.weight[i] >= all / 3000)
        want.set(hexOf(full.locations.addrHi[i], full.locations.addrLo[i]), full.samples.weight[i]);
    expect(want.size).toBeGreaterThan(600); // of the rising counts, only the last ones
    const scans: { total: number; addresses: number; heavy: RawProfile }[] = [];
    const p = parseDcpi(file, { heavyFraction: 1 / 3000, onScanned: (s) => scans.push(s) });
    expect(p).toEqual(full);
    expect(scans).toHaveLength(1);
    const { total, addresses, heavy } = scans[0];
    expect(total).toBe(all);
    expect(addresses).toBe(full.samples.count);
    const got = new Map<string, number>();
    for (let i = 0; i < heavy.samples.count; i++) {
      expect(heavy.samples.stackLocs[heavy.samples.stackStart[i]]).toBe(i);
      got.set(hexOf(heavy.locations.addrHi[i], heavy.locations.addrLo[i]), heavy.samples.weight[i]);
    }
    expect(got).toEqual(want);
    expect(heavy.meta).toEqual(full.meta);
    expect(heavy.flat).toBe(true);
  });

  it('gives no heavy addresses from damaged chunks (the error is the parse’s)', () => {
    const file = make(HEADER, [
      [8, [5, 6]],
      [4, [7]],
    ]);
    const scans: unknown[] = [];
    expect(() => parseDcpi(file, { heavyFraction: 1 / 4096, onScanned: (s) => scans.push(s) })).toThrow(
      ProfileError,
    );
    expect(scans).toEqual([]);
  });

  it('rejects a binary section shorter than the footer', () => {
    const head = new TextEncoder().encode(`${HEADER.join('\n')}\nsamples\n\0\0\0`);
    expect(parseError(head).offset).toBe(head.length - 3);
    const empty = new TextEncoder().encode(`${HEADER.join('\n')}\nsamples\n`);
    expect(parseError(empty).offset).toBe(empty.length);
    expect(parseError(new Uint8Array(0)).line).toBe(1);
  });

  it('reads a header from a subarray (non-zero byteOffset, unaligned)', () => {
    const file = make(HEADER, [[0x10, [7, 0, 9]]]);
    const padded = new Uint8Array(file.length + 3);
    padded.set(file, 3);
    const p = parseDcpi(padded.subarray(3));
    expect(countsOf(p).byIndex).toEqual({ 16: 7, 18: 9 });
  });
});

describe('looksLikeDcpi', () => {
  const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

  it('claims DCPI headers, also damaged ones that open with several keyword lines', () => {
    expect(looksLikeDcpi(make(HEADER, []))).toBe(true);
    expect(looksLikeDcpi(enc(`${HEADER.join('\n')}\n\0\0\0\0`))).toBe(true);
    expect(looksLikeDcpi(enc('image 1a\nepoch 9805191724\nsamples\n'))).toBe(true);
  });

  it('does not claim other formats', () => {
    // gperftools: header words 0, 3, 0, period, 0 (64-bit)
    const gperf = new Uint8Array(40);
    gperf[8] = 3;
    gperf[24] = 0x10;
    gperf[25] = 0x27;
    expect(looksLikeDcpi(gperf)).toBe(false);
    expect(looksLikeDcpi(enc('main;foo;bar 12\nmain;baz 3\n'))).toBe(false);
    expect(looksLikeDcpi(enc('image;foo 12\nsamples\n'))).toBe(false);
    expect(looksLikeDcpi(enc('image 12\nepoch 3\n'))).toBe(false);
    expect(looksLikeDcpi(enc('--- symbol\nbinary=/bin/ls\n0x401000 main\n---\n--- profile\n\0\0\0\0'))).toBe(
      false,
    );
    expect(looksLikeDcpi(enc('samples\n'))).toBe(false);
    expect(looksLikeDcpi(new Uint8Array(0))).toBe(false);
  });

  const gperfDir = '/work/shared/corpus/gperf';
  it.skipIf(!existsSync(gperfDir))('does not claim the shared gperftools corpus', () => {
    const files = readdirSync(gperfDir).filter((f) => f.endsWith('.prof'));
    for (const f of files) {
      expect(looksLikeDcpi(new Uint8Array(readFileSync(`${gperfDir}/${f}`))), f).toBe(false);
    }
  });
});

describe('fuzz', () => {
  const concat = (...parts: Uint8Array[]) => joinBytes(parts);

  it('every mutation of a valid file yields a RawProfile or a ProfileError', () => {
    const rnd = prng(0xdc91);
    const int = (n: number): number => Math.floor(rnd() * n);
    const seeds = names.filter((n) => !n.startsWith('bad_')).map((n) => load(n).bytes);
    let parsed = 0;
    let rejected = 0;
    for (let iter = 0; iter < 600; iter++) {
      const src = seeds[int(seeds.length)];
      let b: Uint8Array = src.slice();
      const kind = int(6);
      if (kind === 0) {
        for (let k = 0, n = 1 + int(4); k < n; k++) b[int(b.length)] = int(256);
      } else if (kind === 1) {
        b = b.slice(0, int(b.length + 1));
      } else if (kind === 2) {
        const at = int(b.length + 1);
        const ins = new Uint8Array(1 + int(8)).map(() => int(256));
        b = concat(b.subarray(0, at), ins, b.subarray(at));
      } else if (kind === 3) {
        const at = int(b.length);
        b = concat(b.subarray(0, at), b.subarray(at + 1 + int(12)));
      } else {
        // overwrite a uint32 of the binary part with something nasty
        const bin = readDcpiHeader(src).binaryOffset;
        const words = Math.floor((b.length - bin) / 4);
        const at = bin + 4 * int(words) + (kind === 5 ? int(4) : 0);
        const v = [0, 1, 0xffffffff, 0x7fffffff, int(2 ** 32), int(64)][int(6)];
        if (at + 4 <= b.length) new DataView(b.buffer).setUint32(at, v, true);
      }
      try {
        looksLikeDcpi(b);
        const p = parseDcpi(b);
        parsed++;
        expect(p.samples.count).toBe(p.locations.count);
        expect(p.samples.stackStart.length).toBe(p.samples.count + 1);
        expect(p.samples.weight.every((w) => w > 0)).toBe(true);
      } catch (e) {
        if (!(e instanceof ProfileError)) throw e;
        expect(e.line !== undefined || e.offset !== undefined).toBe(true);
        rejected++;
      }
    }
    expect(parsed).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(50);
  });
});
