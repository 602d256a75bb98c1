// Executable mappings read straight from a gperftools profile's maps text, with a regular
// expression (not the importer): enough for tests that build a symbolizer without parsing.

import type { Mapping } from '../../src/core/types';

export function executableMappings(profile: Uint8Array): Mapping[] {
  const text = new TextDecoder('latin1').decode(profile);
  const out: Mapping[] = [];
  for (const m of text.matchAll(/^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) \S+ \d+\s+(\S+)$/gm)) {
    if (!m[3].includes('x')) continue;
    out.push({
      start: BigInt(`0x${m[1]}`),
      end: BigInt(`0x${m[2]}`),
      offset: BigInt(`0x${m[4]}`),
      path: m[5],
    });
  }
  return out;
}
