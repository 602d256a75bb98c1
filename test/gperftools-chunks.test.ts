// A gperftools profile parsed from its chunks as they are read, with no buffer of the file's size
// (GperftoolsChunkStream, through detect.ts's chunkedParse): fed its bytes in chunks of any size, it
// gives exactly what parseGperftools gives, with the same preview, on every fixture it opens
// (32/64-bit, damaged files) and on a synthetic profile of long records; it declines files of
// another byte order and of many short records (read whole then).

import { describe, expect, it } from 'vitest';
import { makeShortRecordsProfile, makeSyntheticProfile } from '../bench/gen-synthetic';
import { chunkedParse, parseProfile } from '../src/core/formats/detect';
import { GperftoolsChunkStream, parseGperftools } from '../src/core/formats/gperftools';
import type { ImporterChunks, ImporterPreview } from '../src/core/formats/importer';
import { CHUNKINGS, fixtureBytes, parsableGperftoolsFixtures } from './helpers/gperf-fixtures';
import { cutAndDamaged, resultOrError } from './helpers/mutate';
import { prng } from './helpers/prng';

const bytesOf = fixtureBytes;

/**
 * `file` in chunks (the first of `first` bytes, then random sizes up to `maxChunk` whole slots of
 * `ws` bytes, as the worker reads them), each a fresh copy, to the stream `open` makes.
 */
function feed<S extends { push(chunk: Uint8Array, budgetMs?: number): unknown }>(
  file: Uint8Array,
  seed: number,
  maxChunk: number,
  first: number,
  open: (head: Uint8Array, size: number) => S | null,
  /** Interning time per chunk (0: none, all left to the end; the preview reads the chunks). */
  budgetMs?: number,
): S | null {
  const rnd = prng(seed);
  const stream = open(file.slice(0, Math.min(file.length, first)), file.length);
  if (stream === null) return null;
  for (let at = Math.min(file.length, first); at < file.length; ) {
    const n = Math.min(file.length - at, 8 * (1 + Math.floor((rnd() * maxChunk) / 8)));
    stream.push(file.slice(at, at + n), budgetMs);
    at += n;
  }
  return stream;
}

/**
 * Frees a chunk at once, as the worker does (its buffer detached: a chunk read again after it was
 * let go of would read nothing), and counts it.
 */
let released = 0;
const detach = (b: ArrayBuffer) => {
  structuredClone(b, { transfer: [b] });
  released++;
};

/** As the worker reads a file (chunkedParse). */
const chunked = (file: Uint8Array, seed: number, maxChunk: number, first = 4096, budgetMs?: number) =>
  feed(file, seed, maxChunk, first, (h, size) => chunkedParse(h, size, detach), budgetMs);

const HOST_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** The header's second slot is the header's word count, 3: in its last byte in a big-endian file. */
const bigEndian = (file: Uint8Array) => (file[4] === 0 && file[7] === 3) || (file[8] === 0 && file[15] === 3);

describe('a gperftools profile parsed from its chunks', () => {
  const fixtures = parsableGperftoolsFixtures();
  let opened = 0;
  for (const path of fixtures) {
    it(`${path}: in chunks of any size, what parseGperftools gives (or declined)`, () => {
      const file = bytesOf(path);
      const want = parseGperftools(file);
      for (const [seed, maxChunk] of CHUNKINGS) {
        // Short records too (the worker's stream declines a first chunk of them).
        const stream = feed(
          file,
          seed,
          maxChunk,
          4096,
          (h, size) => GperftoolsChunkStream.open(h, size, 0, detach),
          seed === 2 ? 0 : undefined,
        );
        if (stream === null) {
          // Declined: another byte order only.
          expect(bigEndian(file)).toBe(HOST_LE);
          continue;
        }
        opened++;
        expect(stream.finish(stream.finishScan())).toEqual(want);
      }
    });
  }
  it('opened the fixtures in this byte order', () => expect(opened).toBeGreaterThan(3 * 15));

  it('declines a file of another byte order, and one of many short records', () => {
    const be = fixtures.find((p) => p.includes('be') || p.includes('big'));
    if (be) expect(chunkedParse(bytesOf(be).slice(0, 4096), bytesOf(be).length)).toBeNull();
    const short = makeShortRecordsProfile(4 << 20, 6);
    expect(chunkedParse(short.slice(0, 1 << 20), short.length)).toBeNull();
  });

  it('long records: the same profile and the same preview as the whole file’s parse', () => {
    const file = makeSyntheticProfile(10 << 20, 4); // 1.3M PCs: previewed
    const want: ImporterPreview[] = [];
    const wanted = parseProfile(file, { granularity: 'addresses', onPreview: (p) => want.push(p) });
    for (const [seed, maxChunk, first, budget] of [
      [5, 1 << 20, 1 << 20, Number.POSITIVE_INFINITY], // all interned as it comes
      [6, 3000, 4096, 0], // none: the preview reads the kept chunks
      [7, 1 << 16, 1 << 16, 0.05],
    ]) {
      const got: ImporterPreview[] = [];
      const stream = chunked(file, seed, maxChunk, first, budget);
      expect(stream).not.toBeNull();
      expect(
        parseProfile(new Uint8Array(0), {
          stream: stream!,
          granularity: 'addresses',
          onPreview: (p) => got.push(p),
        }),
      ).toEqual(wanted);
      expect(got.map((p) => p.profile)).toEqual(want.map((p) => p.profile));
      expect(got.length).toBe(want.length);
      expect(released).toBeGreaterThan(0);
      released = 0;
      expect(want.length).toBe(1);
    }
  });

  it('random damage: the same result or the same error as parsing the whole file', () => {
    let compared = 0;
    let k = 0;
    for (const file of cutAndDamaged(bytesOf('gperf/tiny.prof'), prng(99), 300)) {
      const stream = resultOrError(() => chunked(file, k++, 200, 64));
      if (stream === null) continue; // read whole: parseProfile's own
      const want = resultOrError(() => parseProfile(file));
      const got =
        typeof stream === 'string'
          ? stream
          : resultOrError(() => parseProfile(new Uint8Array(0), { stream: stream as ImporterChunks }));
      compared++;
      expect(got).toEqual(want);
    }
    expect(compared).toBeGreaterThan(100);
  });
});
