// The CLI as a scripting user meets it: what it says on stderr about the files it was given.

import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../test/helpers/cli';

const fix = (rel: string) => fileURLToPath(new URL(`../../test/fixtures/${rel}`, import.meta.url));

describe('flamelens CLI: files given to symbolize with', () => {
  it('warns of a --binary that matches no mapping, as the app says "matches no mapping"', async () => {
    const r = await run([
      'fold',
      fix('gperf/tiny.prof'),
      '--binary',
      fix('gperf/bin/tiny'),
      '--binary',
      fix('gperf/bin/cxx_demangle'),
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toBe(
      'flamelens: warning: cxx_demangle matches no mapping of the profile (no mapped path or build-id is its): not used\n',
    );
    // The matching binary names the frames all the same.
    expect(r.out).toMatch(/;main;alpha;spin 8\n/);
    for (const command of ['info', 'proto', 'dot', 'diff']) {
      const files =
        command === 'diff' ? [fix('gperf/tiny.prof'), fix('gperf/tiny.prof')] : [fix('gperf/tiny.prof')];
      const out = command === 'proto' ? ['-o', '/dev/null'] : [];
      const o = await run([command, ...files, '--binary', fix('gperf/bin/cxx_demangle'), ...out]);
      expect(o.code, command).toBe(0);
      expect(o.err, command).toMatch(/warning: cxx_demangle matches no mapping of the profile/);
    }
  });

  it('says nothing of files every one of which serves a mapping', async () => {
    const r = await run([
      'fold',
      fix('gperf/shlib.prof'),
      '--binary',
      fix('gperf/bin/shlib_main'),
      '--binary',
      fix('gperf/bin/libfoo.so'),
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
  });

  it('of a profile without mappings, leaves the file to the placement note', async () => {
    const r = await run(['fold', fix('bad/real_tiny_no_maps.prof'), '--binary', fix('gperf/bin/tiny')]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/note: the profile has no mappings: tiny is not placed; guessed --place tiny@0x/);
    expect(r.err).not.toMatch(/matches no mapping/);
  });
});

describe('flamelens CLI: a binary given as the profile', () => {
  it('is named an ELF file, not a profile, with what to do instead (exit 1, nothing on stdout)', async () => {
    const elf = fix('gperf/bin/tiny');
    for (const argv of [
      ['fold', elf],
      ['diff', elf, fix('gperf/tiny.prof')],
      ['diff', fix('gperf/tiny.prof'), elf],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toBe(
        `flamelens: ${elf}: an ELF file (a binary or library), not a profile: give it with --binary to symbolize the profile (at byte 0)\n`,
      );
    }
  });
});

const run = runCli;
