// A gperftools profile parsed while it is read (GperftoolsStream, through detect.ts's
// streamingParse): fed its bytes in chunks of any size, it gives exactly what parseGperftools
// gives, with the same preview, on every fixture (32/64-bit, both byte orders, damaged files) and
// on synthetic profiles of both shapes (long records interned as they come, many short ones merged
// at the end).

import { describe, expect, it } from 'vitest';
import { makeShortRecordsProfile, makeSyntheticProfile } from '../bench/gen-synthetic';
import { checkedProfile, parseProfile, streamingParse } from '../src/core/formats/detect';
import { GperftoolsStream, parseGperftools, scanGperftools } from '../src/core/formats/gperftools';
import type { ImporterPreview } from '../src/core/formats/importer';
import { CHUNKINGS, fixtureBytes, parsableGperftoolsFixtures } from './helpers/gperf-fixtures';
import { cutAndDamaged, resultOrError } from './helpers/mutate';
import { prng } from './helpers/prng';

const bytesOf = fixtureBytes;

/** Copies `file` into a fresh buffer of its size in chunks, feeding the stream after each. */
function streamed(
  file: Uint8Array,
  seed: number,
  maxChunk: number,
  onPreview?: (p: ImporterPreview) => void,
) {
  const buffer = new Uint8Array(file.length);
  const rnd = prng(seed);
  let stream: ReturnType<typeof streamingParse> = null;
  let opened = false;
  for (let at = 0; at < file.length; ) {
    const n = Math.min(file.length - at, 1 + Math.floor(rnd() * maxChunk));
    buffer.set(file.subarray(at, at + n), at);
    at += n;
    // Begun once a head is in (the worker reads 64 MB first).
    if (!opened && at >= Math.min(file.length, 4096)) {
      stream = streamingParse(buffer, at);
      opened = true;
    }
    stream?.advance(at);
  }
  return { stream, raw: () => parseProfile(buffer, { stream: stream ?? undefined, onPreview }) };
}

describe('a gperftools profile parsed while read', () => {
  const fixtures = parsableGperftoolsFixtures();
  it('covers the fixtures, little-endian and not', () => expect(fixtures.length).toBeGreaterThan(20));
  for (const path of fixtures) {
    it(`${path}: in chunks of any size, what parseGperftools gives`, () => {
      const file = bytesOf(path);
      // As parseProfile finishes both (a profile of no samples says so).
      const want = checkedProfile(parseGperftools(file));
      for (const [seed, maxChunk] of CHUNKINGS) {
        const { stream, raw } = streamed(file, seed, maxChunk);
        // Files of another byte order cannot be read in place: parsed at the end instead.
        if (stream === null) expect(GperftoolsStream.open(file)).toBeNull();
        expect(raw()).toEqual(want);
      }
    });
  }

  it('long records are interned as they come, and give the same preview', () => {
    const file = makeSyntheticProfile(6 << 20, 4);
    const want: ImporterPreview[] = [];
    const wanted = parseProfile(file, { granularity: 'addresses', onPreview: (p) => want.push(p) });
    const got: ImporterPreview[] = [];
    const { stream, raw } = streamed(file, 5, 1 << 20, (p) => got.push(p));
    expect(stream).not.toBeNull();
    expect(raw()).toEqual(wanted);
    expect(got.map((p) => p.profile)).toEqual(want.map((p) => p.profile));
  });

  it('keeps the records’ root-side PCs for the preview as a scan of the whole file does', () => {
    for (const file of [
      makeSyntheticProfile(6 << 20, 8),
      bytesOf('gperf/cxx_demangle.prof'),
      bytesOf('gperf/tiny32.prof'),
    ]) {
      const want = scanGperftools(file).heads;
      expect(want).toBeDefined();
      for (const [seed, maxChunk] of [
        [9, 7],
        [10, 4096],
        [11, 1 << 20],
      ]) {
        const buffer = new Uint8Array(file.length);
        const rnd = prng(seed);
        let stream: GperftoolsStream | null = null;
        for (let at = 0; at < file.length; ) {
          const n = Math.min(file.length - at, 1 + Math.floor(rnd() * maxChunk));
          buffer.set(file.subarray(at, at + n), at);
          at += n;
          if (stream === null && at >= Math.min(file.length, 4096)) stream = GperftoolsStream.open(buffer);
          stream?.advance(at, Number.POSITIVE_INFINITY);
        }
        const heads = stream!.finishScan().heads;
        expect(Array.from(heads!.start)).toEqual(Array.from(want!.start));
        expect(Array.from(heads!.pcs)).toEqual(Array.from(want!.pcs));
      }
    }
  });

  it('many short records are merged by stack at the end, as parseGperftools does', () => {
    const file = makeShortRecordsProfile(12 << 20, 6);
    const { raw } = streamed(file, 7, 3 << 20);
    expect(raw()).toEqual(parseGperftools(file));
  });

  it('is not begun on gzip or on other formats', () => {
    const folded = new TextEncoder().encode('main;a 1\n');
    expect(streamingParse(folded, folded.length)).toBeNull();
    expect(streamingParse(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), 10)).toBeNull();
  });

  it('random damage: the same result or the same error as parsing the whole file', () => {
    let k = 0;
    for (const file of cutAndDamaged(bytesOf('gperf/tiny.prof'), prng(99), 300)) {
      const want = resultOrError(() => parseProfile(file));
      expect(resultOrError(() => streamed(file, k++, 200).raw())).toEqual(want);
    }
  });
});
