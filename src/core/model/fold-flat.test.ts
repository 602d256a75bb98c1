// The flat fold (fold-flat.ts) against the usual fold of the same samples: a DCPI profile's samples
// given in reverse address order are not foldsFlat's, so foldProfile folds them the usual way
// (location slots, the table of unique stacks, the function table summed per sample). Both must
// give the same stacks (by their frames' names) and weights, and the same function table by name.

import { describe, expect, it } from 'vitest';
import { makeTextBenchInput } from '../../../bench/gen-text';
import { parseDcpi } from '../formats/dcpi';
import { frameName } from '../text/frame-text';
import type { FoldedProfile, Granularity, RawProfile, Symbolizer } from '../types';
import { foldProfile } from './fold';
import { foldsFlat } from './fold-flat';
import { functionTableOf } from './functions';

/** The same profile with its samples in reverse order (each sample still its own location). */
function reversed(raw: RawProfile): RawProfile {
  const { stackLocs, weight } = raw.samples;
  return {
    ...raw,
    samples: {
      ...raw.samples,
      stackLocs: stackLocs.slice().reverse(),
      weight: weight.slice().reverse(),
    },
  };
}

/** Each stack as its frames' names, with its weight, sorted. */
function stacksByName(p: FoldedProfile): string[] {
  const out: string[] = [];
  const { start, frames, weight, count } = p.stacks;
  for (let s = 0; s < count; s++) {
    const names: string[] = [];
    for (let k = start[s]; k < start[s + 1]; k++) names.push(frameName(p.frames, frames[k]));
    out.push(`${names.join(';')} ${weight[s]}`);
  }
  return out.sort();
}

/** Each frame with samples: its name, self and total, sorted. */
function tableByName(p: FoldedProfile): string[] {
  const t = functionTableOf(p);
  const out: string[] = [];
  for (let f = 0; f < t.count; f++)
    if (t.total[f] !== 0) out.push(`${frameName(p.frames, f)} ${t.self[f]} ${t.total[f]}`);
  return out.sort();
}

/** Names the bench image's addresses as functions of 64 bytes, every fourth one two deep (inlined). */
const symbolizer: Symbolizer = {
  lookup: (_hi, lo) => {
    const fn = Math.floor(lo / 64);
    if (fn % 7 === 0) return null;
    return fn % 4 === 0 ? [`outer_${fn >> 4}`, `fn_${fn}`] : [`fn_${fn}`];
  },
  offsetInSymbol: (_hi, lo) => lo % 64,
  hasSymbolFile: () => true,
};

describe('the flat fold', () => {
  const raw = parseDcpi(makeTextBenchInput('dcpi', 256 << 10));

  it('takes a DCPI profile, not its samples out of address order', () => {
    expect(raw.samples.count).toBeGreaterThan(1000);
    expect(foldsFlat(raw)).toBe(true);
    expect(foldsFlat(reversed(raw))).toBe(false);
  });

  for (const granularity of ['functions', 'addresses', 'lines'] as Granularity[]) {
    for (const symbols of [false, true]) {
      it(`folds as the usual fold does at ${granularity}, ${symbols ? 'symbolized' : 'unsymbolized'}`, () => {
        const opts = {
          fileName: 'x.dcpi',
          granularity,
          names: 'short' as const,
          ...(symbols && { symbolizer }),
        };
        const flat = foldProfile(raw, opts);
        const usual = foldProfile(reversed(raw), opts);
        expect(flat.stacks.count).toBe(raw.samples.count);
        expect(flat.frames.count).toBe(usual.frames.count);
        expect(stacksByName(flat)).toEqual(stacksByName(usual));
        expect(tableByName(flat)).toEqual(tableByName(usual));
        expect(flat.meta.totalSamples).toBe(usual.meta.totalSamples);
      });
    }
  }

  it("fills sampleStacks with each sample's stack", () => {
    const sampleStacks = new Int32Array(raw.samples.count).fill(-7);
    const p = foldProfile(raw, { fileName: 'x.dcpi', sampleStacks });
    for (let s = 0; s < raw.samples.count; s += 97) expect(sampleStacks[s]).toBe(s);
    expect(p.stacks.weight[5]).toBe(raw.samples.weight[5]);
  });
});
