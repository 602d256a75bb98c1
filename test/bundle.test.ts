// `flamelens bundle` and opening bundles (issue 17): every corpus profile bundled against a copy of
// its machine's files (test/fixtures/sysroot and the corpus binaries at the paths the profiles map
// them from, through --root), then folded from the bundle alone: the same symbolized stacks as the
// profile folded with the same files given by hand. Damaged bundles: clear errors, nothing else lost.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sortInputs } from '../src/core/analysis/inputs';
import { expandBundles, MANIFEST, openBundle, writeBundle } from '../src/core/bundle/bundle';
import { readTar } from '../src/core/bundle/tar';
import { readZip } from '../src/core/bundle/zip';
import { writePprof } from '../src/core/formats/pprof-write';
import { foldProfile } from '../src/core/model/fold';
import { parse } from '../src/core/pipeline';
import { symbolizerFromFiles } from '../src/core/symbols/symbolize';
import { ProfileError } from '../src/core/types';
import { runCli } from './helpers/cli';
import { CORPUS_PROFILES, corpusMachine } from './helpers/corpus';

const FIX = resolve('test/fixtures');
let tmp = '';
let root = '';

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'flamelens-bundle-'));
  root = corpusMachine(tmp);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The files a profile maps, found under the root the way the bundle looks for them (by hand). */
function byHand(prof: string): string[] {
  const { raw } = parse(new Uint8Array(readFileSync(prof)), 'p');
  const out: string[] = [];
  for (const m of raw.meta.mappings) {
    if (!m.path.startsWith('/')) continue;
    const onRoot = join(root, m.path);
    if (!out.includes(onRoot)) out.push(onRoot);
  }
  // Their debug files, by build-id (what a user copying /usr/lib/debug/.build-id would drop).
  const ids = join(root, 'usr/lib/debug/.build-id');
  for (const d of readdirSync(ids)) for (const f of readdirSync(join(ids, d))) out.push(join(ids, d, f));
  return out;
}

describe('flamelens bundle, then fold the bundle alone', () => {
  for (const name of CORPUS_PROFILES) {
    it(`${name}: the same symbolized stacks as the files dropped by hand`, async () => {
      const prof = join(FIX, 'gperf', `${name}.prof`);
      const zip = join(tmp, `${name}.flamelens.zip`);
      const made = await runCli(['bundle', prof, '-o', zip, '--root', root]);
      expect(made.code, made.err).toBe(0);
      const fromBundle = await runCli(['fold', zip]);
      expect(fromBundle.code, fromBundle.err).toBe(0);
      const files = byHand(prof);
      const manual = await runCli(['fold', prof, ...files.flatMap((f) => ['--binary', f])]);
      expect(manual.code).toBe(0);
      expect(fromBundle.out).toBe(manual.out);
      // Symbolized for real: the program's own functions are named.
      expect(fromBundle.out).toMatch(/(^|;)main;/m);
      // The bundle holds what the profile maps and nothing of the host's own /usr.
      const opened = openBundle({ name: 'b.zip', bytes: new Uint8Array(readFileSync(zip)) });
      expect(opened.profiles.map((p) => p.name)).toEqual([`${name}.prof`]);
      expect(opened.warnings).toEqual([]);
      for (const f of opened.symbols) expect(f.name.startsWith('/')).toBe(true);
    });
  }

  it('records each object’s build-id and packs debug files found by build-id; --no-debug leaves them out', async () => {
    const prof = join(FIX, 'gperf/cxx_demangle.prof');
    const zip = join(tmp, 'nodebug.zip');
    expect((await runCli(['bundle', prof, '-o', zip, '--root', root, '--no-debug'])).code).toBe(0);
    const plain = openBundle({ name: 'b', bytes: new Uint8Array(readFileSync(zip)) }).manifest!;
    expect(plain.files.some((f) => f.debugFor)).toBe(false);
    const full = join(tmp, 'cxx_demangle.flamelens.zip');
    expect((await runCli(['bundle', prof, '-o', full, '--root', root])).code).toBe(0);
    const m = openBundle({ name: 'b', bytes: new Uint8Array(readFileSync(full)) }).manifest!;
    const libc = m.files.find((f) => f.path === '/usr/lib/x86_64-linux-gnu/libc.so.6')!;
    expect(libc.buildId).toBe('93ac61ec5a8eb1396f9fbd350e3169a558528a40');
    expect(m.files.find((f) => f.debugFor === libc.path)?.path).toBe(
      '/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug',
    );
    // Static functions of libc come from that debug file only.
    const withDebug = await runCli(['fold', full, '--addresses']);
    const noDebug = await runCli(['fold', zip, '--addresses']);
    expect(withDebug.out).not.toBe(noDebug.out);
  });

  it('warns about objects it cannot find, and --max-size leaves big files out with a warning', async () => {
    const prof = join(FIX, 'gperf/tiny.prof');
    const zip = join(tmp, 'small.zip');
    const r = await runCli(['bundle', prof, '-o', zip, '--root', join(FIX, 'sysroot'), '--max-size', '1M']);
    expect(r.code).toBe(0);
    // Not found where it was looked for: under the root given.
    expect(r.err).toContain(
      `not bundled: /opt/flamelens-corpus/bin/tiny: not found under ${join(FIX, 'sysroot')}`,
    );
    expect(r.err).toMatch(
      /not bundled: \/usr\/lib\/x86_64-linux-gnu\/libc\.so\.6: \d+ bytes, over --max-size 1048576/,
    );
    // Opening it says what is missing.
    const folded = await runCli(['fold', zip]);
    expect(folded.code).toBe(0);
    expect(folded.err).toContain('the bundle lacks /opt/flamelens-corpus/bin/tiny (not bundled)');
    expect(folded.out).toContain('[tiny]');
  });

  it('a bundle of two profiles opens the first, names the other, and --profile picks one', async () => {
    const a = join(FIX, 'gperf/tiny.prof');
    const b = join(FIX, 'gperf/threads.prof');
    const zip = join(tmp, 'two.zip');
    expect((await runCli(['bundle', a, b, '-o', zip, '--root', root])).code).toBe(0);
    const first = await runCli(['fold', zip]);
    expect(first.err).toContain('holds 2 profiles; showing tiny.prof (the others: threads.prof)');
    const second = await runCli(['fold', zip, '--profile', 'threads.prof']);
    const direct = await runCli(['fold', b, ...byHand(b).flatMap((f) => ['--binary', f])]);
    expect(second.out).toBe(direct.out);
    const none = await runCli(['fold', zip, '--profile', 'nope.prof']);
    expect(none.code).toBe(1);
    expect(none.err).toContain('holds no profile named nope.prof (it holds: tiny.prof, threads.prof)');
  });
});

describe('bundles and build-ids', () => {
  const libcPath = '/usr/lib/x86_64-linux-gnu/libc.so.6';
  const libc = () => new Uint8Array(readFileSync(join(FIX, 'sysroot', libcPath)));
  const prof = () => new Uint8Array(readFileSync(join(FIX, 'gperf/tiny.prof')));

  it('a file whose build-id differs from the one recorded for its path is reported and not used', () => {
    const bytes = writeBundle({
      profiles: [{ name: 'tiny.prof', bytes: prof() }],
      files: [{ path: libcPath, bytes: libc(), buildId: '00112233445566778899aabbccddeeff00112233' }],
      missing: [],
    });
    const files = expandBundles([{ name: 'b.zip', bytes }]);
    const { raw } = parse(files[0].bytes, files[0].name);
    const { report } = symbolizerFromFiles(raw.meta.mappings, files.slice(1));
    expect(report.matched.map((m) => m.mappingPath)).not.toContain(libcPath);
    expect(report.mismatched).toEqual([
      {
        mappingPath: libcPath,
        mappingBuildId: '00112233445566778899aabbccddeeff00112233',
        elfFile: libcPath,
        fileBuildId: '93ac61ec5a8eb1396f9fbd350e3169a558528a40',
      },
    ]);
    expect(report.warnings.join('\n')).toContain('differs from');
  });

  it('a host file of another build dropped beside a bundle is not used for the bundle’s mapping', () => {
    const bytes = writeBundle({
      profiles: [{ name: 'tiny.prof', bytes: prof() }],
      files: [],
      missing: [],
    });
    // The bundle recorded libc's build-id without packing it (as if --max-size left it out): here a
    // manifest-only record, through a file entry of the same path with another build.
    const files = expandBundles([{ name: 'b.zip', bytes }]);
    files.push({ name: 'libc.so.6', bytes: libc() });
    files.push({ name: libcPath, bytes: new Uint8Array(0), recordedBuildId: 'ff'.repeat(20) });
    const { raw } = parse(files[0].bytes, files[0].name);
    const { report } = symbolizerFromFiles(raw.meta.mappings, files.slice(1));
    expect(report.mismatched.map((m) => m.mappingPath)).toEqual([libcPath]);
  });

  it('of two files named libc.so.6 (a sysroot’s i386 and x86_64), the one on the mapping’s path is used', () => {
    const p32 = new Uint8Array(readFileSync(join(FIX, 'gperf/tiny32.prof')));
    const { raw } = parse(p32, 'tiny32.prof');
    const both = ['x86_64-linux-gnu', 'i386-linux-gnu'].map((d) => ({
      name: `sysroot/usr/lib/${d}/libc.so.6`,
      bytes: new Uint8Array(readFileSync(join(FIX, `sysroot/usr/lib/${d}/libc.so.6`))),
    }));
    const { report } = symbolizerFromFiles(raw.meta.mappings, both);
    expect(report.matched).toContainEqual({
      mappingPath: '/usr/lib/i386-linux-gnu/libc.so.6',
      elfFile: 'sysroot/usr/lib/i386-linux-gnu/libc.so.6',
      by: 'path',
    });
  });
});

describe('damaged bundles: clear errors, the rest still opens', () => {
  const prof = () => new Uint8Array(readFileSync(join(FIX, 'gperf/tiny.prof')));
  const lib = () => new Uint8Array(readFileSync(join(FIX, 'gperf/bin/tiny')));
  const good = () =>
    writeBundle({
      profiles: [{ name: 'tiny.prof', bytes: prof() }],
      files: [{ path: '/opt/flamelens-corpus/bin/tiny', bytes: lib() }],
      missing: [],
    });

  it('a member with damaged data: that member is an error with its offset, the profile still opens', () => {
    const b = good();
    const z = readZip(b, 'b.zip');
    expect(z.errors).toEqual([]);
    // Flip bytes in the middle of the binary's compressed data.
    const names = z.members.map((m) => m.name);
    expect(names).toContain('files/opt/flamelens-corpus/bin/tiny');
    const at = b.length - 2000;
    for (let i = 0; i < 64; i++) b[at + i] ^= 0x5a;
    const opened = openBundle({ name: 'b.zip', bytes: b });
    expect(opened.profiles.map((p) => p.name)).toEqual(['tiny.prof']);
    // Members are unpacked when wanted: the damage shows when the object is read…
    expect(opened.warnings).toEqual([]);
    expect(() => opened.symbols[0].bytes).toThrow(/^files\/opt\/flamelens-corpus\/bin\/tiny: damaged: /);
    // …which the analysis does for an object the profile maps: a warning of the profile's, at its offset.
    const sorted = sortInputs([{ name: 'b.zip', bytes: b }]);
    const w = sorted.profile?.loaded.raw.warnings.find((x) => x.message.includes('damaged'));
    expect(w?.message).toMatch(/^b\.zip: files\/opt\/flamelens-corpus\/bin\/tiny: damaged: /);
    expect(w?.offset).toBeGreaterThan(0);
    expect(sorted.symbols).toEqual([]);
  });

  it('a zip bomb (a member claiming more than the cap) is refused before inflating', () => {
    const big = new Uint8Array(4 << 20); // zeros: compress to a few KB
    const b = zipSync({ 'profiles/tiny.prof': prof(), 'files/bomb.so': big });
    const z = readZip(b, 'bomb.zip', { member: 1 << 20 });
    expect(z.members.map((m) => m.name)).toEqual(['profiles/tiny.prof']);
    expect(z.errors[0].message).toBe(
      `files/bomb.so: not unpacked: it claims ${4 << 20} bytes, more than the cap of ${1 << 20} (a zip bomb?)`,
    );
    // A member lying about its size (claims little, inflates to much) fails its CRC, nothing more.
    const liar = zipSync({ 'x.txt': big });
    const dir = liar.length - 22 - (46 + 5);
    new DataView(liar.buffer).setUint32(dir + 24, 100, true);
    const l = readZip(liar, 'liar.zip');
    expect(l.errors).toEqual([]);
    expect(() => l.members[0].bytes).toThrow('x.txt: damaged');
  });

  it('members named with ../ or an absolute path are refused; the others open', () => {
    const b = zipSync({
      'profiles/tiny.prof': prof(),
      '../../etc/evil.so': lib(),
      'files/../../x.so': lib(),
      '/abs.so': lib(),
    });
    const opened = openBundle({ name: 'evil.zip', bytes: b });
    expect(opened.profiles.map((p) => p.name)).toEqual(['tiny.prof']);
    expect(opened.symbols).toEqual([]);
    expect(opened.warnings.map((w) => w.message)).toEqual([
      'evil.zip: ../../etc/evil.so: not unpacked: its name climbs out of the archive (`..`)',
      'evil.zip: files/../../x.so: not unpacked: its name climbs out of the archive (`..`)',
      'evil.zip: /abs.so: not unpacked: its name is an absolute path',
    ]);
  });

  it('a zip cut short, or with an unreadable manifest: errors that say so', () => {
    const b = good();
    expect(() => openBundle({ name: 'cut.zip', bytes: b.subarray(0, b.length >> 1) })).toThrow(ProfileError);
    try {
      openBundle({ name: 'cut.zip', bytes: b.subarray(0, b.length >> 1) });
    } catch (e) {
      expect((e as ProfileError).describe()).toMatch(
        /^cut\.zip: not a readable zip archive: no end-of-directory record \(cut short\?\) \(at byte \d+\)$/,
      );
    }
    const bad = zipSync({ [MANIFEST]: strToU8('{not json'), 'profiles/tiny.prof': prof() });
    const opened = openBundle({ name: 'm.zip', bytes: bad });
    expect(opened.profiles.map((p) => p.name)).toEqual(['tiny.prof']);
    expect(opened.warnings[0].message).toMatch(/^m\.zip: flamelens-bundle\.json is unreadable/);
  });

  it('a bundled profile that does not open is named in the error, its offset its own', async () => {
    const dcpi = new Uint8Array(readFileSync(join(FIX, 'dcpi/bad_chunk_past_eof.dcpi')));
    const b = zipSync({ 'profiles/chunks.dcpi': dcpi, 'files/opt/flamelens-corpus/bin/tiny': lib() });
    const want =
      'chunks.dcpi: Chunk 2 (offset 0x10) claims 5 counts, but only 3 fit before the footer: the file is truncated or damaged. (at byte 212)';
    const sorted = sortInputs([{ name: 'b.zip', bytes: b }]);
    expect(sorted.profile).toBeNull();
    expect((sorted.firstError as ProfileError).describe()).toBe(want);
    const p = join(tmp, 'bad-member.zip');
    writeFileSync(p, b);
    const r = await runCli(['fold', p]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`flamelens: ${p}: ${want}\n`);
    // A loose file's error is as it was: the file is named once, by the CLI.
    const loose = join(tmp, 'chunks.dcpi');
    writeFileSync(loose, dcpi);
    expect((await runCli(['fold', loose])).err).toBe(
      `flamelens: ${loose}: ${want.slice('chunks.dcpi: '.length)}\n`,
    );
  });

  it("fold names a bundled profile beside the bundle in the profile's warnings", async () => {
    const cut = new Uint8Array(readFileSync(join(FIX, 'bad/truncated_mid_record.prof')));
    const p = join(tmp, 'cut-member.zip');
    writeFileSync(p, zipSync({ 'profiles/cut.prof': cut }));
    const r = await runCli(['fold', p]);
    expect(r.code).toBe(0);
    const lines = r.err.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.startsWith(`flamelens: ${p}: cut.prof: warning: `)).toBe(true);
    expect(lines[0]).toMatch(/truncated at byte 80: .* \(at byte 80\)$/);
  });

  it('the CLI says what is wrong with a damaged bundle and exits 1', async () => {
    const b = good();
    const p = join(tmp, 'cut.zip');
    writeFileSync(p, b.subarray(0, b.length - 10));
    const r = await runCli(['fold', p]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('not a readable zip archive');
  });
});

describe('tar bundles (the README’s shell script)', () => {
  it('scripts/flamelens-bundle.sh packs what `flamelens bundle` packs: the same stacks', async () => {
    const { execFileSync } = await import('node:child_process');
    const prof = join(FIX, 'gperf/cxx_demangle.prof');
    const tgz = join(tmp, 'script.tar.gz');
    execFileSync('sh', ['scripts/flamelens-bundle.sh', tgz, prof], { env: { ...process.env, ROOT: root } });
    const zip = join(tmp, 'script-ref.zip');
    expect((await runCli(['bundle', prof, '-o', zip, '--root', root])).code).toBe(0);
    const a = await runCli(['fold', tgz]);
    expect(a.code, a.err).toBe(0);
    expect(a.out).toBe((await runCli(['fold', zip])).out);
  });

  it('reads what `tar -czf` wrote: profiles/ and files/ by path', async () => {
    const { execFileSync } = await import('node:child_process');
    const dir = join(tmp, 'tarsrc');
    mkdirSync(join(dir, 'profiles'), { recursive: true });
    mkdirSync(join(dir, 'files/opt/flamelens-corpus/bin'), { recursive: true });
    writeFileSync(join(dir, 'profiles/tiny.prof'), readFileSync(join(FIX, 'gperf/tiny.prof')));
    writeFileSync(
      join(dir, 'files/opt/flamelens-corpus/bin/tiny'),
      readFileSync(join(FIX, 'gperf/bin/tiny')),
    );
    const out = join(tmp, 'b.tar.gz');
    execFileSync('tar', ['-czf', out, '-C', dir, 'profiles', 'files']);
    const bytes = new Uint8Array(readFileSync(out));
    const opened = openBundle({ name: 'b.tar.gz', bytes });
    expect(opened.profiles.map((p) => p.name)).toEqual(['tiny.prof']);
    expect(opened.symbols.map((s) => s.name)).toEqual(['/opt/flamelens-corpus/bin/tiny']);
    const r = await runCli(['fold', out]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/(^|;)main;/m);
    // A cut tar: what was read is kept, the cut member is an error.
    const plain = join(tmp, 'b.tar');
    execFileSync('tar', ['-cf', plain, '-C', dir, 'profiles', 'files']);
    const t = new Uint8Array(readFileSync(plain));
    // Cut 100 bytes into the binary's data (its ELF magic starts it).
    let elfAt = 0;
    while (!(t[elfAt] === 0x7f && t[elfAt + 1] === 0x45 && t[elfAt + 2] === 0x4c && t[elfAt + 3] === 0x46))
      elfAt++;
    const cut = readTar(t.subarray(0, elfAt + 100), 'cut.tar');
    expect(cut.members.map((m) => m.name)).toEqual(['profiles/tiny.prof']);
    expect(cut.errors[0].message).toMatch(/tiny: damaged: cut short/);
    // A link is not followed, and said (a binary packed as a link would be missing unsaid).
    const { symlinkSync } = await import('node:fs');
    symlinkSync('tiny', join(dir, 'files/opt/flamelens-corpus/bin/tiny-link'));
    const linked = join(tmp, 'l.tar');
    execFileSync('tar', ['-cf', linked, '-C', dir, 'profiles', 'files']);
    const l = readTar(new Uint8Array(readFileSync(linked)), 'l.tar');
    expect(l.members.map((m) => m.name).sort()).toEqual([
      'files/opt/flamelens-corpus/bin/tiny',
      'profiles/tiny.prof',
    ]);
    expect(l.errors.map((e) => e.message)).toEqual([
      'files/opt/flamelens-corpus/bin/tiny-link: not unpacked: a symbolic link (to tiny); pack the file itself',
    ]);
  });

  it('a link in a tar is said, not followed and not dropped silently; members are copied out only when read', async () => {
    const { execFileSync } = await import('node:child_process');
    const dir = join(tmp, 'tarlinks');
    mkdirSync(join(dir, 'profiles'), { recursive: true });
    mkdirSync(join(dir, 'files/opt'), { recursive: true });
    writeFileSync(join(dir, 'profiles/tiny.prof'), readFileSync(join(FIX, 'gperf/tiny.prof')));
    const { symlinkSync, linkSync } = await import('node:fs');
    symlinkSync('/etc/passwd', join(dir, 'files/opt/passwd'));
    linkSync(join(dir, 'profiles/tiny.prof'), join(dir, 'profiles/again.prof'));
    const out = join(tmp, 'links.tar');
    execFileSync('tar', ['-cf', out, '-C', dir, 'profiles/tiny.prof', 'profiles/again.prof', 'files']);
    const t = readTar(new Uint8Array(readFileSync(out)), 'links.tar');
    expect(t.members.map((m) => m.name)).toEqual(['profiles/tiny.prof']);
    expect(t.errors.map((e) => e.message)).toEqual([
      'profiles/again.prof: not unpacked: a hard link (to profiles/tiny.prof); pack the file itself',
      'files/opt/passwd: not unpacked: a symbolic link (to /etc/passwd); pack the file itself',
    ]);
    const m = t.members[0];
    expect(m.size).toBe(readFileSync(join(FIX, 'gperf/tiny.prof')).length);
    expect(m.bytes).toEqual(new Uint8Array(readFileSync(join(FIX, 'gperf/tiny.prof'))));
    expect(m.bytes).toBe(m.bytes); // copied once, then kept
  });

  it('--fallback-to-host: what the root lacks comes from this machine, unless of another build', async () => {
    const { execFileSync } = await import('node:child_process');
    // A profile mapping a file this machine has (a fixture binary, by its absolute path) and one
    // it has not; the root has neither.
    const bin = join(FIX, 'gperf/bin/tiny');
    const prof = join(tmp, 'host.perf.txt');
    writeFileSync(
      prof,
      `prog 10 1.000001: 1000 cpu-clock: \n\t1000 f+0x1 (${bin})\n\t2000 g+0x1 (/nonexistent/lib.so)\n\n`,
    );
    const empty = join(tmp, 'empty-root');
    mkdirSync(empty, { recursive: true });
    const zip = join(tmp, 'host.zip');
    const plain = await runCli(['bundle', prof, '-o', zip, '--root', empty]);
    expect(plain.code).toBe(0);
    expect(plain.err).toContain(`not bundled: ${bin}: not found under ${empty}\n`);
    const r = await runCli(['bundle', prof, '-o', zip, '--root', empty, '--fallback-to-host']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`note: ${bin}: not under ${empty}: this machine's file bundled\n`);
    expect(r.err).toContain(
      `not bundled: /nonexistent/lib.so: not found under ${empty} or on this machine\n`,
    );
    const m = openBundle({ name: 'b', bytes: new Uint8Array(readFileSync(zip)) }).manifest!;
    const buildId = /Build ID: ([0-9a-f]+)/.exec(
      execFileSync('readelf', ['-n', bin], { encoding: 'utf8' }),
    )![1];
    expect(m.files).toEqual([expect.objectContaining({ path: bin, buildId })]);
    // The manifest names no path of this machine's root, and no reason (it travels).
    expect(m.missing).toEqual([{ path: '/nonexistent/lib.so', why: 'not bundled' }]);
    // --root with the other commands too.
    const fold = await runCli(['fold', prof, '--root', empty, '--fallback-to-host']);
    expect(fold.code).toBe(0);
    expect(fold.err).toContain(`note: ${bin}: not under ${empty}: this machine's file used\n`);
    // A profile that records another build-id for that path: this machine's file is not that build.
    const { raw } = parse(new Uint8Array(readFileSync(prof)), 'host.perf.txt');
    raw.meta.mappings = raw.meta.mappings.map((x) => (x.path === bin ? { ...x, buildId: 'deadbeef' } : x));
    const folded = foldProfile(raw, { fileName: 'other.pb.gz' });
    const other = join(tmp, 'other-build.pb.gz');
    writeFileSync(other, writePprof(folded));
    const o = await runCli([
      'bundle',
      other,
      '-o',
      join(tmp, 'other.zip'),
      '--root',
      empty,
      '--fallback-to-host',
    ]);
    expect(o.code, o.err).toBe(0);
    expect(o.err).toContain(
      `not bundled: ${bin}: not found under ${empty}; this machine's is another build (build-id ${buildId}, the profile's deadbeef)\n`,
    );
    // Without --root there is nothing to fall back from.
    const bad = await runCli(['bundle', prof, '-o', zip, '--fallback-to-host']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^flamelens: --fallback-to-host goes with --root DIR\n/);
  });
});

describe('bundles from strangers', () => {
  const prof = () => new Uint8Array(readFileSync(join(FIX, 'gperf/tiny.prof')));
  const lib = () => new Uint8Array(readFileSync(join(FIX, 'gperf/bin/tiny')));

  it('a manifest is checked field by field: one warning per bad field, members then matched by path', () => {
    const manifest = {
      'flamelens-bundle': 1,
      created: 7,
      profiles: [{ name: 'tiny.prof', member: 42 }, 'x'],
      files: [
        { path: 'relative/tiny', member: 'files/opt/flamelens-corpus/bin/tiny' },
        {
          path: '/opt/flamelens-corpus/bin/tiny',
          member: 'files/opt/flamelens-corpus/bin/tiny',
          buildId: 'not hex',
        },
        { path: '/x', member: 'files/x', size: -1 },
      ],
      missing: { path: '/etc/shadow' },
    };
    const b = zipSync({
      [MANIFEST]: strToU8(JSON.stringify(manifest)),
      'profiles/tiny.prof': prof(),
      'files/opt/flamelens-corpus/bin/tiny': lib(),
    });
    const opened = openBundle({ name: 'odd.zip', bytes: b });
    expect(opened.warnings.map((w) => w.message)).toEqual([
      'odd.zip: flamelens-bundle.json: "created" is not a string: ignored',
      'odd.zip: flamelens-bundle.json: profiles[0].member is not valid (42): the entry is ignored',
      'odd.zip: flamelens-bundle.json: profiles[1] is not an object: ignored',
      'odd.zip: flamelens-bundle.json: files[0].path is not valid ("relative/tiny"): the entry is ignored',
      'odd.zip: flamelens-bundle.json: files[1].buildId is not valid ("not hex"): the entry is ignored',
      'odd.zip: flamelens-bundle.json: files[2].size is not valid (-1): the entry is ignored',
      'odd.zip: flamelens-bundle.json: "missing" is not a list: ignored',
    ]);
    // Matched by path all the same: the profile and its binary.
    expect(opened.profiles.map((p) => p.name)).toEqual(['tiny.prof']);
    expect(opened.symbols.map((s) => s.name)).toEqual(['/opt/flamelens-corpus/bin/tiny']);
  });

  it('manifests of every wrong shape open with a warning, never an exception', async () => {
    for (const text of [
      'null',
      '[]',
      '"x"',
      '{"flamelens-bundle":2}',
      '{"flamelens-bundle":1,"files":[null]}',
      '{',
      '\u0000',
    ]) {
      const b = zipSync({ [MANIFEST]: strToU8(text), 'profiles/tiny.prof': prof() });
      const opened = openBundle({ name: 'm.zip', bytes: b });
      expect(opened.profiles.map((p) => p.name)).toEqual(['tiny.prof']);
      expect(opened.warnings.length).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), 'flamelens-m-'));
      writeFileSync(join(dir, 'm.zip'), b);
      const r = await runCli(['info', join(dir, 'm.zip')]);
      rmSync(dir, { recursive: true, force: true });
      expect(r.code, r.err).toBe(0);
    }
  });

  it('members whose data overlap are refused (Info-ZIP), the others open', () => {
    const one = zipSync({ 'profiles/tiny.prof': prof(), 'files/a.so': lib() }, { level: 6 });
    // A second directory entry naming the first member's data under another name.
    const eocd = one.length - 22;
    const dv = new DataView(one.buffer);
    const dirStart = dv.getUint32(eocd + 16, true);
    const dirSize = dv.getUint32(eocd + 12, true);
    const first = one.subarray(dirStart, dirStart + 46 + dv.getUint16(dirStart + 28, true));
    const dup = first.slice();
    dup.set(strToU8('profiles/dup1.prof'), 46); // the same name length as profiles/tiny.prof
    const out = new Uint8Array(one.length + dup.length);
    out.set(one.subarray(0, dirStart + dirSize));
    out.set(dup, dirStart + dirSize);
    out.set(one.subarray(eocd), dirStart + dirSize + dup.length);
    const odv = new DataView(out.buffer);
    const e = dirStart + dirSize + dup.length;
    odv.setUint16(e + 8, odv.getUint16(e + 8, true) + 1, true);
    odv.setUint16(e + 10, odv.getUint16(e + 10, true) + 1, true);
    odv.setUint32(e + 12, dirSize + dup.length, true);
    const z = readZip(out, 'overlap.zip');
    expect(z.members.map((m) => m.name)).toEqual(['profiles/tiny.prof', 'files/a.so']);
    expect(z.errors.map((x) => x.message)).toEqual([
      'profiles/dup1.prof: not unpacked: its data overlap those of profiles/tiny.prof (overlapping members: a zip bomb)',
    ]);
  });

  it('a member inflating far past its compressed size is refused, saying the ratio', () => {
    const zeros = new Uint8Array(80 << 20);
    const z = readZip(zipSync({ 'profiles/tiny.prof': prof(), 'files/zeros.so': zeros }), 'r.zip');
    expect(z.members.map((m) => m.name)).toEqual(['profiles/tiny.prof']);
    expect(z.errors[0].message).toMatch(
      /^files\/zeros\.so: not unpacked: files\/zeros\.so inflates more than 500 times its compressed size \(80 MiB from \d+ bytes\): a decompression bomb, not a profile$/,
    );
  });

  it('only the objects the profile maps are unpacked', () => {
    const b = writeBundle({
      profiles: [{ name: 'tiny.prof', bytes: prof() }],
      files: [
        { path: '/opt/flamelens-corpus/bin/tiny', bytes: lib() },
        { path: '/usr/lib/unrelated.so', bytes: new Uint8Array(200_000).fill(7) },
      ],
      missing: [],
    });
    // Damage the unrelated object's data (it is the last member): unpacking it would be a warning.
    const z = readZip(b, 'lazy.zip');
    const member = z.members.find((m) => m.name === 'files/usr/lib/unrelated.so')!;
    expect(member.size).toBe(200_000);
    const dirStart = new DataView(b.buffer).getUint32(b.length - 22 + 16, true);
    for (let i = dirStart - 200; i < dirStart - 100; i++) b[i] ^= 0xff;
    expect(() => readZip(b, 'lazy.zip').members.find((m) => m.name === member.name)!.bytes).toThrow(
      /damaged/,
    );
    const sorted = sortInputs([{ name: 'lazy.zip', bytes: b }]);
    expect(sorted.symbols.map((s) => s.name)).toEqual(['/opt/flamelens-corpus/bin/tiny']);
    expect(sorted.profile?.loaded.raw.warnings.filter((w) => w.message.includes('unrelated'))).toEqual([]);
  });
});
