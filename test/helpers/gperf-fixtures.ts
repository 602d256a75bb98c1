// The gperftools fixtures a parse can read (under test/fixtures: the corpus's, our own, damaged
// ones), shared by the tests of the parses begun while a file is read.

import { readdirSync, readFileSync } from 'node:fs';
import { parseGperftools } from '../../src/core/formats/gperftools';

/**
 * How the parses begun while a file is read are fed each fixture: [seed, largest chunk in bytes]
 * (chunks of random sizes up to it, from a few bytes to several records).
 */
export const CHUNKINGS: readonly (readonly [number, number])[] = [
  [1, 7],
  [2, 64],
  [3, 4096],
];

/** A fixture's bytes, by its path under test/fixtures. */
export const fixtureBytes = (path: string) => new Uint8Array(readFileSync(`test/fixtures/${path}`));

/** The `.prof` files of gperf/, gperf-own/ and bad/ that parseGperftools reads (paths, sorted). */
export function parsableGperftoolsFixtures(): string[] {
  const inDir = (dir: string) =>
    readdirSync(`test/fixtures/${dir}`)
      .filter((f) => f.endsWith('.prof'))
      .map((f) => `${dir}/${f}`)
      .sort();
  return [...inDir('gperf'), ...inDir('gperf-own'), ...inDir('bad')].filter((p) => {
    try {
      parseGperftools(fixtureBytes(p));
      return true;
    } catch {
      return false;
    }
  });
}
