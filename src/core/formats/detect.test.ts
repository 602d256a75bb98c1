import { execFileSync } from 'node:child_process';
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

  it('says where a gzip member broke: where a cut one ends, where bad deflate data begins', () => {
    const gz = fixture('pprof/corpus/big_synth_small.pb.gz');
    for (const cut of [11, 5000, 65536, 65537, 100_000, gz.length - 9]) {
      const e = errorOf(() => parseProfile(gz.subarray(0, cut)));
      expect(e.describe(), `cut at ${cut}`).toBe(
        `corrupt gzip data: cut short (the compressed stream stops before its last block) (at byte ${cut})`,
      );
    }
    // Cut in its trailer, the data is whole.
    expect(parseProfile(gz.subarray(0, gz.length - 8)).format).toBe('pprof');
    expect(errorOf(() => parseProfile(gz.subarray(0, 6))).describe()).toBe(
      'corrupt gzip data: header cut short (at byte 6)',
    );
    // A stored block of 300 bytes (header at byte 10, data from 15), then a block of type 3, which
    // RFC 1951 reserves (an error): at byte 315.
    const member = new Uint8Array(330);
    member.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    member.set([0, 300 & 0xff, 300 >> 8, ~300 & 0xff, (~300 >> 8) & 0xff], 10);
    member.fill(0x61, 15, 315);
    member[315] = 0b110;
    const bad = errorOf(() => parseProfile(member));
    expect(bad.describe()).toBe('corrupt gzip data: invalid block type (at byte 315)');
  });

  it('finds the byte zlib finds for a distance too far back (python3 zlib, fed byte by byte)', () => {
    const gz = fixture('pprof/corpus/big_synth_small.pb.gz').slice();
    gz[3991] ^= 0x5a;
    const zlib = execFileSync(
      'python3',
      [
        '-c',
        [
          'import sys, zlib',
          'b = sys.stdin.buffer.read(); d = zlib.decompressobj(16 + 15)',
          'for i in range(len(b)):',
          '    try: d.decompress(b[i:i + 1])',
          '    except zlib.error as e: print(i, e); break',
        ].join('\n'),
      ],
      { input: gz, encoding: 'utf8' },
    );
    expect(zlib).toMatch(/^3997 .*invalid distance too far back/);
    const e = errorOf(() => parseProfile(gz));
    expect(e.message).toBe('corrupt gzip data: invalid distance');
    expect(e.offset).toBe(3997);
  });

  it('locates the break of a damaged dynamic block header within 2 s (the fuzzer: 1.3 s for 454 bytes)', () => {
    // Its code lengths are no Huffman code (zlib: "invalid code lengths set" at byte 19); fflate
    // parses such a header again on every push until it is whole, milliseconds each, so the break
    // is looked for in pieces of 64 KB, 4 KB, 256, 16, then 1 byte: 16 pushes a stage at most.
    const gz = new Uint8Array(
      Buffer.from(
        [
          'H4sIAM3/CGvmcmz3PUjkQBQHcPO9m113hz2OCza3no0crIFwLGJ3nHCttU2M2VEDcRIyCVhYDCLYamFtoaiNoJWC',
          'hau7FoLa2olop1gofqCVL1k3ok2G35v/e5OBUcUMh3j4CkgsIVXmeEGUZNSD2Nr9KlcqqrLSqmQRW3z8XSqokpLJ',
          'gr8hdnY8DAGJSzyI2MNSk48DnBo3FBFbbvxPGhIriO1udscTuVy+s1D8mCArrYKA2NxaoesH/BGrP9/O7H3X2EWy',
          'llm5V+rSMjxi7KWx/fxTY/XTJqxlVs/2yr/y0MJpLwdJGMSDdhptCaBGKhF0nkpCvPZwtRDPAsmgm7utdymQfEpn',
          'ZkDraV8WAAAAAJ2kyoFeU+VBh822OuGEo5XkDqACaHa1rSIk5/eTpNFhKNSa9F1MDcn2IhIagu1HRo5YxKPY9kiN',
          'Gt2654f6mGtNYhcTWrG9wI+oPuoQPZwIsAWRHj2ige46o/pUf9Ws/qm4DommKuMkiot2H/X6qoY9FHhjjosHrdAa',
          'GPhbq01/KvgAc8IiNRcH0/8CAAAA+LJjmn7rVJM64x/FANPQC3C/Mpy8sRG2cSn6HW9i7tFedwIAAA==',
        ].join(''),
        'base64',
      ),
    );
    const t = performance.now();
    const e = errorOf(() => parseProfile(gz));
    expect(performance.now() - t).toBeLessThan(2000);
    expect(e.describe()).toBe('corrupt gzip data: invalid distance (at byte 100)');
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

  it('names the line that keeps stacks from being folded text, and the byte it starts at', () => {
    // A stray line among stacks (a tool's message mixed into its output), after a comment, a blank
    // line and a two-byte character: line 5, byte 18.
    const e = errorOf(() => parseProfile(enc('# c\n\na;b 1\n\u00e4;b 2\nperf: not found\na;c 3\n')));
    expect(e.describe()).toBe(
      `${NOT_RECOGNISED}; read as folded stacks, line 5 is not \`stack COUNT\` (at line 5, byte 18)`,
    );
    // Gzipped, the offset is in the text (as every text format's).
    expect(errorOf(() => parseProfile(gzipSync(enc('a;b 1\nnope\n')))).describe()).toMatch(
      /line 2 is not `stack COUNT` \(at line 2, byte 6\)$/,
    );
    // Text that does not begin as stacks is no folded text: nothing said of lines.
    expect(errorOf(() => parseProfile(enc('hello world\na;b 1\n'))).describe()).toBe(
      `${NOT_RECOGNISED} (at byte 0)`,
    );
  });

  it('dispatches folded text', () => {
    expect(parseProfile(enc('a;b 2\n')).format).toBe('folded');
  });

  it('says when a profile has nothing to draw, whatever its format', () => {
    const none = 'the profile holds no samples: there is nothing to draw';
    const said = (b: Uint8Array) => parseProfile(b).warnings.map((w) => w.message);
    expect(said(fixture('bad/trailer_only.prof'))).toEqual([none]);
    expect(said(fixture('bad/header_only.prof'))).toContain(none);
    expect(said(fixture('dcpi/valid_empty.dcpi'))).toEqual([none]);
    expect(said(gzipSync(fixture('dcpi/valid_empty.dcpi')))).toEqual([none]);
    expect(said(enc('main;a 0\nmain;b 0\n'))).toEqual([
      "the profile's 2 samples all count 0: there is nothing to draw",
    ]);
    // Something to show: under the default column, or under another (a two-count file's comparison).
    expect(said(fixture('gperf/tiny.prof'))).toEqual([]);
    expect(said(enc('main;a 0 3\n'))).toEqual([]);
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
