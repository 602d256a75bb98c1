import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../src/cli/args.ts';
import { runCli } from './helpers/cli';

const fix = (rel: string) => fileURLToPath(new URL(`./fixtures/${rel}`, import.meta.url));

const run = runCli;

describe('flamelens CLI', () => {
  it('fold --addresses prints the folded stacks, one frame per address (fold_expect.py)', async () => {
    const r = await run(['fold', '--addresses', fix('gperf/tiny.prof')]);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toBe(readFileSync(fix('gperf/expected-fold/tiny.folded'), 'utf8'));
  });

  it('fold names unsymbolized code one frame per module by default, as pprof', async () => {
    const r = await run(['fold', fix('gperf/tiny.prof')]);
    expect(r.code).toBe(0);
    // The expected fold with each MODULE+0xOFFSET frame as [MODULE], identical stacks summed.
    const want = new Map<string, number>();
    for (const line of readFileSync(fix('gperf/expected-fold/tiny.folded'), 'utf8').trim().split('\n')) {
      const sp = line.lastIndexOf(' ');
      const stack = line
        .slice(0, sp)
        .split(';')
        .map((f) => f.replace(/^(.*)\+0x[0-9a-f]+$/, '[$1]'))
        .join(';');
      want.set(stack, (want.get(stack) ?? 0) + Number(line.slice(sp + 1)));
    }
    const got = new Map(
      r.out
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.lastIndexOf(' ')), Number(l.slice(l.lastIndexOf(' ') + 1))] as const),
    );
    expect(got).toEqual(want);
    expect(r.out).toMatch(/^\[tiny\];\[libc\.so\.6\];/);
  });

  it('fold prints warnings on stderr and still exits 0', async () => {
    const r = await run(['fold', fix('bad/truncated_mid_record.prof')]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/warning: truncated at byte 80.*\(at byte 80\)/);
    expect(r.out.trim().split('\n')).toHaveLength(1);
  });

  it('a file that cannot be read exits 1 with the message and byte offset', async () => {
    const f = fix('bad/version_2.prof');
    const r = await run(['fold', f]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `flamelens: ${f}: unsupported gperftools format version 2 (expected 0) (at byte 16)\n`,
    );
    const e = await run(['info', fix('bad/empty.prof')]);
    expect(e.code).toBe(1);
    expect(e.err).toMatch(/: empty file \(at byte 0\)\n$/);
    // A DCPI header error: its line and the byte offset where that line starts.
    const d = await run(['fold', fix('dcpi/bad_duplicate_image.dcpi')]);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/'image' appears twice \(lines 2 and 11\).* \(at line 11, byte 174\)\n$/);
    // A binary is no profile: the file is named once (it was twice, the session naming it too).
    const elf = fix('gperf/bin/tiny');
    const b = await run(['fold', elf]);
    expect(b.code).toBe(1);
    expect(b.err).toBe(
      `flamelens: ${elf}: an ELF file (a binary or library), not a profile: give it with --binary to symbolize the profile (at byte 0)\n`,
    );
    const missing = await run(['fold', '/nonexistent/file.prof']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/cannot read file/);
  });

  it('info prints JSON metadata', async () => {
    const r = await run(['info', '--addresses', fix('gperf/tiny32.prof')]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({
      format: 'gperftools',
      wordSize: 32,
      byteOrder: 'little',
      periodUs: 10000,
      samples: 37,
      stacks: 5,
      warnings: [],
    });
    expect(j.mappings.length).toBeGreaterThan(3);
    for (const m of j.mappings) {
      expect(Object.keys(m).sort()).toEqual(['end', 'offset', 'path', 'start']);
      expect(m.start).toMatch(/^0x[0-9a-f]+$/);
    }
    const w = JSON.parse((await run(['info', fix('bad/num_pcs_huge.prof')])).out);
    expect(w.warnings[0]).toMatchObject({ offset: 120 });
    expect(w.warnings[0].message).toMatch(/^corrupt record at byte 120/);
  });

  it("info: samples counts samples, total sums the sample type's values (perf report's header)", async () => {
    for (const name of ['sorter-g', 'sorter-nog', 'inlined-dwarf']) {
      const report = readFileSync(fix(`perf/shapes/${name}.report.txt`), 'utf8');
      const samples = Number(/^# Samples: (\d+) +of event 'cpu-clock'$/m.exec(report)![1]);
      const events = Number(/^# Event count \(approx\.\): (\d+)$/m.exec(report)![1]);
      const r = await run(['info', fix(`perf/shapes/${name}.perf.txt`)]);
      expect(r.code, r.err).toBe(0);
      const j = JSON.parse(r.out);
      // cpu-clock periods are nanoseconds: a time, in µs.
      expect(j.sampleType, name).toEqual({ type: 'cpu-clock', unit: 'nanoseconds' });
      expect(j, name).toMatchObject({ samples, total: events, periodUs: 0.001 });
      expect(j.samplingTimeUs, name).toBeCloseTo(events / 1000, 6);
      // Summing samples, the total is the count and the period the mean one.
      const c = JSON.parse(
        (await run(['info', '--sample-type', 'samples', fix(`perf/shapes/${name}.perf.txt`)])).out,
      );
      expect(c, name).toMatchObject({ samples, total: samples });
      expect(c.periodUs * samples, name).toBeCloseTo(events / 1000, 0);
    }
    // A heap profile has no count of samples: one per record (allocation site), as pprof's Samples.
    const heap = JSON.parse((await run(['info', fix('heap/xz.0001.heap')])).out);
    expect(heap.sampleType).toEqual({ type: 'inuse_space', unit: 'bytes' });
    expect(heap.samples).toBe(Number(heap.extra.samples));
    expect(heap.total).toBeGreaterThan(heap.samples);
  });

  it('--help, usage errors', async () => {
    const h = await run(['--help']);
    expect(h.code).toBe(0);
    expect(h.out).toMatch(/usage: flamelens/);
    expect((await run([])).code).toBe(2);
    expect((await run(['frobnicate', 'x'])).code).toBe(2);
    expect((await run(['fold', '--nope', 'x'])).code).toBe(2);
    expect((await run(['fold'])).code).toBe(2);
  });

  it('the help is laid out in two columns: no description runs into its command or option', async () => {
    const h = (await run(['--help'])).out;
    // The typo: `bundle PROFILE… -o OUT.zip` ran into its description.
    expect(h).toMatch(/^ {2}bundle PROFILE… -o OUT\.zip {2,}pack the profile/m);
    expect(h).not.toMatch(/OUT\.zippack/);
    const lines = h.split('\n');
    const rows = lines.filter((l) => /^ {2}(--)?[a-z]/.test(l));
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) {
      // A command or option, then at least two blanks and its description, or alone on its line
      // (a long option) with its description on the next, indented to the column.
      const m = /^ {2}(\S+(?: \S+)*?)( {2,}(\S.*))?$/.exec(row);
      expect(m, row).not.toBeNull();
      if (m![2] === undefined) {
        const next = lines[lines.indexOf(row) + 1];
        expect(next, row).toMatch(/^ {20,}\S/);
      }
    }
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  it('help COMMAND and COMMAND --help print that command with only its options', async () => {
    const a = await run(['help', 'bundle']);
    const b = await run(['bundle', '--help']);
    expect(a.code).toBe(0);
    expect(b).toEqual(a);
    expect(a.out).toMatch(/^usage: flamelens bundle \[OPTIONS\] PROFILE… -o OUT\.zip\n/);
    const options = [...a.out.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);
    expect(options.sort()).toEqual(
      [
        '--dry-run',
        '--help',
        '--max-size',
        '--no-debug',
        '--output',
        '--root',
        '--fallback-to-host',
        '--version',
      ].sort(),
    );
    const fold = await run(['help', 'fold']);
    expect(fold.out).toMatch(/^usage: flamelens fold \[OPTIONS\] FILE\n/);
    expect(fold.out).toMatch(/^ {2}--sample-type NAME\|INDEX/m);
    expect(fold.out).not.toMatch(/--normalize|--max-size|--output/);
    expect((await run(['diff', '-h'])).out).toMatch(/^ {2}--normalize/m);
    // The whole help without a command; an unknown one is bad usage.
    expect((await run(['help'])).out).toBe((await run(['--help'])).out);
    const bad = await run(['help', 'frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown command 'frobnicate'/);
    // What a command does not take is refused, with that command's help.
    const misplaced = await run(['bundle', 'x.prof', '-o', 'x.zip', '--granularity', 'lines']);
    expect(misplaced.code).toBe(2);
    expect(misplaced.err).toMatch(
      /^flamelens: option --granularity does not apply to 'bundle'\nusage: flamelens bundle /,
    );
  });

  it('`-` reads the profile from standard input', async () => {
    const prof = new Uint8Array(readFileSync(fix('gperf/tiny.prof')));
    const fromFile = await run(['fold', fix('gperf/tiny.prof')]);
    expect(await run(['fold', '-'], { stdin: prof })).toEqual(fromFile);
    const info = JSON.parse((await run(['info', '-'], { stdin: prof })).out);
    const infoOfFile = JSON.parse((await run(['info', fix('gperf/tiny.prof')])).out);
    expect(info).toEqual({ ...infoOfFile, file: 'stdin' });
    // As a diff's either side; never both.
    const base = fix('diff/workload_a.prof');
    const newer = new Uint8Array(readFileSync(fix('diff/workload_b.prof')));
    expect(await run(['diff', base, '-'], { stdin: newer })).toEqual(
      await run(['diff', base, fix('diff/workload_b.prof')]),
    );
    const both = await run(['diff', '-', '-'], { stdin: newer });
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/^flamelens: only one file can be read from standard input \(-\)\n/);
    // Messages name it stdin.
    const empty = await run(['fold', '-'], { stdin: new Uint8Array(0) });
    expect(empty).toEqual({ code: 1, out: '', err: 'flamelens: stdin: empty file (at byte 0)\n' });
  });

  it('a gzip stream cut at byte 5000 is reported at byte 5000', async () => {
    const gz = new Uint8Array(readFileSync(fix('pprof/corpus/big_synth_small.pb.gz')));
    const r = await run(['fold', '-'], { stdin: gz.subarray(0, 5000) });
    expect(r).toEqual({
      code: 1,
      out: '',
      err: 'flamelens: stdin: corrupt gzip data: cut short (the compressed stream stops before its last block) (at byte 5000)\n',
    });
  });

  it('--version prints the version of the package', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const v = await run(['--version']);
    expect(v).toEqual({ code: 0, out: `flamelens ${pkg.version}\n`, err: '' });
    expect((await run(['fold', '--version'])).out).toBe(v.out);
  });

  it('fold --place: a maps-less profile named by binaries placed at their load addresses', async () => {
    const bins = [
      '--binary',
      'test/fixtures/heap/bin/xz',
      '--binary',
      'test/fixtures/sysroot/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1',
    ];
    const unplaced = await run(['fold', 'test/fixtures/debian/xz-no-maps.prof', ...bins]);
    expect(unplaced.code).toBe(0);
    expect(unplaced.out).not.toMatch(/lzma_code/);
    expect(unplaced.err).toMatch(
      /guessed --place xz@0x560242d35000 \(8 of 8 return addresses follow calls there\)/,
    );
    expect(unplaced.err).toMatch(/guessed --place liblzma\.so\.5\.4\.1@0x7f73047ec000/);
    const placed = await run([
      'fold',
      'test/fixtures/debian/xz-no-maps.prof',
      ...bins,
      '--place',
      'xz@0x560242d35000',
      '--place',
      'test/x/liblzma.so.5.4.1@7f73047ec000',
    ]);
    expect(placed.code).toBe(0);
    expect(placed.out).toMatch(/^\[xz\];0x7f7304631304;0x7f7304631249;\[xz\];\[xz\];lzma_code;/m);
    expect(placed.err).not.toMatch(/guessed/);
    expect((await run(['fold', 'test/fixtures/debian/xz-no-maps.prof', '--place', 'xz'])).code).toBe(2);
  });

  it('parses arguments generically', () => {
    const a = parseArgs(['fold', 'a.prof', '--help']);
    expect(a.command).toBe('fold');
    expect(a.positional).toEqual(['a.prof']);
    expect(a.options.get('help')).toEqual(['']);
  });
});
