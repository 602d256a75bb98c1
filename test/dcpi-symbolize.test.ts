// DCPI profiles are symbolized through the same path as gperftools: drop the image's ELF and
// the flat graph gets a function level (image → function → address). DCPI addresses are the
// image's own text addresses (tstart + offset), looked up as ELF virtual addresses.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AnalysisSession } from '../src/core/analysis/session';
import { firstChildOf, nextSiblingOf, totalOf } from '../src/core/model/calltree';
import { findFrame, frameNames } from '../src/core/model/frames';
import { frameName } from '../src/core/text/frame-text';
import { FrameKind } from '../src/core/types';
import { DEFAULT_VIEW, workerViewOf } from '../src/core/view/schema';

/** A DCPI 0.07 profile of `tiny` (PIE: .text at 0x1050; main 0x119e, alpha 0x1169, spin 0x1139). */
function dcpiOfTiny(counts: [address: number, count: number][]): Uint8Array {
  const tstart = 0x1050;
  const header = [
    'version pdb-0.07',
    'image 0123456789abcdef',
    'epoch 2411211200',
    'platform x86_64',
    'event cycles',
    'period 65536',
    `tstart ${tstart.toString(16)}`,
    'tsize 379',
    'cpuspeed 2000',
    'path /opt/flamelens-corpus/bin/tiny',
    'samples',
    '',
  ].join('\n');
  const words: number[] = [];
  let total = 0;
  for (const [addr, n] of counts) {
    words.push(addr - tstart, 1, n);
    total += n;
  }
  words.push(counts.length, total);
  const head = new TextEncoder().encode(header);
  const out = new Uint8Array(head.length + words.length * 4);
  out.set(head);
  const dv = new DataView(out.buffer, head.length);
  for (const [i, w] of words.entries()) dv.setUint32(i * 4, w, true);
  return out;
}

describe('DCPI with the image ELF', () => {
  it('adds a function level: image → function → address', async () => {
    const s = new AnalysisSession();
    const dcpi = {
      name: 'tiny.dcpi',
      bytes: dcpiOfTiny([
        [0x1139, 7],
        [0x1145, 3],
        [0x116d, 2],
        [0x11a5, 1],
      ]),
    };
    const before = await s.add([dcpi], workerViewOf(DEFAULT_VIEW));
    const names = (r: typeof before) => frameNames(r.analysis!.profile.frames);
    expect(names(before)).toContain('tiny+0xe9'); // 0x1139 - tstart: the DCPI offset into the text
    const tiny = { name: 'tiny', bytes: new Uint8Array(readFileSync('test/fixtures/gperf/bin/tiny')) };
    const after = await s.add([tiny], workerViewOf(DEFAULT_VIEW));
    expect(after.symbols?.report.matched.map((m) => m.mappingPath)).toEqual([
      '/opt/flamelens-corpus/bin/tiny',
    ]);
    const { tree, profile } = after.analysis!;
    const rows: string[] = [];
    for (let f = firstChildOf(tree, firstChildOf(tree, 0)); f !== -1; f = nextSiblingOf(tree, f)) {
      rows.push(`${frameName(profile.frames, tree.frame[f])} ${totalOf(tree, f)}`);
    }
    expect(rows).toEqual(['spin 10', 'alpha 2', 'main 1']);
    // The table's functions carry their addresses' samples as self (the default view shows them).
    const { toPageProfile } = await import('../src/worker/protocol');
    const { flatFunctions } = await import('../src/table/FunctionTable');
    const a = after.analysis!;
    const flat = flatFunctions({ ...a, profile: toPageProfile(a.profile) })!;
    expect(flat.functions!.self[findFrame(profile.frames, 'spin')]).toBe(10);
    // The addresses are exactly the leaves: the frames of a kind Address (`function+0x…`, `image+0x…`).
    const leaves = (x: typeof a) =>
      frameNames(x.profile.frames).filter((_, f) => x.profile.frames.kind[f] === FrameKind.Address);
    const marked = (x: typeof a, m: Uint8Array) => frameNames(x.profile.frames).filter((_, f) => m[f] === 1);
    expect(marked(a, flat.addresses)).toEqual(leaves(a));
    expect(leaves(a).length).toBeGreaterThan(3);
    // Inverted (addresses at the roots, the image at the leaves), the table's rows are the same.
    const inverted = (await s.apply(workerViewOf({ ...DEFAULT_VIEW, inverted: true }))).analysis!;
    const flatInv = flatFunctions({ ...inverted, profile: toPageProfile(inverted.profile) })!;
    expect(marked(inverted, flatInv.addresses)).toEqual(leaves(inverted));
    expect(flatInv.functions!.self[findFrame(inverted.profile.frames, 'spin')]).toBe(10);
    const before2 = await s.add([dcpi], workerViewOf(DEFAULT_VIEW));
    const b = before2.analysis!;
    const flatB = flatFunctions({ ...b, profile: toPageProfile(b.profile) })!;
    expect(flatB.functions).toBeNull();
    expect(marked(b, flatB.addresses)).toEqual(leaves(b));
    expect(frameName(profile.frames, tree.frame[firstChildOf(tree, 0)])).toBe('tiny');
  });
});
