// pprof profile.proto against the gperftools corpus, from fixtures in the repo only:
//  1. Go pprof's conversion of each corpus .prof (fixtures/pprof/corpus/NAME.pb.gz), its addresses
//     symbolized by us with the sysroot binaries, equals our symbolized fold of the .prof itself:
//     this is what says that pprof addresses must be looked up as they are (adjustCallers false).
//  2. The same profiles named by their own Lines (Go pprof's symbolization) equal our symbolized
//     .prof at function level, after the normalisation listed in docs/formats/pprof.md.
//  3. Address-only profiles (`go tool pprof -proto -symbolize=none`) fold exactly as the .prof.
//  4. .prof → our .pb.gz → open gives identical folded stacks; go tool pprof reads our export
//     (its -raw and -top output were committed by fixtures/pprof/make_fixtures.sh).
// Needs python3 and binutils (readelf) for symbol_fidelity.py's list of binaries, as
// symbols-acceptance.test.ts does.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { parseProfile } from '../src/core/formats/detect.ts';
import { writePprof } from '../src/core/formats/pprof-write.ts';
import { foldProfile } from '../src/core/model/fold.ts';
import { withSampleType } from '../src/core/model/sample-types.ts';
import { toFoldedText } from '../src/core/model/serialize.ts';
import { type Demangle, loadDemangler } from '../src/core/symbols/demangle.ts';
import { symbolizerFromFiles } from '../src/core/symbols/symbolize.ts';
import type { LocationLines, RawProfile } from '../src/core/types.ts';
import { runCli } from './helpers/cli.ts';
import { CORPUS_PROFILES } from './helpers/corpus';

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
const GPERF = here('./fixtures/gperf/');
const PPROF = here('./fixtures/pprof/');
const CHECKS = here('./checks/');
const read = (p: string) => new Uint8Array(readFileSync(p));

const NAMES = CORPUS_PROFILES;

const tmp = mkdtempSync(join(tmpdir(), 'flamelens-pprof-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let demangler: Promise<Demangle> | undefined;
const demangle = () =>
  (demangler ??= loadDemangler({
    wasm: readFileSync(createRequire(import.meta.url).resolve('gecko-profiler-demangle/index_bg.wasm')),
  }));

const elfCache = new Map<string, string[]>();
/** The ELF files (mapped objects + debug files by build-id) the check script finds for a .prof. */
function elfFiles(name: string): string[] {
  let files = elfCache.get(name);
  if (!files) {
    const out = execFileSync(
      'python3',
      [join(CHECKS, 'symbol_fidelity.py'), 'binaries', join(GPERF, `${name}.prof`)],
      {
        encoding: 'utf8',
      },
    );
    files = out.split('\n').filter((l) => l !== '');
    elfCache.set(name, files);
  }
  return files;
}

/** Folded text of `raw`, symbolized with the binaries of corpus profile `name` (demangled). */
async function symbolized(raw: RawProfile, name: string): Promise<string> {
  const dropped = elfFiles(name).map((f) => ({ name: basename(f), bytes: read(f) }));
  // Symbol-table names, as the .prof's function-level comparison with Go's names wants (no DWARF inlines).
  const { symbolizer } = symbolizerFromFiles(raw.meta.mappings, dropped, {
    demangle: await demangle(),
    dwarf: false,
  });
  return toFoldedText(foldProfile(raw, { fileName: name, symbolizer }));
}

const plain = (raw: RawProfile) => toFoldedText(foldProfile(raw, { fileName: 'x' }));

/** The samples/count column of a Go-converted gperftools profile (the .prof counts samples). */
const counts = (raw: RawProfile) => withSampleType(raw, 0);

/** The profile with its Lines and location names removed: addresses only. */
function addressOnly(raw: RawProfile): RawProfile {
  const out: RawProfile = {
    ...raw,
    locations: { ...raw.locations, locName: raw.locations.locName.map(() => -1) },
  };
  delete out.lines;
  return out;
}

/** The profile with each location's outermost Line only (its real function, no inlined frames). */
function functionLevel(raw: RawProfile): RawProfile {
  const L = raw.lines!;
  const n = raw.locations.count;
  const start = new Uint32Array(n + 1);
  const names: number[] = [];
  for (let i = 0; i < n; i++) {
    start[i] = names.length;
    if (L.start[i + 1] > L.start[i]) names.push(L.name[L.start[i]]);
  }
  start[n] = names.length;
  const lines: LocationLines = {
    start,
    name: Int32Array.from(names),
    file: new Int32Array(names.length).fill(-1),
    line: new Uint32Array(names.length),
  };
  return { ...raw, lines };
}

type Stacks = Map<string, number>;
function parseFolded(text: string, frame: (f: string) => string = (f) => f): Stacks {
  const out: Stacks = new Map();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const sp = line.lastIndexOf(' ');
    const k = line.slice(0, sp).split(';').map(frame).join(';');
    out.set(k, (out.get(k) ?? 0) + Number(line.slice(sp + 1)));
  }
  return out;
}

/** Go pprof's legacy parser deleted these frames of threads_ptt (the "2nd frame always the same" heuristic). */
const GO_HEURISTIC: Record<string, string[]> = { threads_ptt: ['main', 'main_thread_work'] };

function withoutGoHeuristic(name: string, folded: string): string {
  const drop = GO_HEURISTIC[name];
  if (!drop) return folded;
  const out: string[] = [];
  for (const line of folded.split('\n')) {
    if (line === '') continue;
    const sp = line.lastIndexOf(' ');
    const fr = line.slice(0, sp).split(';');
    // the frames are removed right above the leaf, as the parser removes Location[1] twice
    for (const d of [...drop].reverse()) {
      expect(fr[fr.length - 2]).toBe(d);
      fr.splice(fr.length - 2, 1);
    }
    out.push(`${fr.join(';')} ${line.slice(sp + 1)}`);
  }
  return `${out.sort().join('\n')}\n`;
}

// ---- the function-level normalisation (docs/formats/pprof.md): symbol_fidelity.py's `short`
const CLONE = /(?:\.(?:constprop|isra|part|cold|lto_priv|localalias|clone)(?:\.\d+)*)+$/;
function short(name: string): string {
  let n = name.replace(/@@?[\w.]+$/, '').replace(/\[abi:[\w.]+\]/g, '');
  let m: string;
  while ((m = n.replace(/\([^()]*\)(\s*const)?(\s*volatile)?(\s*&{1,2})?/g, '')) !== n) n = m;
  while ((m = n.replace(/<[^<>]*>/g, '')) !== n) n = m;
  n = n.replace(/^.*\s+(\w+::)/, '$1').replace(/\s*\[clone [^\]]*\]/g, '');
  return n.trim().replace(CLONE, '').trim();
}
/** Names Go pprof picked for an address where our symbolizer picks another alias of the same symbol. */
const ALIASES: Record<string, string> = {
  __libc_malloc: 'malloc',
  __libc_free: 'free',
  cfree: 'free',
  __clock_gettime: 'clock_gettime',
};
/** One frame at function level: shortened, aliases unified, unsymbolized (and pprof's `_init`) as [?]. */
function fnFrame(f: string): string {
  if (/^.+\+0x[0-9a-f]+$/.test(f) || /^0x[0-9a-f]+$/.test(f) || f === '_init') return '[?]';
  const s = short(f);
  return ALIASES[s] ?? s;
}

describe('pprof: Go pprof’s conversion of the corpus, against the .prof', () => {
  for (const name of NAMES) {
    it(`${name}: its addresses symbolize as the .prof’s do (addresses used as written)`, async () => {
      const pb = counts(parseProfile(read(join(PPROF, 'corpus', `${name}.pb.gz`))));
      const prof = parseProfile(read(join(GPERF, `${name}.prof`)));
      expect(pb.adjustCallers).toBe(false);
      const fromPb = await symbolized(addressOnly(pb), name);
      const fromProf = withoutGoHeuristic(name, await symbolized(prof, name));
      expect(parseFolded(fromPb)).toEqual(parseFolded(fromProf));
    }, 30_000);

    it(`${name}: named by its own lines, equals the symbolized .prof at function level`, async () => {
      const pb = counts(parseProfile(read(join(PPROF, 'corpus', `${name}.pb.gz`))));
      const prof = parseProfile(read(join(GPERF, `${name}.prof`)));
      const fromPb = parseFolded(plain(functionLevel(pb)), fnFrame);
      const fromProf = parseFolded(withoutGoHeuristic(name, await symbolized(prof, name)), fnFrame);
      expect(fromPb).toEqual(fromProf);
    }, 30_000);
  }
});

describe('pprof: address-only profiles (go tool pprof -proto -symbolize=none)', () => {
  for (const name of ['tiny', 'tiny32', 'shlib', 'threads', 'cxx_demangle', 'deep_recursion']) {
    it(`${name}: folds exactly as the .prof, unsymbolized and symbolized`, async () => {
      const pb = counts(parseProfile(read(join(PPROF, 'addr', `${name}.pb.gz`))));
      expect(pb.lines).toBeUndefined();
      const expected = readFileSync(join(GPERF, 'expected-fold', `${name}.folded`), 'utf8');
      expect(plain(pb)).toBe(expected);
      const prof = parseProfile(read(join(GPERF, `${name}.prof`)));
      expect(await symbolized(pb, name)).toBe(await symbolized(prof, name));
    }, 30_000);
  }
});

describe('pprof: export', () => {
  for (const name of NAMES) {
    it(`${name}: .prof → .pb.gz → open gives the same folded stacks, unsymbolized`, () => {
      const prof = parseProfile(read(join(GPERF, `${name}.prof`)));
      const folded = foldProfile(prof, { fileName: `${name}.prof` });
      const back = parseProfile(writePprof(folded));
      expect(back.format).toBe('pprof');
      expect(back.warnings).toEqual([]);
      // The sample types, period and default Go pprof's legacy reader gives the .prof (its -proto
      // of it: fixtures/pprof/corpus): samples/count and cpu/nanoseconds, cpu shown.
      const go = parseProfile(read(join(PPROF, 'corpus', `${name}.pb.gz`)));
      expect(back.sampleTypes).toEqual(go.sampleTypes);
      expect(back.meta.period).toEqual(go.meta.period);
      expect(back.defaultSampleType).toBe(go.defaultSampleType);
      expect(back.meta.periodUs).toBe(go.meta.periodUs);
      // The samples read back are the .prof's; the time is the same either way.
      expect(plain(counts(back))).toBe(toFoldedText(folded));
      expect(counts(back).meta.periodUs).toBe(prof.meta.periodUs);
      const ns = foldProfile(back, { fileName: 'x' });
      expect(ns.meta.totalSamples).toBe(folded.meta.totalSamples * prof.meta.periodUs * 1000);
      expect(ns.meta.samplingTimeUs).toBe(folded.meta.samplingTimeUs);
    });
  }

  for (const name of ['cxx_demangle', 'shlib', 'big_synth_small']) {
    it(`${name}: symbolized .prof → .pb.gz (CLI proto) → open gives the same folded stacks`, async () => {
      const bins = elfFiles(name).flatMap((f) => ['--binary', f]);
      const out = join(tmp, `${name}.pb.gz`);
      const r = await runCli(['proto', join(GPERF, `${name}.prof`), ...bins, '-o', out]);
      expect(r.code, r.err).toBe(0);
      const fold = await runCli(['fold', join(GPERF, `${name}.prof`), ...bins]);
      // the export's samples/count is the .prof's; its default, cpu, is that × the period
      const periodNs = parseProfile(read(join(GPERF, `${name}.prof`))).meta.periodUs * 1000;
      const again = await runCli(['fold', out, '--sample-type', 'samples']);
      expect(again.out).toBe(fold.out);
      const cpu = await runCli(['fold', out]);
      expect(cpu.out).toBe(fold.out.replace(/ (\d+)$/gm, (_, n) => ` ${Number(n) * periodNs}`));
    }, 30_000);
  }

  it('a pprof profile → .pb.gz → open keeps stacks, sample type and period (Go heap and CPU)', () => {
    for (const f of ['heap', 'cpu']) {
      const raw = parseProfile(read(join(PPROF, 'go', `${f}.pb.gz`)));
      const folded = foldProfile(raw, { fileName: f });
      const back = parseProfile(writePprof(folded));
      expect(plain(back)).toBe(toFoldedText(folded));
      expect(back.sampleTypes).toEqual([raw.sampleTypes![raw.defaultSampleType!]]);
      expect(back.meta.period).toEqual(raw.meta.period);
      expect(back.meta.periodUs).toBe(raw.meta.periodUs);
    }
  });

  /** Stacks → weight from `go tool pprof -raw` output: names, or MODULE+0xOFFSET from the mappings. */
  function goRaw(text: string): Stacks {
    const samples: Array<[number, number[]]> = [];
    const locs = new Map<number, string>();
    const maps = new Map<number, { start: bigint; offset: bigint; path: string }>();
    let section = '';
    for (const line of text.split('\n')) {
      if (/^(Samples|Locations|Mappings)/.test(line)) {
        section = line.replace(/:.*/, '');
        continue;
      }
      if (section === 'Samples') {
        // the first value (samples/count), then the others
        const m = /^\s+(\d+)(?: +\d+)*: ([\d ]+)$/.exec(line);
        if (m) samples.push([Number(m[1]), m[2].trim().split(' ').map(Number)]);
      } else if (section === 'Locations') {
        const named = /^\s+(\d+): 0x0 M=\d+ (.*) :0 s=0$/.exec(line);
        const addr = /^\s+(\d+): (0x[0-9a-f]+) M=(\d+) $/.exec(line);
        if (named) locs.set(Number(named[1]), named[2]);
        else if (addr) locs.set(Number(addr[1]), `@${addr[2]}@${addr[3]}`);
      } else if (section === 'Mappings') {
        const m = /^(\d+): (0x[0-9a-f]+)\/0x[0-9a-f]+\/(0x[0-9a-f]+) (\S+)/.exec(line);
        if (m) maps.set(Number(m[1]), { start: BigInt(m[2]), offset: BigInt(m[3]), path: m[4] });
      }
    }
    const name = (id: number) => {
      const n = locs.get(id)!;
      const a = /^@(0x[0-9a-f]+)@(\d+)$/.exec(n);
      if (!a) return n;
      const m = maps.get(Number(a[2]))!;
      return `${basename(m.path)}+0x${(BigInt(a[1]) - m.start + m.offset).toString(16)}`;
    };
    const out: Stacks = new Map();
    for (const [v, ids] of samples) {
      const k = ids.map(name).reverse().join(';');
      out.set(k, (out.get(k) ?? 0) + v);
    }
    return out;
  }

  for (const name of ['tiny', 'cxx_demangle']) {
    it(`${name}: go tool pprof reads our export (committed -raw and -top output)`, async () => {
      const committed = read(join(PPROF, 'export', `${name}.pb.gz`));
      // The committed export was written with full names, one frame per address.
      const bins = [
        ...(name === 'tiny' ? [] : elfFiles(name).flatMap((f) => ['--binary', f])),
        '--full-names',
        '--addresses',
        // The committed export was made from the symbol tables' names (make_fixtures.sh).
        '--noinlines',
      ];
      const out = join(tmp, `export-${name}.pb.gz`);
      expect((await runCli(['proto', join(GPERF, `${name}.prof`), ...bins, '-o', out])).code).toBe(0);
      // the writer still writes what go read
      expect(gunzipSync(read(out))).toEqual(gunzipSync(committed));
      const fold = await runCli(['fold', join(GPERF, `${name}.prof`), ...bins]);
      const raw = readFileSync(join(PPROF, 'export', `${name}.go-raw.txt`), 'utf8');
      expect(goRaw(raw)).toEqual(parseFolded(fold.out));
      // Go reads the export as it reads the .prof: the same sample types, period and values
      // per sample (counts and nanoseconds), the same type shown and total.
      const source = readFileSync(join(PPROF, 'export', `${name}.source.go-raw.txt`), 'utf8');
      const head = (t: string) =>
        t.slice(t.indexOf('PeriodType:'), t.indexOf('\n', t.indexOf('Samples:\n') + 9));
      expect(head(raw)).toBe(head(source));
      expect(head(raw)).toContain('Samples:\nsamples/count cpu/nanoseconds');
      // per column, the sum over samples (Go merges samples of equal locations: ours name functions)
      const sums = (t: string) =>
        [...t.matchAll(/^ +(\d+) +(\d+): /gm)].reduce(
          ([c, n], m) => [c + Number(m[1]), n + Number(m[2])],
          [0, 0],
        );
      expect(sums(raw)).toEqual(sums(source));
      const period = Number(/^Period: (\d+)$/m.exec(source)![1]);
      expect(sums(raw)[1]).toBe(sums(raw)[0] * period);
      const top = readFileSync(join(PPROF, 'export', `${name}.go-top.txt`), 'utf8');
      const sourceTop = readFileSync(join(PPROF, 'export', `${name}.source.go-top.txt`), 'utf8');
      // (how much the shown nodes account for differs: the .prof's nodes are addresses, some
      // under -nodefraction; ours are functions)
      const summary = (t: string) => [/^Type: .*$/m.exec(t)?.[0], / of (\S+) total$/m.exec(t)?.[1]];
      expect(summary(top)).toEqual(summary(sourceTop));
      expect(summary(top)[0]).toBe('Type: cpu');
    }, 30_000);
  }
});
