// Acceptance test of symbolization against the pprof oracles, from fixtures in the repo only:
// the 12 real gperftools profiles in fixtures/gperf, their binaries in fixtures/gperf/bin, and the
// system libraries (plus separate debug files found by GNU build-id) in fixtures/sysroot.
//  1. symbol_fidelity.py (copied into test/checks) against Go pprof's -traces: >= 99%.
//  2. perl google-pprof's collapsed stacks and per-function self totals: equal, after the
//     normalisation below, which applies exactly the differences listed in docs/pprof-differences.md.
//  3. Go pprof's -traces again, inline frames included: the default fold (DWARF's inlined functions
//     are frames) equals it stack for stack, by weight, up to PLT stubs and addresses outside every
//     mapping (below), once Go's legacy reader's own frame removals are replayed on the records.
// Needs python3 and binutils (readelf for the check script, nm for rule N6). The folds of 1 and 2
// are made with --noinlines: both compare at function level without inlined functions (pprof's
// inline frames are dropped by the check; perl pprof has none).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli';
import { CORPUS_PROFILES } from './helpers/corpus';
import { asGoReadsIt, goTraces, sameOperator } from './helpers/go-pprof';

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const GPERF = here('./fixtures/gperf/');
const ORACLE = here('./fixtures/gperf/oracle/');
const CHECKS = here('./checks/');

const PROFILES = CORPUS_PROFILES;

const tmp = mkdtempSync(join(tmpdir(), 'flamelens-symacc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cli = runCli;

/** An oracle file, gzipped or not. */
function oracleText(name: string, file: string): string {
  const p = join(ORACLE, name, file);
  if (existsSync(p)) return readFileSync(p, 'utf8');
  return gunzipSync(readFileSync(`${p}.gz`)).toString('utf8');
}

/** The ELF files (mapped objects + debug files by build-id) the check script finds for a profile. */
function elfFiles(profile: string): string[] {
  const out = execFileSync('python3', [join(CHECKS, 'symbol_fidelity.py'), 'binaries', profile], {
    encoding: 'utf8',
  });
  return out.split('\n').filter((l) => l !== '');
}

type Stacks = Map<string, number>;

function parseFolded(text: string): Array<[string[], number]> {
  const out: Array<[string[], number]> = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const sp = line.lastIndexOf(' ');
    out.push([line.slice(0, sp).split(';'), Number(line.slice(sp + 1))]);
  }
  return out;
}

function add(m: Map<string, number>, k: string, n: number): void {
  m.set(k, (m.get(k) ?? 0) + n);
}

function sorted(m: Map<string, number>): string[] {
  return [...m]
    .filter(([, n]) => n !== 0)
    .map(([k, n]) => `${k} ${n}`)
    .sort();
}

// ---------------------------------------------------------------------------------------------
// The normalisation. Every rule is listed, with a corpus example, in docs/pprof-differences.md.

/** N1: pprof's ShortFunctionName (google-pprof l.4989), applied to both sides. */
function shortFunctionName(name: string): string {
  let f = name;
  let prev: string;
  do {
    prev = f;
    f = f.replace(/\([^()]*\)(\s*const)?/g, '');
  } while (f !== prev);
  f = f.replace(/<[0-9a-f]*>$/, '');
  do {
    prev = f;
    f = f.replace(/<[^<>]*>/g, '');
  } while (f !== prev);
  return f.replace(/^.*\s+(\w+::)/, '$1');
}

/**
 * N4: perl names these functions after a DWARF / internal alias, or the first alias `nm -D` lists;
 * we name the exported alias defined last in the symbol table (as Go pprof does on these files).
 */
const PERL_ALIASES: Record<string, string> = {
  __libc_start_main_impl: '__libc_start_main',
  __GI___libc_malloc: '__libc_malloc',
  __GI___libc_free: 'cfree',
  __GI___clock_gettime: '__clock_gettime',
  __libc_malloc: 'malloc', // 32-bit libc, from `nm -D`
  cfree: '__libc_free', // 32-bit libc, from `nm -D`
};

/** N5: perl's symbol names from `nm -D` keep the symbol version (`@@GLIBCXX_3.4`). */
const stripVersion = (n: string) => n.replace(/@@?[\w.]+$/, '');

interface Mapping {
  start: bigint;
  end: bigint;
  offset: bigint;
  path: string;
}

/** N7: perl prints an address it cannot name as 0x%016x; we print MODULE+0xOFFSET (or 0x%x). */
function perlAddress(hex: string, maps: Mapping[]): string {
  const a = BigInt(hex);
  for (const m of maps) {
    if (a >= m.start && a < m.end) return `${basename(m.path)}+0x${(a - m.start + m.offset).toString(16)}`;
  }
  return `0x${a.toString(16)}`;
}

function perlFrame(f: string, maps: Mapping[]): string {
  if (/^0x[0-9a-f]+$/.test(f)) return perlAddress(f, maps);
  const s = stripVersion(shortFunctionName(f));
  return PERL_ALIASES[s] ?? s;
}

/** perl.collapsed.norm.txt, normalised: N3 (drop [inline] frames), N1, N4, N5, N7. */
function perlStacks(name: string, maps: Mapping[]): Stacks {
  const out: Stacks = new Map();
  for (const [frames, n] of parseFolded(oracleText(name, 'perl.collapsed.norm.txt'))) {
    const real = frames.filter((f) => !f.endsWith('[inline]')).map((f) => perlFrame(f, maps));
    add(out, real.join(';'), n);
  }
  return out;
}

/**
 * perl.text.txt's flat column, normalised: N1, N4, N5, N7, and N3 — the self time of a leaf
 * `[inline]` frame belongs to the real function it was inlined into, which perl.collapsed tells.
 */
function perlSelf(name: string, maps: Mapping[]): Stacks {
  const text = oracleText(name, 'perl.text.txt');
  const flat: Stacks = new Map();
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.+)$/.exec(line);
    if (m) add(flat, m[2], Number(m[1]));
    const t = /^Total: (\d+) samples/.exec(line);
    if (t) total = Number(t[1]);
  }
  for (const [frames, n] of parseFolded(oracleText(name, 'perl.collapsed.norm.txt'))) {
    const leaf = frames[frames.length - 1];
    if (!leaf.endsWith('[inline]')) continue;
    const real = frames.filter((f) => !f.endsWith('[inline]'));
    add(flat, `${shortFunctionName(leaf.slice(0, -'[inline]'.length))} (inline)`, -n);
    add(flat, shortFunctionName(real[real.length - 1]), n);
  }
  const out: Stacks = new Map();
  for (const [k, n] of flat) {
    if (n === 0) continue;
    expect(k.endsWith(' (inline)'), `${name}: inline self left over: ${k} ${n}`).toBe(false);
    add(out, perlFrame(k, maps), n);
  }
  expect([...out.values()].reduce((a, b) => a + b, 0)).toBe(total);
  return out;
}

/**
 * N2: perl's RemoveUninterestingFrames (google-pprof l.3035): while the 2nd PC (caller of the leaf)
 * is the same in every address stack, it is deleted. Replayed on the raw address stacks of
 * decode.txt (callers at PC−1, as perl reads them); returns how many times it fired. perl also
 * drops a following frame when it equals the leaf PC − 1; that would not be a uniform deletion,
 * so it must not happen here.
 */
function perlSecondFrameRemovals(name: string): number {
  let stacks = parseFolded(oracleText(name, 'decode.txt'))
    .filter(([f]) => !f[0].startsWith('#'))
    .map(([f]) => f.map((h, i) => BigInt(h) - (i === f.length - 1 ? 0n : 1n)).reverse());
  let removed = 0;
  for (;;) {
    if (stacks.some((s) => s.length < 2)) break;
    const second = stacks[0][1];
    if (!stacks.every((s) => s[1] === second)) break;
    stacks = stacks.map((s) => {
      const r = [s[0], ...s.slice(2)];
      expect(r.length > 2 && r[1] + 1n === r[0], `${name}: perl would drop a 2nd frame`).toBe(false);
      return r;
    });
    removed++;
  }
  return removed;
}

/**
 * N6: perl names an address that no symbol covers after the preceding `nm` symbol, whatever its
 * size (PLT stubs become `_init`); we leave it MODULE+0xOFFSET. Replayed on our side with `nm`, as
 * perl runs it (google-pprof GetProcedureBoundariesViaNm), after checking that the address really
 * lies outside that symbol (else we would have missed a name).
 */
interface NmSymbol {
  addr: bigint;
  size: bigint | null;
  code: boolean;
  name: string;
}

class NmNames {
  private cache = new Map<
    string,
    { segs: Array<[bigint, bigint, bigint]>; syms: NmSymbol[]; code: NmSymbol[] }
  >();
  constructor(private files: string[]) {}

  private load(module: string) {
    const cached = this.cache.get(module);
    if (cached) return cached;
    const file = this.files.find((f) => basename(f) === module);
    const c = { segs: [] as Array<[bigint, bigint, bigint]>, syms: [] as NmSymbol[], code: [] as NmSymbol[] };
    if (file) {
      const ph = execFileSync('readelf', ['-lW', file], { encoding: 'utf8' });
      const load = /^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)/gm;
      for (const m of ph.matchAll(load)) c.segs.push([BigInt(m[1]), BigInt(m[2]), BigInt(m[3])]);
      // perl: `nm -C -n`, then `nm -C -D -n` when the file has no .symtab (stripped)
      const nm = (extra: string[]) =>
        execFileSync('nm', ['-C', ...extra, '-n', '-S', file], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        });
      let text = nm([]);
      if (text.trim() === '') text = nm(['-D']);
      for (const m of text.matchAll(/^([0-9a-f]+) (?:([0-9a-f]+) )?(\S) (.+)$/gm)) {
        const sym = {
          addr: BigInt(`0x${m[1]}`),
          size: m[2] ? BigInt(`0x${m[2]}`) : null,
          code: /[tTwWi]/.test(m[3]),
          name: m[4],
        };
        if (sym.code && sym.size) c.code.push(sym);
        const last = c.syms[c.syms.length - 1];
        // several symbols at one address: perl keeps the first one, unless a later one is t/T
        if (last && last.addr === sym.addr) {
          if (/t/i.test(m[3])) c.syms[c.syms.length - 1] = sym;
          continue;
        }
        c.syms.push(sym);
      }
    }
    this.cache.set(module, c);
    return c;
  }

  /** The name perl gives MODULE+0xOFFSET, or null when the module is not among the files. */
  name(module: string, offset: bigint): string | null {
    const { segs, syms, code } = this.load(module);
    const seg = segs.find(([off, , size]) => offset >= off && offset < off + size);
    if (!seg) return null;
    const va = offset - seg[0] + seg[1];
    let best: NmSymbol | null = null;
    for (const s of syms) {
      if (s.addr > va) break;
      best = s;
    }
    if (!best) return null;
    const covering = code.find((s) => va >= s.addr && va < s.addr + (s.size ?? 0n));
    expect(covering?.name, `${module}+0x${offset.toString(16)} lies inside a function`).toBeUndefined();
    return best.name;
  }
}

/** Our folded stacks, normalised: N2 (replayed), N1, N6. */
function ourStacks(folded: string, removals: number, nm: NmNames): Stacks {
  const out: Stacks = new Map();
  for (const [frames, n] of parseFolded(folded)) {
    let fr = frames.map((f) => {
      const m = /^(.+)\+0x([0-9a-f]+)$/.exec(f);
      if (!m) return shortFunctionName(f);
      const named = nm.name(m[1], BigInt(`0x${m[2]}`));
      return named === null ? f : stripVersion(shortFunctionName(named));
    });
    for (let i = 0; i < removals && fr.length > 1; i++) fr = [...fr.slice(0, -2), fr[fr.length - 1]];
    add(out, fr.join(';'), n);
  }
  return out;
}

/**
 * N8: perl names some frames after the function's DWARF name, which is unqualified (`_M_invoke`),
 * we after the symbol (`std::_Function_handler::_M_invoke`). The bare names perl prints that we
 * never print bare are collected; on both sides `A::B::name` becomes `name` for those names.
 */
function dwarfShortNames(perl: Stacks, ours: Stacks): Set<string> {
  const frames = (s: Stacks) => new Set([...s.keys()].flatMap((k) => k.split(';')));
  const o = frames(ours);
  const bare = new Set([...frames(perl)].filter((f) => !f.includes('::') && !o.has(f)));
  return new Set([...bare].filter((b) => [...o].some((f) => f.endsWith(`::${b}`))));
}

function unqualify(stacks: Stacks, names: Set<string>): Stacks {
  const out: Stacks = new Map();
  for (const [k, n] of stacks) {
    const fr = k.split(';').map((f) => {
      const i = f.lastIndexOf('::');
      return i >= 0 && names.has(f.slice(i + 2)) ? f.slice(i + 2) : f;
    });
    add(out, fr.join(';'), n);
  }
  return out;
}

function selfTotals(stacks: Stacks): Stacks {
  const out: Stacks = new Map();
  for (const [k, n] of stacks) add(out, k.slice(k.lastIndexOf(';') + 1), n);
  return out;
}

// ---------------------------------------------------------------------------------------------

interface Run {
  files: string[];
  /** `fold --full-names --addresses`: the names the perl rules (pprof-differences.md) are stated on. */
  folded: string;
  /** `fold` with the defaults: short names, one `[MODULE]` frame for code no symbol covers. */
  foldedDefault: string;
  info: {
    samples: number;
    mappings: Array<{ start: string; end: string; offset: string; path: string }>;
    symbols: {
      symbolized: Array<Record<string, unknown>>;
      unsymbolizedMappings: string[];
      unmatchedFiles: string[];
    };
  };
}

const runs = new Map<string, Promise<Run>>();
function symbolized(name: string): Promise<Run> {
  let r = runs.get(name);
  if (!r) {
    r = (async () => {
      const prof = join(GPERF, `${name}.prof`);
      const files = elfFiles(prof);
      const bins = files.flatMap((f) => ['--binary', f]);
      const fold = await cli(['fold', '--noinlines', prof, ...bins, '--full-names', '--addresses']);
      expect(fold.code, fold.err).toBe(0);
      const short = await cli(['fold', '--noinlines', prof, ...bins]);
      expect(short.code, short.err).toBe(0);
      const info = await cli(['info', prof, ...bins]);
      expect(info.code, info.err).toBe(0);
      return { files, folded: fold.out, foldedDefault: short.out, info: JSON.parse(info.out) };
    })();
    runs.set(name, r);
  }
  return r;
}

describe('symbolization acceptance: every real profile against Go pprof and perl pprof', () => {
  for (const name of PROFILES) {
    it(`${name}: symbol_fidelity.py >= 99% against Go pprof -traces (default short names, [MODULE])`, async () => {
      const { files, foldedDefault } = await symbolized(name);
      const out = join(tmp, `${name}.folded`);
      writeFileSync(out, foldedDefault);
      const args = [
        join(CHECKS, 'symbol_fidelity.py'),
        'compare',
        join(GPERF, `${name}.prof`),
        join(ORACLE, name),
        out,
      ];
      let report: string;
      try {
        report = execFileSync('python3', [...args, ...files], { encoding: 'utf8' });
      } catch (e) {
        throw new Error(`symbol_fidelity.py failed: ${(e as { stdout?: string }).stdout ?? e}`);
      }
      const m = /: ([\d.]+)% of (\d+) samples/.exec(report);
      expect(m, report).not.toBeNull();
      expect(Number(m![1]), report).toBeGreaterThanOrEqual(99);
    }, 30_000);

    it(`${name}: equals perl pprof's collapsed stacks and self totals (up to the listed differences)`, async () => {
      const { files, folded, info } = await symbolized(name);
      const maps: Mapping[] = info.mappings.map((m) => ({
        start: BigInt(m.start),
        end: BigInt(m.end),
        offset: BigInt(m.offset),
        path: m.path,
      }));
      const ours = ourStacks(folded, perlSecondFrameRemovals(name), new NmNames(files));
      const perl = perlStacks(name, maps);
      const unq = dwarfShortNames(perl, ours);
      expect(sorted(unqualify(ours, unq))).toEqual(sorted(unqualify(perl, unq)));
      expect(sorted(unqualify(selfTotals(ours), unq))).toEqual(sorted(unqualify(perlSelf(name, maps), unq)));
    }, 30_000);
  }
});

describe('the default fold (inlined functions as frames) against Go pprof -traces with its (inline) frames', () => {
  for (const name of PROFILES) {
    it(`${name}: equal stack for stack`, async () => {
      const files = elfFiles(join(GPERF, `${name}.prof`));
      const bytes = new Uint8Array(readFileSync(join(GPERF, `${name}.prof`)));
      const prof = join(tmp, `${name}.go-read.prof`);
      writeFileSync(prof, asGoReadsIt(bytes));
      const r = await cli(['fold', prof, ...files.flatMap((f) => ['--binary', f])]);
      expect(r.code, r.err).toBe(0);
      // Go pprof names a PLT stub after `_init` (the main binary's, size 0: LLVM extends it to the
      // next symbol), we `[MODULE]`; an address outside every mapping (shlib's dlclose'd plugin)
      // is `<unknown>` there, `0x…` here.
      const ours: Stacks = new Map();
      for (const [frames, n] of parseFolded(r.out)) {
        const k = frames.map((f) => (/^0x[0-9a-f]+$/.test(f) ? '<unknown>' : sameOperator(f)));
        add(ours, k.join(';'), n);
      }
      // The period (µs) is the header's fourth word, whatever the word size.
      const v = new DataView(bytes.buffer, bytes.byteOffset);
      const periodMs = v.getUint32(v.getUint32(8, true) === 3 ? 24 : 12, true) / 1000;
      const go = goTraces(oracleText(name, 'go.traces.txt'), periodMs, (f) =>
        f === '_init' ? `[${name}]` : sameOperator(f),
      );
      expect(sorted(ours)).toEqual(sorted(go));
    }, 30_000);
  }
});

describe('symbolization acceptance: the normalisation itself', () => {
  it('shortens names exactly as pprof does (examples from cxx_demangle)', () => {
    expect(shortFunctionName('(anonymous namespace)::Circle::area(int) const')).toBe('::Circle::area');
    expect(
      shortFunctionName(
        'outer::inner::Matrix<double, 48>::operator*(outer::inner::Matrix<double, 48> const&) const',
      ),
    ).toBe('outer::inner::Matrix::operator*');
    expect(
      shortFunctionName('void outer::inner::apply_n<main::{lambda(int)#1}>(int, main::{lambda(int)#1}&&)'),
    ).toBe('outer::inner::apply_n');
    expect(stripVersion('std::_Rb_tree_insert_and_rebalance@@GLIBCXX_3.4')).toBe(
      'std::_Rb_tree_insert_and_rebalance',
    );
  });

  it('replays perl’s 2nd-frame removal only where perl did it (threads_ptt, 5 times)', () => {
    for (const name of PROFILES)
      expect(perlSecondFrameRemovals(name), name).toBe(name === 'threads_ptt' ? 5 : 0);
  });
});

describe('symbolization acceptance: what stays unnamed, and the info report', () => {
  it('shlib: the dlclose’d plugin (outside every mapping) stays 0x…, everything else is named', async () => {
    const { folded } = await symbolized('shlib');
    const lines = folded.trim().split('\n');
    expect(lines).toContain(
      '_start;__libc_start_main;__libc_start_call_main;main;run_plugin;0x7fadeb0ab13a;0x7fadeb0ab10e 8',
    );
    expect(lines).toContain(
      '_start;__libc_start_main;__libc_start_call_main;main;run_plugin;0x7fadeb0ab132;main_callback 5',
    );
    const unnamed = new Set(
      lines.flatMap((l) => l.replace(/ \d+$/, '').split(';')).filter((f) => /0x/.test(f)),
    );
    expect([...unnamed].sort()).toEqual([
      '0x7fadeb0ab10e',
      '0x7fadeb0ab111',
      '0x7fadeb0ab132',
      '0x7fadeb0ab13a',
    ]);
  });

  it('big_synth_small: the vDSO stays [vdso]+0x…', async () => {
    const { folded } = await symbolized('big_synth_small');
    expect(folded).toContain(
      '\n_start;__libc_start_main;__libc_start_call_main;main;run_loop;cpu_seconds;__clock_gettime;[vdso]+0xbe1 46\n',
    );
    expect(folded).toContain(
      '\nclone3;start_thread;thread_main;run_loop;cpu_seconds;__clock_gettime;[vdso]+0xbe1 49\n',
    );
  });

  it('info --binary: every mapped file with a binary is matched, [vdso]/[vsyscall] are not', async () => {
    const { files, info } = await symbolized('shlib');
    const mapped = [...new Set(info.mappings.map((m) => m.path))];
    const withFile = mapped.filter((p) => files.some((f) => basename(f) === basename(p)));
    // the maps text has no build= line, so the match is by file name; the debug files are used
    // through the libraries they belong to (GNU build-id), so none is left over
    expect(info.symbols.symbolized.map((m) => m.mappingPath).sort()).toEqual(withFile.sort());
    // Which debug file lent each library its symbols: the one at the library's build-id (readelf -n).
    const debugOf = (lib: string) => {
      const id = /Build ID: ([0-9a-f]+)/.exec(
        execFileSync('readelf', ['-n', lib], { encoding: 'utf8' }),
      )?.[1];
      const d = id && files.find((f) => f.endsWith(`/.build-id/${id.slice(0, 2)}/${id.slice(2)}.debug`));
      return d ? { debugFile: basename(d) } : {};
    };
    for (const m of info.symbols.symbolized) {
      const lib = files.find((f) => basename(f) === basename(m.mappingPath as string))!;
      expect(m).toEqual({
        mappingPath: m.mappingPath,
        elfFile: basename(m.mappingPath as string),
        by: 'name',
        ...debugOf(lib),
      });
    }
    expect(info.symbols.symbolized.some((m) => 'debugFile' in m)).toBe(true);
    expect(info.symbols.unsymbolizedMappings.sort()).toEqual(['[vdso]', '[vsyscall]']);
    expect(info.symbols.unmatchedFiles).toEqual([]);
  });

  it('without libc’s debug file (found by build-id) its static functions stay libc.so.6+0x…', async () => {
    const prof = join(GPERF, 'tiny.prof');
    const files = elfFiles(prof);
    const libcDebug = '/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug';
    expect(files.filter((f) => f.endsWith(libcDebug))).toHaveLength(1);
    const all = await cli(['fold', '--noinlines', prof, ...files.flatMap((f) => ['--binary', f])]);
    expect(all.out).toContain('_start;__libc_start_main;__libc_start_call_main;main;alpha;spin 8\n');
    const noDebug = files.filter((f) => !f.endsWith(libcDebug));
    const bins = noDebug.flatMap((f) => ['--binary', f]);
    const r = await cli(['fold', '--noinlines', prof, ...bins, '--addresses']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^_start;__libc_start_main;libc\.so\.6\+0x[0-9a-f]+;main;alpha;spin 8$/m);
    // By default, code outside every symbol of a symbolized module is one frame per module.
    const d = await cli(['fold', '--noinlines', prof, ...bins]);
    expect(d.out).toMatch(/^_start;__libc_start_main;\[libc\.so\.6\];main;alpha;spin 8$/m);
  });

  it('info --binary: a mapping whose file is not given is reported, its frames stay MODULE+0x…', async () => {
    const prof = join(GPERF, 'tiny.prof');
    const only = elfFiles(prof).filter((f) => basename(f) === 'tiny');
    const info = JSON.parse((await cli(['info', prof, '--binary', only[0]])).out);
    expect(info.symbols.symbolized).toEqual([
      { mappingPath: '/opt/flamelens-corpus/bin/tiny', elfFile: 'tiny', by: 'name' },
    ]);
    expect(info.symbols.unsymbolizedMappings).toContain('/usr/lib/x86_64-linux-gnu/libc.so.6');
    const fold = await cli(['fold', '--noinlines', prof, '--binary', only[0], '--addresses']);
    expect(fold.out).toMatch(/^_start;libc\.so\.6\+0x[0-9a-f]+;libc\.so\.6\+0x[0-9a-f]+;main;alpha;spin 8$/m);
    const d = await cli(['fold', '--noinlines', prof, '--binary', only[0]]);
    expect(d.out).toMatch(/^_start;\[libc\.so\.6\];\[libc\.so\.6\];main;alpha;spin 8$/m);
  });
});
