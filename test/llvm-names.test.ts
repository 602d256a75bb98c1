// Names on real programs against the tools users compare with (test/fixtures/names, recorded by
// test/fixtures/src/make_names_fixtures.sh): C++ lambdas (one a std::sort comparator, one in a
// nested block) and time inside Debian's libc with its libc6-dbg debug file.
//   - every sampled address's inline chain equals `llvm-symbolizer --functions=linkage --inlining`
//     (names, files, lines): Go pprof's symbolizer;
//   - the default fold (inline frames as frames) and `--noinlines` equal Go pprof's -traces stack
//     for stack, by weight, after Go pprof's own shortening of names (below).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitBig } from '../src/core/address';
import { type Demangle, loadDemangler } from '../src/core/symbols/demangle';
import { readElf } from '../src/core/symbols/elf';
import { type InputFile, symbolizerFromFiles } from '../src/core/symbols/symbolize';
import { runCli } from './helpers/cli';
import { asGoReadsIt, goTraces, sameOperator } from './helpers/go-pprof';
import { readLlvmOracle } from './helpers/llvm';
import { executableMappings } from './helpers/maps';

const DIR = 'test/fixtures/names';
const SYS = 'test/fixtures/sysroot/usr/lib';
const LIBC = `${SYS}/x86_64-linux-gnu/libc.so.6`;
const LIBM = `${SYS}/x86_64-linux-gnu/libm.so.6`;
const LIBC_ID = '93ac61ec5a8eb1396f9fbd350e3169a558528a40';
const LIBC_DEBUG = `${SYS}/debug/.build-id/${LIBC_ID.slice(0, 2)}/${LIBC_ID.slice(2)}.debug`;
const LIBM_DEBUG = `${SYS}/debug/.build-id/d6/e6f9e3af1243eed9bf5efd366dd015a9f22c13.debug`;
const input = (path: string, name = path.split('/').pop()!): InputFile => ({
  name,
  bytes: new Uint8Array(readFileSync(path)),
});

let demangle: Demangle;
beforeAll(async () => {
  demangle = await loadDemangler();
});
const tmp = mkdtempSync(join(tmpdir(), 'flamelens-names-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Our chain at each address of NAME.addrs.txt against NAME.llvm.txt.gz (names and lines, and files
 * unless `files: false`); counts of what was seen.
 */
function compareWithLlvm(oracle: string, profile: string, files: InputFile[], withFiles = true) {
  const maps = executableMappings(new Uint8Array(readFileSync(`${DIR}/${profile}.prof`)));
  const { symbolizer, report } = symbolizerFromFiles(maps, files, { demangle, mangled: true });
  expect(report.warnings).toEqual([]);
  const runtimes = readFileSync(`${DIR}/${oracle}.addrs.txt`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => BigInt(l.split(' ')[0]));
  const llvm = readLlvmOracle(`${DIR}/${oracle}.llvm.txt.gz`);
  expect(llvm).toHaveLength(runtimes.length);
  const seen = { addresses: 0, inlineFrames: 0, names: new Set<string>(), unnamedByLlvm: 0, plt: 0 };
  llvm.forEach(({ vaddr, frames }, i) => {
    const where = `${oracle} 0x${vaddr.toString(16)}`;
    const [hi, lo] = splitBig(runtimes[i]);
    const got = symbolizer.lookupFrames!(hi, lo);
    if (got === null) {
      // A PLT stub: no DWARF, no sized symbol. LLVM extends `_init` (size 0) over it where the
      // file has that symbol (`??` in the stripped libc); we stop a size-0 symbol at the end of
      // its section (docs/symbols.md).
      expect(frames.length, where).toBe(1);
      expect(['_init', '??'], where).toContain(frames[0].name);
      seen.plt++;
      return;
    }
    if (frames.length === 1 && frames[0].name === '??') {
      // Static asm code of the stripped libc: no DWARF function, none of libc's own symbols.
      // llvm-symbolizer has no name there; we take the debug file's symbol (one frame).
      expect(got!.length, where).toBe(1);
      seen.unnamedByLlvm++;
      return;
    }
    const file = (f: string | undefined) => (withFiles ? (f ?? '') : '');
    expect(
      got!.map((f) => [f.name, file(f.file), f.line ?? 0]),
      where,
    ).toEqual(frames.map((f) => [f.name, file(f.file), f.line]));
    seen.addresses++;
    seen.inlineFrames += frames.length - 1;
    for (const f of frames) seen.names.add(demangle(f.name));
  });
  return seen;
}

describe('inline chains equal llvm-symbolizer --functions=linkage --inlining at every sampled address', () => {
  it('lambda_sort: the comparator is its own frame, operator(), inside std::__introsort_loop', () => {
    const seen = compareWithLlvm('lambda_sort', 'lambda_sort', [input(`${DIR}/bin/lambda_sort`)]);
    expect(seen.addresses).toBeGreaterThan(20);
    expect(seen.names).toContain('operator()');
    expect([...seen.names].some((n) => n.startsWith('std::__introsort_loop<'))).toBe(true);
  });

  it('lambda_block: the lambda of a nested block is its own frame, inlined into for_each and scan', () => {
    const seen = compareWithLlvm('lambda_block', 'lambda_block', [input(`${DIR}/bin/lambda_block`)]);
    expect(seen.addresses).toBeGreaterThan(5);
    expect(seen.names).toContain('operator()');
    expect(seen.inlineFrames).toBeGreaterThan(0);
  });

  it("libcwork: the program, and libc with its libc6-dbg debug file (libc's own .dynsym names the outermost frames)", () => {
    const libcFiles = [input(`${DIR}/bin/libcwork`), input(LIBC), input(LIBC_DEBUG)];
    expect(readElf(libcFiles[2].bytes, 'debug').buildId).toBe(LIBC_ID);
    expect(compareWithLlvm('libcwork', 'libcwork', libcFiles).addresses).toBeGreaterThan(5);
    // Files are addr2line's (dwarf.test.ts): in Debian's libc, DWARF 5 rows before a set_file
    // take file 0 in bfd, file 1 in LLVM (docs/dwarf.md).
    const libc = compareWithLlvm('libcwork-libc', 'libcwork', libcFiles, false);
    expect(libc.addresses).toBeGreaterThan(50);
    expect(libc.inlineFrames).toBeGreaterThan(10);
    for (const n of ['munmap', '__read', '__libc_start_main', 'tcache_get', '_IO_default_xsputn'])
      expect(libc.names, n).toContain(n);
    for (const n of ['__GI_munmap', '__GI___libc_read', '__libc_start_main_impl'])
      expect(libc.names, n).not.toContain(n);
    expect(libc.unnamedByLlvm).toBeLessThan(libc.addresses / 10);
  });
});

/**
 * A saved Go pprof -traces (1 ms a sample). A PLT stub, `_init` there (see compareWithLlvm), is
 * `[MODULE]` in ours.
 */
const goOracle = (file: string, module: string) =>
  goTraces(gunzipSync(readFileSync(`${DIR}/${file}`)).toString('utf8'), 1, (f) =>
    f === '_init' ? `[${module}]` : sameOperator(f),
  );

/** Our fold (default short names) of the profile as Go pprof reads it. */
async function ourStacks(profile: string, extra: string[]): Promise<Map<string, number>> {
  const prof = join(tmp, `${profile}.prof`);
  writeFileSync(prof, asGoReadsIt(new Uint8Array(readFileSync(`${DIR}/${profile}.prof`))));
  const r = await runCli([
    'fold',
    prof,
    '--binary',
    `${DIR}/bin/${profile}`,
    '--binary',
    LIBC,
    '--binary',
    LIBC_DEBUG,
    '--binary',
    LIBM,
    '--binary',
    LIBM_DEBUG,
    ...extra,
  ]);
  expect(r.code, r.err).toBe(0);
  const out = new Map<string, number>();
  for (const line of r.out.trim().split('\n')) {
    const sp = line.lastIndexOf(' ');
    const n = Number(line.slice(sp + 1));
    if (n === 0) continue;
    const key = line.slice(0, sp).split(';').map(sameOperator).join(';');
    out.set(key, (out.get(key) ?? 0) + n);
  }
  return out;
}

describe('fold equals Go pprof -traces, stack for stack (inline frames included)', () => {
  for (const profile of ['lambda_sort', 'lambda_block', 'libcwork']) {
    it(`${profile}: default (inlined functions are frames)`, async () => {
      const ours = await ourStacks(profile, []);
      expect(ours).toEqual(goOracle(`${profile}.go-traces.txt.gz`, profile));
    });
    it(`${profile}: --noinlines`, async () => {
      const ours = await ourStacks(profile, ['--noinlines']);
      expect(ours).toEqual(goOracle(`${profile}.go-noinlines-traces.txt.gz`, profile));
    });
  }

  it('libcwork: the exported aliases Go pprof shows; an inline copy of a function is a frame of its own', async () => {
    const frames = new Set([...(await ourStacks('libcwork', [])).keys()].flatMap((k) => k.split(';')));
    for (const n of ['munmap', '__read', 'hypotf32x', '__libc_start_main', 'tcache_get'])
      expect(frames, n).toContain(n);
    for (const n of ['__GI_munmap', '__GI___libc_read', '__libc_start_main_impl', '__hypot'])
      expect(frames, n).not.toContain(n);
    // _IO_default_xsputn calls itself through its internal alias, inlined: two rows, as in Go.
    expect(frames).toContain('_IO_default_xsputn');
    expect(frames).toContain('__GI__IO_default_xsputn');
  });

  it('lambda_sort at Frames = lines: the lambda is a frame of its own and map_pass is not its own caller', async () => {
    const r = await runCli([
      'fold',
      `${DIR}/lambda_sort.prof`,
      '--binary',
      `${DIR}/bin/lambda_sort`,
      '--granularity',
      'lines',
    ]);
    expect(r.code, r.err).toBe(0);
    let lambdaSelf = 0;
    for (const line of r.out.trim().split('\n')) {
      const sp = line.lastIndexOf(' ');
      const frames = line.slice(0, sp).split(';');
      expect(
        frames.filter((f) => f.startsWith('holdout::map_pass ')),
        line,
      ).toHaveLength(1);
      if (frames.at(-1)!.startsWith('operator() /fixtures/src/lambda_sort.cpp:'))
        lambdaSelf += Number(line.slice(sp + 1));
    }
    expect(lambdaSelf).toBeGreaterThan(0);
  });
});
