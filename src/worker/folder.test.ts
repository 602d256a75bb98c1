// Drops with folders, in node (dropFiles is the worker's drop): a folder's files are Blobs; only
// those that symbolize the profile are read whole. The profile comes with the folder, is open
// already, or is found in it.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTextBenchInput } from '../../bench/gen-text';
import { AnalysisSession } from '../core/analysis/session';
import { TEXT_PREVIEW_FROM } from '../core/formats/text-preview';
import { frameNames } from '../core/model/frames';
import { ProfileError } from '../core/types';
import { DEFAULT_VIEW, workerViewOf } from '../core/view/schema';
import { dropFiles } from './folder';
import type { FileBuffer } from './protocol';

const FIX = 'test/fixtures';
const V = workerViewOf(DEFAULT_VIEW);
const noProgress = () => {};

/** A folder of the fixtures, as the page sends it: each file a Blob named by its path. */
function folder(dir: string, counted: Set<string>): FileBuffer[] {
  const out: FileBuffer[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const name = relative(join(dir, '..'), p);
        const blob = new Blob([readFileSync(p)]);
        // Count whole reads: arrayBuffer() of the Blob itself (heads read a slice of it).
        const whole = blob.arrayBuffer.bind(blob);
        blob.arrayBuffer = () => {
          counted.add(name);
          return whole();
        };
        out.push({ name, data: blob, inFolder: dir.split('/').pop() });
      }
    }
  };
  walk(dir);
  return out;
}
const blobOf = (path: string): FileBuffer => ({
  name: path.split('/').pop()!,
  data: new Blob([readFileSync(join(FIX, path))]),
});

describe('dropFiles with a folder', () => {
  it('a profile with a sysroot folder: the x86_64 objects and debug files read, nothing else', async () => {
    const read = new Set<string>();
    const files = [blobOf('gperf/threads.prof'), ...folder(join(FIX, 'sysroot'), read)];
    const { result, folder: note } = await dropFiles(new AnalysisSession(), files, V, 'main', noProgress);
    expect(result.newProfile).toBe(true);
    expect(frameNames(result.analysis!.profile.frames)).toContain('start_thread');
    expect(note!.read.sort()).toEqual([...read].sort());
    expect([...read].some((p) => p.includes('i386'))).toBe(false);
    expect(note!.files).toBe(18);
    expect(note!.read.length).toBeLessThan(note!.files);
    expect(files).toEqual([]);
  });

  it('a folder alone, with a profile open: symbols for it; with none open and no profile in it: a clear error', async () => {
    const s = new AnalysisSession();
    await dropFiles(s, [blobOf('gperf/tiny.prof')], V, 'main', noProgress);
    const { result } = await dropFiles(s, folder(join(FIX, 'gperf/bin'), new Set()), V, 'main', noProgress);
    expect(result.newProfile).toBe(false);
    expect(frameNames(result.analysis!.profile.frames)).toContain('gamma_');
    await expect(
      dropFiles(new AnalysisSession(), folder(join(FIX, 'sysroot'), new Set()), V, 'main', noProgress),
    ).rejects.toThrow(
      /sysroot: a folder gives symbols to a profile: open the profile first, or drop it with the folder/,
    );
    const other = new AnalysisSession();
    await dropFiles(other, [blobOf('gperf/tiny.prof')], V, 'main', noProgress);
    const err = await dropFiles(other, folder(join(FIX, 'dcpi'), new Set()), V, 'main', noProgress).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ProfileError);
    expect(err.message).toMatch(
      /^dcpi: none of its \d+ files is an object the profile maps \(it looks for tiny, /,
    );
  });

  it('a folder holding profiles and binaries, nothing open: the first profile near its top opens, symbolized', async () => {
    // What a user copies from a server: folded text, the profile, an older one, the program.
    const srv = (name: string, path: string): FileBuffer => ({
      name: `srv/${name}`,
      data: new Blob([readFileSync(join(FIX, path))]),
      inFolder: 'srv',
    });
    const files = [
      srv('a.folded', 'folded/simple.folded'),
      srv('threads.prof', 'gperf/threads.prof'),
      srv('old/tiny.prof', 'gperf/tiny.prof'),
      srv('bin/threads', 'gperf/bin/threads'),
    ];
    const { result, folder: note } = await dropFiles(new AnalysisSession(), files, V, 'main', noProgress);
    expect(result.newProfile).toBe(true);
    const meta = result.analysis!.profile.meta;
    expect(meta.fileName).toBe('threads.prof');
    expect(result.fileBytes).toBe(readFileSync(join(FIX, 'gperf/threads.prof')).length);
    expect(meta.warnings.map((w) => w.message)).toContain(
      'srv holds other profiles too (srv/old/tiny.prof, srv/a.folded): opened srv/threads.prof',
    );
    expect(result.symbols?.report.matched.map((m) => m.elfFile)).toEqual(['srv/bin/threads']);
    expect(note!.read).toEqual(['srv/bin/threads']);
  });
});

describe('dropFiles with a large text profile alone', () => {
  /**
   * A Blob whose whole read waits for the first picture (or 20 s): `order` says which came first.
   * Its slices read at once.
   */
  function heldUntilPreview(bytes: Uint8Array<ArrayBuffer>, session: AnalysisSession, order: string[]): Blob {
    const blob = new Blob([bytes]);
    let pictured: () => void = () => {};
    const shown = new Promise<void>((resolve) => {
      pictured = resolve;
    });
    session.onPreview = (a) => {
      order.push(a.sampledEvery ? `sampled preview${a.diff ? ', a comparison' : ''}` : 'coarse tree');
      pictured();
    };
    const whole = blob.arrayBuffer.bind(blob);
    blob.arrayBuffer = async () => {
      await Promise.race([shown, new Promise((r) => setTimeout(r, 20_000))]);
      order.push('file read');
      return whole();
    };
    return blob;
  }

  it('opens as before when its windows cannot be read: the importer pictures it once read', async () => {
    const bytes = makeTextBenchInput('folded', TEXT_PREVIEW_FROM + (1 << 20)).slice();
    const session = new AnalysisSession();
    const order: string[] = [];
    const data = new Blob([bytes]);
    data.slice = () => {
      throw new Error('no slices of this file');
    };
    session.onPreview = (a) => order.push(a.sampledEvery ? 'sampled preview' : 'coarse tree');
    const { result } = await dropFiles(session, [{ name: 'big.folded', data }], V, 'main', noProgress);
    expect(order.filter((o) => o !== 'coarse tree')).toEqual(['sampled preview']);
    expect(result.analysis!.profile.meta.fileName).toBe('big.folded');
  });

  it('is pictured from windows of it before the whole file is read, once, then opened whole', async () => {
    for (const [id, name, mode] of [
      ['folded', 'big.folded', 'graph'],
      ['difffolded', 'big.difffolded', 'graph'],
    ] as const) {
      const bytes = makeTextBenchInput(id, TEXT_PREVIEW_FROM + (1 << 20)).slice();
      const session = new AnalysisSession();
      const order: string[] = [];
      const data = heldUntilPreview(bytes, session, order);
      const { result } = await dropFiles(
        session,
        [{ name, data }],
        workerViewOf({ ...DEFAULT_VIEW, mode }),
        'main',
        noProgress,
      );
      const want = id === 'difffolded' ? 'sampled preview, a comparison' : 'sampled preview';
      // the importer draws no second sampled picture once the file is read
      expect(
        order.filter((o) => o !== 'coarse tree'),
        id,
      ).toEqual([want, 'file read']);
      // the whole file opened, as a drop of its bytes does
      const again = new AnalysisSession();
      const { result: direct } = await dropFiles(
        again,
        [{ name, data: bytes.slice().buffer }],
        workerViewOf({ ...DEFAULT_VIEW, mode }),
        'main',
        noProgress,
      );
      expect(result.analysis!.profile.meta.totalSamples, id).toBe(direct.analysis!.profile.meta.totalSamples);
      expect(result.analysis!.tree.count, id).toBe(direct.analysis!.tree.count);
    }
  });
});
