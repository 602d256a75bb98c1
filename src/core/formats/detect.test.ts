import { readFileSync } from 'node:fs';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/helpers/raw.ts';
import { detectFormat, NOT_RECOGNISED, parseProfile } from './detect.ts';

const fixture = (p: string) =>
  new Uint8Array(readFileSync(new URL(`../../../test/fixtures/${p}`, import.meta.url)));
const enc = (s: string) => new TextEncoder().encode(s);

describe('detectFormat', () => {
  it('sniffs bytes, not names', () => {
    expect(detectFormat(fixture('gperf/tiny.prof'))).toBe('gperftools');
    expect(detectFormat(fixture('gperf/tiny32.prof'))).toBe('gperftools');
    expect(detectFormat(fixture('bad/ok_synthetic32_be.prof'))).toBe('gperftools');
    expect(detectFormat(enc('main;a 1\n'))).toBe('folded');
    expect(detectFormat(fixture('bad/text_file.prof'))).toBe(null);
    expect(detectFormat(fixture('bad/random_bytes.prof'))).toBe(null);
    expect(detectFormat(new Uint8Array(0))).toBe(null);
  });

  it('looks through gzip', () => {
    const gz = gzipSync(fixture('gperf/tiny.prof'));
    expect(detectFormat(gz)).toBe('gperftools');
    expect(parseProfile(gz).samples.count).toBe(5);
  });

  it("does not trust the gzip trailer's length (fuzz: fflate allocated what it said, or cut short)", () => {
    const text = enc('main;a;b 3\nmain;c 2\n');
    const gz = gzipSync(text, { filename: 'x.folded', mtime: 0 });
    for (const isize of [0xffffffff, 0x7fffffff, 1, 0]) {
      const b = gz.slice();
      new DataView(b.buffer).setUint32(b.length - 4, isize, true);
      expect(detectFormat(b)).toBe('folded');
      expect(parseProfile(b).samples.count, `ISIZE ${isize}`).toBe(2);
    }
    expect(errorOf(() => parseProfile(gz.subarray(0, gz.length - 12))).message).toMatch(/corrupt gzip/);
  });
});

describe('parseProfile', () => {
  it('gives clear errors', () => {
    expect(errorOf(() => parseProfile(new Uint8Array(0))).describe()).toBe('empty file (at byte 0)');
    const e = errorOf(() => parseProfile(fixture('bad/text_file.prof')));
    expect(e.message).toBe(NOT_RECOGNISED);
    expect(e.offset).toBe(0);
    expect(errorOf(() => parseProfile(new Uint8Array([0x1f, 0x8b, 1, 2, 3]))).message).toMatch(/gzip/);
  });

  it('dispatches folded text', () => {
    expect(parseProfile(enc('a;b 2\n')).format).toBe('folded');
  });
});

describe('registered formats', () => {
  it('sends pprof --raw text and DCPI to their importers, not to folded', () => {
    const raw = enc('--- symbol\nbinary=x\n0x0000000000400100 main\n---\n--- profile\n');
    expect(detectFormat(raw)).toBe('pprof-raw');
    const dcpi = enc('name dcpi\nimage 1234\n');
    expect(detectFormat(dcpi)).not.toBe('folded');
  });
});
