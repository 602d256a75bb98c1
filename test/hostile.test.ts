// Files from strangers (issue 33), through the CLI: each fixture of test/fixtures/hostile/ (made by
// test/fixtures/src/make_hostile_fixtures.ts, checked here to be what it makes) ends in a result or
// a clear message, status 1 at most; `flamelens bundle` packs only the ELF objects a crafted maps
// text names that are files to pack. No test here is timed (a CLI's start alone took 2.5 s on a
// loaded machine): what each fixture would make run away (a regexp's backtracking over 40,000
// characters, a bomb inflated whole) would not end within the test's timeout, and the messages show
// where each was stopped.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANIFEST, openBundle } from '../src/core/bundle/bundle';
import { decodeView } from '../src/core/view/schema';
import { CONTROL_NAMES, CRAFTED_PATHS, HOSTILE } from './fixtures/src/make_hostile_fixtures';
import { runCli } from './helpers/cli';

const DIR = 'test/fixtures/hostile';
const at = (name: string) => join(DIR, name);

describe('hostile fixtures', () => {
  it('are what the committed script makes', () => {
    for (const [name, make] of Object.entries(HOSTILE))
      expect(Buffer.compare(Buffer.from(make()), readFileSync(at(name))), name).toBe(0);
  });

  it('drop_frames (a+)+$: RE2 answers in linear time, the profile folds', async () => {
    const r = await runCli(['fold', at('dropframes-redos.pb.gz')]);
    expect(r.code, r.err).toBe(0);
    // `aaaa` matches ^((a+)+$)$ and is dropped; `a…ab` does not and stays.
    expect(r.out.split('\n')).toContain('main 1');
    expect(r.out).toContain(`main;${'a'.repeat(40_000)}b;leaf 1`);
  });

  it('a q= link with the same pattern: the search answers (RE2: no backtracking)', async () => {
    const link = readFileSync(at('redos-link.txt'), 'utf8').trim();
    const view = decodeView(link);
    expect(view.search).toEqual({ text: '(a+)+$', regex: true });
    const { compileQuery, matchFrames } = await import('../src/core/model/search');
    const m = compileQuery(view.search);
    expect(m?.ok).toBe(true);
    if (!m?.ok) return;
    const hits = matchFrames([`${'a'.repeat(100_000)}b`, 'aaa', 'main'], m.test);
    expect(Array.from(hits)).toEqual([0, 1, 0]);
  });

  it('names with controls: fold escapes them (no ESC, no forged line), and reads back', async () => {
    const r = await runCli(['fold', at('names-controls.pb.gz')]);
    expect(r.code, r.err).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: what must not reach a terminal
    expect(r.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    const lines = r.out.trim().split('\n');
    expect(lines).toHaveLength(CONTROL_NAMES.length);
    expect(lines).toContain('main;split\\x0afake\\x3bstack\\x201000 1');
    expect(lines).toContain('main;admin\\u202etxt.exe 1');
    // The folded text reads back to the same names.
    const dir = mkdtempSync(join(tmpdir(), 'flamelens-names-'));
    try {
      writeFileSync(join(dir, 'x.folded'), r.out);
      const again = await runCli(['info', join(dir, 'x.folded')]);
      expect(again.code, again.err).toBe(0);
      const back = await runCli(['fold', join(dir, 'x.folded')]);
      expect(back.out).toBe(r.out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a gzip bomb is stopped while inflating, saying the limit', async () => {
    const r = await runCli(['info', at('gzip-bomb.prof.gz')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/inflates more than 500 times its compressed size \(64 MiB from \d+ bytes\)/);
  });

  it('a pprof whose lengths declare far more than its bytes hold is refused at once', async () => {
    const r = await runCli(['info', at('pprof-many-samples.pb')]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /damaged pprof profile: a field of 100000000 bytes runs past the end of its message/,
    );
  });

  it('a count of 320 digits: the sample is left out with a warning; fold and proto work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'flamelens-inf-'));
    try {
      writeFileSync(join(dir, 'inf.folded'), `a;b 1\nc;d ${'9'.repeat(320)}\ne 2\n`);
      const r = await runCli(['fold', join(dir, 'inf.folded')]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe('a;b 1\ne 2\n');
      expect(r.err).toContain(
        '1 sample left out: a value that is not a number or is beyond ±2^63 (the first: sample 2)',
      );
      const p = await runCli(['proto', join(dir, 'inf.folded'), '-o', join(dir, 'x.pb.gz')]);
      expect(p.code, p.err).toBe(0);
      const back = await runCli(['fold', join(dir, 'x.pb.gz')]);
      expect(back.out).toBe(r.out);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('flamelens bundle of a crafted maps text', () => {
  let dir = '';
  let root = '';
  const prof = () => at('crafted-maps.prof');
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'flamelens-crafted-'));
    root = join(dir, 'root');
    mkdirSync(join(root, 'opt/flamelens-corpus/bin'), { recursive: true });
    symlinkSync(
      join(process.cwd(), 'test/fixtures/gperf/bin/tiny'),
      join(root, 'opt/flamelens-corpus/bin/tiny'),
    );
    execFileSync('mkfifo', [join(root, 'opt/flamelens-corpus/fifo')]);
    writeFileSync(join(root, 'opt/flamelens-corpus/notes.txt'), 'private notes\n');
    mkdirSync(join(root, 'etc'));
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('packs the ELF object only, lists it, refuses the rest, and its manifest keeps no host or reasons', async () => {
    const out = join(dir, 'b.zip');
    const r = await runCli(['bundle', prof(), '-o', out, '--root', root]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^flamelens: packed \/opt\/flamelens-corpus\/bin\/tiny \(\d+ bytes\)$/m);
    const why = (p: string) =>
      new RegExp(`not bundled: ${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: (.*)$`, 'm').exec(r.err)?.[1];
    expect(why('/proc/self/exe')).toBe('under /proc, /sys or /dev: not an object file');
    expect(why('/dev/zero')).toBe('under /proc, /sys or /dev: not an object file');
    expect(why('/opt/flamelens-corpus/fifo')).toBe('not a regular file');
    expect(why('/opt/flamelens-corpus/../../etc/passwd')).toBe('a path that climbs (`..`)');
    expect(why('/opt/flamelens-corpus/notes.txt')).toBe('not an ELF file');
    const opened = openBundle({ name: 'b.zip', bytes: new Uint8Array(readFileSync(out)) });
    expect(opened.symbols.map((s) => s.name)).toEqual(['/opt/flamelens-corpus/bin/tiny']);
    const manifest = opened.manifest!;
    expect(manifest.files.map((f) => f.path)).toEqual(['/opt/flamelens-corpus/bin/tiny']);
    expect(manifest.missing.map((m) => m.path).sort()).toEqual(
      CRAFTED_PATHS.filter((p) => p !== '/opt/flamelens-corpus/bin/tiny').sort(),
    );
    expect(new Set(manifest.missing.map((m) => m.why))).toEqual(new Set(['not bundled']));
    const text = new TextDecoder().decode(
      (await import('fflate')).unzipSync(new Uint8Array(readFileSync(out)))[MANIFEST],
    );
    expect(text).not.toMatch(/"host"/);
  });

  it('--dry-run lists what it would pack and writes nothing', async () => {
    const out = join(dir, 'dry.zip');
    const r = await runCli(['bundle', prof(), '-o', out, '--root', root, '--dry-run']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^flamelens: would pack \/opt\/flamelens-corpus\/bin\/tiny \(\d+ bytes\)$/m);
    expect(r.err).toContain(`flamelens: --dry-run: ${out} not written`);
    expect(() => readFileSync(out)).toThrow();
  });
});
