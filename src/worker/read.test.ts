import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { makeSyntheticProfile } from '../../bench/gen-synthetic';
import { AnalysisSession } from '../core/analysis/session';
import { treeToText } from '../core/model/text-notation';
import type { FoldedProfile } from '../core/types';
import { ProfileError } from '../core/types';
import { DEFAULT_VIEW, workerViewOf } from '../core/view/schema';
import { startHelper } from './prefault';
import { readFiles } from './read';

// Counts the starts of the helper that makes a large tree's memory ready.
vi.mock('./prefault', async (real) => {
  const actual = await real<typeof import('./prefault')>();
  return { ...actual, startHelper: vi.fn() };
});

describe('reading dropped files in the worker', () => {
  it('reads Blobs in chunks into one buffer with progress, and keeps buffers as they are', async () => {
    const big = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
    const seen: number[] = [];
    const out = await readFiles(
      [
        { name: 'a.prof', data: new Blob([big]) },
        { name: 'bin', data: Uint8Array.from([1, 2, 3]).buffer },
      ],
      (f) => seen.push(f),
      { chunk: 64, oneRead: 0 },
    );
    expect(out.map((f) => f.name)).toEqual(['a.prof', 'bin']);
    expect([...out[0].bytes]).toEqual([...big]);
    expect([...out[1].bytes]).toEqual([1, 2, 3]);
    expect(seen).toHaveLength(16);
    expect(seen.at(-1)).toBe(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it('parses a gperftools profile read in chunks while reading it: the session finishes that parse', async () => {
    const prof = new Uint8Array(
      readFileSync(new URL('../../test/fixtures/gperf-own/sorter.prof', import.meta.url)),
    );
    const [f] = await readFiles([{ name: 's.prof', data: new Blob([prof]) }], undefined, {
      chunk: 1000,
      streamFrom: 0,
    });
    expect([...f.bytes]).toEqual([...prof]);
    expect(f.stream).toBeDefined();
    const s = new AnalysisSession();
    const viaStream = await s.add([f], workerViewOf(DEFAULT_VIEW));
    const whole = await new AnalysisSession().add(
      [{ name: 's.prof', bytes: prof }],
      workerViewOf(DEFAULT_VIEW),
    );
    expect(
      treeToText(viaStream.analysis!.tree, viaStream.analysis!.profile as unknown as FoldedProfile),
    ).toBe(treeToText(whole.analysis!.tree, whole.analysis!.profile as unknown as FoldedProfile));
    // Files read whole, and other formats, are parsed at the end as before.
    const [small] = await readFiles([{ name: 's.prof', data: new Blob([prof]) }]);
    expect(small.stream).toBeUndefined();
    const [text] = await readFiles(
      [{ name: 'a.folded', data: new Blob(['main;a 1\n'.repeat(500)]) }],
      undefined,
      {
        chunk: 1000,
        streamFrom: 0,
      },
    );
    expect(text.stream).toBeUndefined();
  });

  it('parses a large profile of long records from its chunks, with no buffer of its size', async () => {
    const prof = new Uint8Array(makeSyntheticProfile(2 << 20, 3));
    const seen: number[] = [];
    const [f] = await readFiles([{ name: 'l.prof', data: new Blob([prof]) }], (x) => seen.push(x), {
      chunk: 4096,
      streamFrom: 0,
    });
    // Only the head is kept (what tells the file's kind); the parse holds the rest.
    expect(f.bytes.length).toBe(4096); // the first chunk's first 64 KB
    expect([...f.bytes]).toEqual([...prof.subarray(0, 4096)]);
    expect(f.size).toBe(prof.length);
    expect(f.stream).toBeDefined();
    expect(seen.at(-1)).toBe(1);
    const view = workerViewOf({ ...DEFAULT_VIEW, granularity: 'addresses' });
    const viaChunks = await new AnalysisSession().add([f], view);
    const whole = await new AnalysisSession().add([{ name: 'l.prof', bytes: prof }], view);
    expect(viaChunks.fileBytes).toBe(prof.length);
    expect(
      treeToText(viaChunks.analysis!.tree, viaChunks.analysis!.profile as unknown as FoldedProfile),
    ).toBe(treeToText(whole.analysis!.tree, whole.analysis!.profile as unknown as FoldedProfile));
    // A read that fails half-way names the file and the byte.
    const blob = new Blob([prof]);
    const slice = blob.slice.bind(blob);
    blob.slice = (start?: number, end?: number) => {
      const part = slice(start, end);
      if ((start ?? 0) >= 1 << 20) part.arrayBuffer = () => Promise.reject(new Error('the disk went away'));
      return part;
    };
    const e = await readFiles([{ name: 'l.prof', data: blob }], undefined, {
      chunk: 4096,
      streamFrom: 0,
    }).catch((x) => x);
    expect(e).toBeInstanceOf(ProfileError);
    expect((e as ProfileError).message).toMatch(
      /^l\.prof: could not read the file \(at byte 1048576\): .*went away/,
    );
  });

  it('parses a heap profile from its chunks as they are read, with no buffer of its size', async () => {
    const heap = new Uint8Array(
      readFileSync(new URL('../../test/fixtures/heap/xz.0001.heap', import.meta.url)),
    );
    const [f] = await readFiles([{ name: 'xz.heap', data: new Blob([heap]) }], undefined, {
      chunk: 1000,
      streamFrom: 0,
    });
    // only the first chunk's head is kept (what tells the file's kind); the parse holds the rest
    expect([...f.bytes]).toEqual([...heap.subarray(0, 1000)]);
    expect(f.size).toBe(heap.length);
    expect(f.stream).toBeDefined();
    const view = workerViewOf({ ...DEFAULT_VIEW, granularity: 'addresses' });
    const viaChunks = await new AnalysisSession().add([f], view);
    const whole = await new AnalysisSession().add([{ name: 'xz.heap', bytes: heap }], view);
    expect(viaChunks.fileBytes).toBe(heap.length);
    expect(viaChunks.analysis!.profile.meta.mappings).toEqual(whole.analysis!.profile.meta.mappings);
    expect(
      treeToText(viaChunks.analysis!.tree, viaChunks.analysis!.profile as unknown as FoldedProfile),
    ).toBe(treeToText(whole.analysis!.tree, whole.analysis!.profile as unknown as FoldedProfile));
  });

  it('starts the tree memory helper for a large file only when the view may ask for that memory', async () => {
    const large = { name: 'big.folded', data: new Blob([new Uint8Array(64 << 20)]) };
    vi.mocked(startHelper).mockClear();
    await readFiles([large], undefined, {}, false);
    expect(startHelper).not.toHaveBeenCalled();
    await readFiles([{ name: 'small', data: new Blob([new Uint8Array(1 << 20)]) }], undefined, {}, true);
    expect(startHelper).not.toHaveBeenCalled();
    await readFiles([large], undefined, {}, true);
    expect(startHelper).toHaveBeenCalledTimes(1);
  });

  it('names a file that cannot be read', async () => {
    const broken = new Blob([new Uint8Array(10)]);
    broken.arrayBuffer = () => Promise.reject(new Error('NotReadableError: the file was moved'));
    const e = await readFiles([{ name: 'gone.prof', data: broken }]).catch((x) => x);
    expect(e).toBeInstanceOf(ProfileError);
    expect((e as ProfileError).message).toMatch(
      /^gone\.prof: could not read the file \(at byte 0\): .*moved/,
    );
  });

  it('samples a gperftools profile past the size it reads whole, and says so', async () => {
    const prof = new Uint8Array(
      readFileSync(new URL('../../test/fixtures/gperf-own/sorter.prof', import.meta.url)),
    );
    const [f] = await readFiles([{ name: 'big.prof', data: new Blob([prof]) }], undefined, {
      maxWhole: 4096,
      sampledBudget: Math.ceil(prof.length / 4),
      chunk: 1000,
    });
    expect(f.bytes.length).toBeLessThan(prof.length / 2);
    expect(f.warnings?.[0].message).toMatch(/^showing 1 in 4 records: /);
    const other = await readFiles(
      [{ name: 'big.txt', data: new Blob([new Uint8Array(5000).fill(65)]) }],
      undefined,
      {
        maxWhole: 4096,
      },
    ).catch((e) => e);
    expect(other).toBeInstanceOf(ProfileError);
    expect((other as ProfileError).message).toMatch(
      /^big\.txt: .* only gperftools CPU profiles can be sampled/,
    );
  });
});
