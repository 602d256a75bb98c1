// Test helpers over parsed (raw) profiles and errors.

import { bigOf } from '../../src/core/address';
import { ProfileError, type RawProfile } from '../../src/core/types';

/**
 * Root-first stacks of raw addresses → summed weight; `addr` writes an address (default: bare
 * hex); `only` keeps some samples (by index).
 */
export function rawStacks(
  raw: RawProfile,
  addr: (a: bigint) => string = (a) => a.toString(16),
  only: (sample: number) => boolean = () => true,
): Map<string, number> {
  const out = new Map<string, number>();
  const { stackStart, stackLocs, weight } = raw.samples;
  for (let s = 0; s < raw.samples.count; s++) {
    if (!only(s)) continue;
    const parts: string[] = [];
    for (let p = stackStart[s + 1] - 1; p >= stackStart[s]; p--) {
      const l = stackLocs[p];
      parts.push(addr(bigOf(raw.locations.addrHi[l], raw.locations.addrLo[l])));
    }
    const k = parts.join(';');
    out.set(k, (out.get(k) ?? 0) + weight[s]);
  }
  return out;
}

/** The ProfileError `f` throws (anything else fails the test). */
export function errorOf(f: () => unknown): ProfileError {
  try {
    f();
  } catch (e) {
    if (e instanceof ProfileError) return e;
    throw e;
  }
  throw new Error('expected a ProfileError');
}
