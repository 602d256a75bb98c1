// The CLI as a scripting user meets it: what it says on stderr about the files it was given.

import { readFileSync } from 'node:fs';
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

describe('flamelens list with label filters', () => {
  // go tool pprof -tagfocus -lines -top (test/fixtures/pprof/make_label_fixtures.sh).
  const ms = (t: string) =>
    t === '.' || t === '0' ? 0 : Number.parseFloat(t) * (t.endsWith('ms') ? 1 : 1000);

  it('counts only the samples the filter keeps, against the whole as pprof -list (18.67%, not 188.71%)', async () => {
    const oracle = readFileSync(fix('pprof/labels/labels.tagfocus-worker-alpha.lines-top.txt'), 'utf8');
    const want = new Map<number, [number, number]>();
    for (const m of oracle.matchAll(/^\s*(\S+)\s+\S+\s+\S+\s+(\S+)\s+\S+\s+main\.hashLoop main\.go:(\d+)$/gm))
      want.set(Number(m[3]), [ms(m[1]), ms(m[2])]);
    expect(want.size).toBeGreaterThan(0);
    const whole = ms(/% of (\S+) total$/m.exec(oracle)![1]);

    const r = await run([
      'list',
      '^main\\.hashLoop$',
      fix('pprof/labels/labels.pb.gz'),
      '--tagfocus',
      'worker=alpha',
    ]);
    expect(r.code).toBe(0);
    expect(ms(/^Total: (\S+)$/m.exec(r.out)![1])).toBe(whole);
    const got = new Map<number, [number, number]>();
    for (const m of r.out.matchAll(/^\s+(\S+)\s+(\S+)\s+(\d+):/gm)) {
      const row: [number, number] = [ms(m[1]), ms(m[2])];
      if (row[0] !== 0 || row[1] !== 0) got.set(Number(m[3]), row);
    }
    expect(got).toEqual(want);
    // The function's flat is its lines' flat summed, and its share of the whole is below 100%.
    const [flat, cum] = /^\s+(\S+)\s+(\S+) \(flat, cum\) (\S+)% of Total$/m.exec(r.out)!.slice(1);
    expect(ms(flat)).toBe([...want.values()].reduce((t, [f]) => t + f, 0));
    expect(ms(cum) / whole).toBeLessThan(1);
  });
});
