// A refactoring guard for the readers (issue 34): every profile under test/fixtures and the bench
// generators' inputs at a small size, parsed, folded (functions and addresses granularity) and
// analyzed; a digest of the fold (frames, stacks, weights, meta), the call tree and the function
// table of each is compared with test/fixtures/readers-digests.json, recorded by the code before
// the readers were tuned. A file that is not a profile, or that a reader refuses, is recorded by
// its message. Not an oracle check (the per-format tests compare with the oracles): it says only
// that a change to a reader changed nothing it gives.
//
//   UPDATE_DIGESTS=1 npx vitest run test/readers-digest.test.ts     (rewrites the file: only when
//   a reader's output is meant to change, said in the commit)

import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { makeSyntheticPerfScript } from '../bench/gen-perf';
import { makeSyntheticPprof } from '../bench/gen-pprof';
import { benchTextInputs } from '../bench/gen-text';
import { detectFormat } from '../src/core/formats/detect';
import { treeColumns } from '../src/core/model/calltree';
import { frameNames } from '../src/core/model/frames';
import { analyzeBytes } from '../src/core/pipeline';
import type { Granularity } from '../src/core/types';

const ROOT = 'test/fixtures';
const DIGESTS = `${ROOT}/readers-digests.json`;
const GRANS: Granularity[] = ['functions', 'addresses'];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** The digest of what the views get from `bytes` at `gran`, or the reader's message. */
function digestOf(bytes: Uint8Array, name: string, gran: Granularity): string {
  let a: ReturnType<typeof analyzeBytes>;
  try {
    a = analyzeBytes(bytes, { fileName: name, granularity: gran });
  } catch (e) {
    return `error: ${e instanceof Error ? e.message : String(e)}`;
  }
  const h = createHash('sha256');
  const arr = (x: ArrayBufferView) => h.update(new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
  const { profile: p, tree: t, functions: f } = a;
  h.update(frameNames(p.frames).join('\0'));
  h.update('\x01');
  h.update(p.modules.join('\0'));
  arr(p.frames.module);
  arr(p.frames.kind);
  arr(p.stacks.start);
  arr(p.stacks.frames);
  arr(p.stacks.weight);
  const { fileName: _, ...meta } = p.meta;
  // mappingSamples[].of (the weight of every sample counted, for the Symbols panel's shares) is
  // the stacks' weight, digested above: left out, so the digests of before it still hold.
  const mappingSamples = meta.mappingSamples?.map(({ of: _of, ...m }) => m);
  h.update(JSON.stringify({ ...meta, mappingSamples }, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
  for (const col of treeColumns(t)) arr(col);
  h.update(String(t.maxDepth));
  arr(f.self);
  arr(f.total);
  if (f.bySelf) arr(f.bySelf);
  return h.digest('hex');
}

function computeAll(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of filesUnder(ROOT)) {
    const rel = relative(ROOT, file);
    if (rel === 'readers-digests.json') continue;
    const bytes = new Uint8Array(readFileSync(file));
    if (detectFormat(bytes) === null) continue;
    for (const g of GRANS) out[`${rel} @${g}`] = digestOf(bytes, rel, g);
  }
  const dir = mkdtempSync(join(tmpdir(), 'flamelens-digest-'));
  try {
    const perf = join(dir, 'bench.perf.txt');
    makeSyntheticPerfScript(perf, 2);
    const inputs: [string, Uint8Array][] = [
      ['bench:perf-2mb', new Uint8Array(readFileSync(perf))],
      ['bench:pprof-2mb', gzipSync(makeSyntheticPprof(2e6, 1), { level: 1 })],
      ...benchTextInputs(2 * 1024 * 1024).map(({ id, bytes }): [string, Uint8Array] => [
        `bench:${id}-2mb`,
        bytes,
      ]),
    ];
    for (const [id, bytes] of inputs) for (const g of GRANS) out[`${id} @${g}`] = digestOf(bytes, id, g);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

describe('readers: outputs unchanged (digests of fold, tree and table)', () => {
  it('over the fixtures and the bench inputs', () => {
    const now = computeAll();
    if (process.env.UPDATE_DIGESTS === '1') writeFileSync(DIGESTS, `${JSON.stringify(now, null, 1)}\n`);
    const recorded = JSON.parse(readFileSync(DIGESTS, 'utf8')) as Record<string, string>;
    expect(Object.keys(now).length).toBeGreaterThan(100);
    const changed = Object.keys({ ...recorded, ...now }).filter((k) => recorded[k] !== now[k]);
    expect(changed.map((k) => `${k}: ${recorded[k] ?? 'absent'} → ${now[k] ?? 'absent'}`)).toEqual([]);
  }, 600_000);
});
