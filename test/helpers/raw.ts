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

/**
 * A gperftools-like raw profile of leaf-first address stacks (each distinct address one location,
 * callers' addresses return addresses), with one mapping, /bin/demo at 0x400000; `extra` replaces
 * any field.
 */
export function addressProfile(stacks: [bigint[], number][], extra: Partial<RawProfile> = {}): RawProfile {
  const addrs: bigint[] = [];
  const ids = new Map<bigint, number>();
  const locs: number[] = [];
  const starts = [0];
  for (const [st] of stacks) {
    for (const a of st) {
      if (!ids.has(a)) {
        ids.set(a, addrs.length);
        addrs.push(a);
      }
      locs.push(ids.get(a)!);
    }
    starts.push(locs.length);
  }
  return {
    format: 'gperftools',
    meta: {
      periodUs: 10000,
      wordSize: 64,
      byteOrder: 'little',
      mappings: [{ start: 0x400000n, end: 0x500000n, offset: 0x1000n, path: '/bin/demo' }],
    },
    locations: {
      count: addrs.length,
      addrHi: Uint32Array.from(addrs, (a) => Number(a >> 32n)),
      addrLo: Uint32Array.from(addrs, (a) => Number(a & 0xffffffffn)),
      hasAddr: new Uint8Array(addrs.length).fill(1),
      locName: new Int32Array(addrs.length).fill(-1),
    },
    strings: [],
    samples: {
      count: stacks.length,
      stackStart: Uint32Array.from(starts),
      stackLocs: Uint32Array.from(locs),
      weight: Float64Array.from(stacks, ([, w]) => w),
    },
    adjustCallers: true,
    warnings: [],
    ...extra,
  };
}
