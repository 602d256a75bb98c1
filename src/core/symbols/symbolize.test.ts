import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { executableMappings } from '../../../test/helpers/maps';
import { splitBig } from '../address.ts';
import type { Mapping } from '../types.ts';
import { type Demangle, loadDemangler, looksMangled } from './demangle.ts';
import { readElf } from './elf.ts';
import { createSymbolizer, type InputFile, symbolizerFromFiles } from './symbolize.ts';

const FIX = new URL('../../../test/fixtures/symbols/', import.meta.url);
const fixturePath = (rel: string) => new URL(rel, FIX).pathname;
const load = (rel: string) => new Uint8Array(readFileSync(fixturePath(rel)));
const file = (rel: string, name = rel.split('/').pop()!): InputFile => ({ name, bytes: load(rel) });

const LIBC = 'sysroot/usr/lib/x86_64-linux-gnu/libc.so.6';
const LIBC_DEBUG = 'sysroot/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug';

function mappingsOf(profile: string): Mapping[] {
  return executableMappings(load(`profiles/${profile}.prof`));
}

/** perl's symbol section: adjusted address → names (outermost first, nm tags removed). */
function perlSymbols(profile: string): [bigint, string[]][] {
  const text = new TextDecoder('latin1').decode(load(`oracle/${profile}.perl.raw`));
  const out: [bigint, string[]][] = [];
  for (const m of text.matchAll(/^0x([0-9a-f]+) (.+)$/gm)) {
    out.push([BigInt(`0x${m[1]}`), m[2].split('--').map((n) => n.replace(/<[0-9a-f]+>$/, ''))]);
  }
  return out;
}

const look = (s: { lookup(hi: number, lo: number): string[] | null }, a: bigint) => {
  const [hi, lo] = splitBig(a);
  return s.lookup(hi, lo);
};

/** `ours` (wasm demangler) equals `cxxfilt` but for a template return type and pack `&&`s. */
function sameModuloDemanglerQuirks(ours: string, cxxfilt: string): boolean {
  const a = ours.replace(/&&/g, '');
  const b = cxxfilt.replace(/&&/g, '');
  return a === b || b.endsWith(` ${a}`);
}

let demangle: Demangle;
beforeAll(async () => {
  demangle = await loadDemangler();
});

describe('demangle', () => {
  it('demangles C++ and Rust, passes other names through', () => {
    expect(demangle('_ZN5outer5inner3fooEv')).toBe('outer::inner::foo()');
    expect(demangle('_ZNSt8ios_base4InitC1Ev')).toBe('std::ios_base::Init::Init()');
    expect(demangle('_RNvCs15kBYyAo9fc_7mycrate3foo')).toMatch(/mycrate::foo/);
    expect(demangle('_ZN4core3ptr13drop_in_place17h0123456789abcdefE')).toBe('core::ptr::drop_in_place');
    expect(demangle('main')).toBe('main');
    expect(demangle('__libc_start_main')).toBe('__libc_start_main');
    expect(demangle('_Z')).toBe('_Z'); // not a valid mangling: unchanged
    expect(looksMangled('_ZN1a1bEv')).toBe(true);
    expect(looksMangled('__ZN1a1bEv')).toBe(true);
    expect(looksMangled('_start')).toBe(false);
  });

  it('loads once', async () => {
    expect(await loadDemangler()).toBe(demangle);
  });

  const cxxfilt = spawnSync('c++filt', ['--version'], { encoding: 'utf8' });
  it.skipIf((cxxfilt.error !== undefined || cxxfilt.status !== 0) && !process.env.CI)(
    'agrees with c++filt on every C++ symbol of cxx_demangle (return types aside)',
    () => {
      const e = readElf(load('bin/cxx_demangle'), 'cxx_demangle');
      const mangled = e.symbols.names.filter((n) => n.startsWith('_Z')).map((n) => n.replace(/@.*$/, ''));
      expect(mangled.length).toBeGreaterThan(20);
      const r = spawnSync('c++filt', [], { input: mangled.join('\n'), encoding: 'utf8' });
      const want = r.stdout.trimEnd().split('\n');
      let withReturnType = 0;
      mangled.forEach((m, i) => {
        const ours = demangle(m);
        // The Firefox demangler leaves out the return type of function templates
        // (`void std::__sort<…>(…)` → `std::__sort<…>(…)`) and drops `&&` from expanded
        // forwarding-reference packs (`std::tuple<>&&` → `std::tuple<>`).
        if (ours !== want[i]) {
          const a = sameModuloDemanglerQuirks(ours, want[i]);
          expect(a, `${m}: ${ours} vs ${want[i]}`).toBe(true);
          withReturnType++;
        }
      });
      expect(withReturnType).toBeLessThan(mangled.length / 2);
    },
  );
});

describe('symbolizerFromFiles on the corpus profiles (names as perl pprof shows them)', () => {
  it('tiny: main binary + libc with its debug file', () => {
    const maps = mappingsOf('tiny');
    const { symbolizer, report, errors } = symbolizerFromFiles(
      maps,
      [file('bin/tiny'), file(LIBC), file(LIBC_DEBUG)],
      { demangle },
    );
    expect(errors).toEqual([]);
    expect(report.matched).toEqual([
      { mappingPath: '/opt/flamelens-corpus/bin/tiny', elfFile: 'tiny', by: 'name' },
      {
        mappingPath: '/usr/lib/x86_64-linux-gnu/libc.so.6',
        elfFile: 'libc.so.6',
        by: 'name',
        debugFile: LIBC_DEBUG.split('/').pop(),
      },
    ]);
    expect(report.unmatchedFiles).toEqual([]);
    expect(report.unsymbolizedMappings).toContain('/usr/lib/x86_64-linux-gnu/libm.so.6');
    expect(report.unsymbolizedMappings).toContain('[vdso]');
    const syms = perlSymbols('tiny');
    expect(syms).toHaveLength(12);
    // perl names the alias from DWARF (__libc_start_main_impl); with DWARF or without, the
    // outermost frame takes libc's own symbol (its .dynsym's exported one), as Go pprof through
    // llvm-symbolizer: the names are perl's otherwise.
    const bySymbols = symbolizerFromFiles(maps, [file('bin/tiny'), file(LIBC), file(LIBC_DEBUG)], {
      demangle,
      dwarf: false,
    }).symbolizer;
    for (const [addr, names] of syms) {
      const want = names.map((n) => (n === '__libc_start_main_impl' ? '__libc_start_main' : n));
      expect(look(bySymbols, addr), addr.toString(16)).toEqual([want[0]]);
      expect(look(symbolizer, addr), addr.toString(16)).toEqual(want);
    }
    expect(look(symbolizer, 0x10n)).toBe(null); // outside every mapping
    expect(look(symbolizer, 0x7fb53b436100n)).toBe(null); // libm: no file given
  });

  it('tiny32: 32-bit main binary; libc frames stay unsymbolized without libc', () => {
    const { symbolizer, report } = symbolizerFromFiles(mappingsOf('tiny32'), [file('bin/tiny32')]);
    expect(report.matched.map((m) => m.elfFile)).toEqual(['tiny32']);
    let named = 0;
    for (const [addr, names] of perlSymbols('tiny32')) {
      const got = look(symbolizer, addr);
      if (names[0].includes('GLIBC')) expect(got).toBe(null);
      else {
        expect(got).toEqual([names[0]]);
        named++;
      }
    }
    expect(named).toBe(8);
  });

  it('shlib: shared library by name; a dlclose-d plugin stays unsymbolized', () => {
    const { symbolizer, report } = symbolizerFromFiles(mappingsOf('shlib'), [
      file('bin/libfoo.so'),
      file(LIBC),
      file(LIBC_DEBUG),
    ]);
    expect(report.matched.map((m) => m.elfFile).sort()).toEqual(['libc.so.6', 'libfoo.so']);
    expect(report.unsymbolizedMappings).toContain('/opt/flamelens-corpus/bin/shlib_main');
    const got = new Map(perlSymbols('shlib').map(([a, n]) => [n[0], look(symbolizer, a)]));
    expect(got.get('foo_inner')).toEqual(['foo_inner']);
    expect(got.get('foo_work')).toEqual(['foo_work']);
    expect(got.get('__libc_start_call_main')).toEqual(['__libc_start_call_main']);
    expect(got.get('main')).toBe(null); // shlib_main not given
    expect(got.get('0x00007fadeb0ab13a')).toBe(null);
  });

  it('cxx_demangle: demangled C++ names, or mangled on request', () => {
    const maps = mappingsOf('cxx_demangle');
    const files = [file('bin/cxx_demangle')];
    // Symbol-table names, as perl shows them (DWARF inline chains: dwarf/dwarf.test.ts).
    const { symbolizer } = symbolizerFromFiles(maps, files, { demangle, dwarf: false });
    const mangled = symbolizerFromFiles(maps, files, { demangle, mangled: true, dwarf: false }).symbolizer;
    const main = maps.find((m) => m.path.endsWith('/cxx_demangle'))!;
    let checked = 0;
    for (const [addr, names] of perlSymbols('cxx_demangle')) {
      if (addr < main.start || addr >= main.end) continue;
      const got = look(symbolizer, addr);
      if (names[0] === '_init') {
        expect(got).toBe(null); // a PLT stub after the zero-size _init: Go pprof's [module]
        continue;
      }
      expect(got, names[0]).not.toBe(null);
      // perl prints the DWARF name (sometimes short, e.g. `_M_invoke`); compare the last
      // component of the name without template arguments and parameters.
      const key = (s: string) => {
        let n = s;
        for (let k = 0; k < 20; k++) n = n.replace(/<[^<>]*>|\([^()]*\)/g, '');
        return n.replace(/^.*[ :]/, '');
      };
      expect(key(got![0]), `${got![0]} vs ${names[0]}`).toBe(key(names[0]));
      const raw = look(mangled, addr)![0];
      if (got![0].includes('::')) expect(raw.startsWith('_Z')).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(60);
  });

  it('matches by build-id when the mapping has one, whatever the file is called', () => {
    const maps = mappingsOf('tiny').map((m) =>
      m.path.endsWith('/tiny') ? { ...m, buildId: 'FEECA5EA921EB08F97159818ACA05A34E0AC6C1A' } : m,
    );
    const { symbolizer, report } = symbolizerFromFiles(maps, [file('bin/tiny', 'renamed.bin')]);
    expect(report.matched).toEqual([
      { mappingPath: '/opt/flamelens-corpus/bin/tiny', elfFile: 'renamed.bin', by: 'build-id' },
    ]);
    expect(look(symbolizer, 0x5569632711a6n)).toEqual(['main']);
  });

  it('refuses a same-named file whose build-id differs from the mapping', () => {
    const maps = mappingsOf('tiny').map((m) => (m.path.endsWith('/tiny') ? { ...m, buildId: 'abcd' } : m));
    const { symbolizer, report } = symbolizerFromFiles(maps, [file('bin/tiny')]);
    expect(report.matched).toEqual([]);
    expect(report.unmatchedFiles).toEqual(['tiny']);
    expect(report.warnings.join('\n')).toMatch(/build-id feeca5ea.* differs/);
    expect(look(symbolizer, 0x5569632711a6n)).toBe(null);
  });

  it('uses a debug file alone when it is named after the library', () => {
    const { symbolizer, report } = symbolizerFromFiles(mappingsOf('tiny'), [
      file(LIBC_DEBUG, 'libc.so.6.debug'),
    ]);
    expect(report.matched.map((m) => m.elfFile)).toEqual(['libc.so.6.debug']);
    expect(look(symbolizer, 0x7fb53b57a249n)).toEqual(['__libc_start_call_main']);
  });

  it('reports unusable files and keeps the good ones', () => {
    const tiny = load('bin/tiny');
    const { symbolizer, errors, report } = symbolizerFromFiles(mappingsOf('tiny'), [
      { name: 'notes.txt', bytes: new TextEncoder().encode('hello\nworld\n') },
      { name: 'libc.so.6', bytes: tiny.slice(0, 100) },
      { name: 'tiny', bytes: tiny },
    ]);
    expect(errors.map((e) => e.fileName)).toEqual(['notes.txt', 'libc.so.6']);
    expect(errors[0].message).toMatch(/not an ELF file, an nm listing or \/proc\/kallsyms/);
    expect(errors[1].message).toMatch(/libc\.so\.6: .*past the end of the file/);
    expect(report.matched.map((m) => m.elfFile)).toEqual(['tiny']);
    expect(look(symbolizer, 0x5569632711a6n)).toEqual(['main']);
  });
});

describe('nm listings', () => {
  it('symbolize the main executable like its ELF file does', () => {
    const maps = mappingsOf('tiny');
    const viaElf = symbolizerFromFiles(maps, [file('bin/tiny')]).symbolizer;
    for (const listing of ['nm/tiny.nm', 'nm/tiny.S.nm']) {
      const { symbolizer, report } = symbolizerFromFiles(maps, [file(listing)]);
      expect(report.matched).toEqual([
        { mappingPath: '/opt/flamelens-corpus/bin/tiny', elfFile: listing.split('/').pop(), by: 'nm' },
      ]);
      for (const [addr] of perlSymbols('tiny')) {
        if (addr < 0x7f0000000000n) expect(look(symbolizer, addr), listing).toEqual(look(viaElf, addr));
      }
    }
  });

  it('nm -C names pass through the demangler unchanged', () => {
    const maps = mappingsOf('cxx_demangle');
    const viaElf = symbolizerFromFiles(maps, [file('bin/cxx_demangle')], {
      demangle,
      dwarf: false,
    }).symbolizer;
    const { symbolizer } = symbolizerFromFiles(maps, [file('nm/cxx_demangle.C.nm')], { demangle });
    let same = 0;
    let total = 0;
    for (const [addr] of perlSymbols('cxx_demangle')) {
      const want = look(viaElf, addr);
      if (want === null) continue;
      total++;
      const got = look(symbolizer, addr);
      // c++filt and the wasm demangler differ on template return types.
      if (got && sameModuloDemanglerQuirks(want[0], got[0])) same++;
    }
    expect(total).toBeGreaterThan(50);
    expect(same).toBe(total);
  });

  it('non-PIE style absolute addresses are used as they are', () => {
    const maps: Mapping[] = [{ start: 0x400000n, end: 0x401000n, offset: 0n, path: '/usr/bin/app' }];
    const text = '0000000000400100 T f\n0000000000400200 t g\n0000000000400300 W h\n';
    const { symbolizer } = symbolizerFromFiles(maps, [
      { name: 'app.nm', bytes: new TextEncoder().encode(text) },
    ]);
    expect(look(symbolizer, 0x400150n)).toEqual(['f']);
    expect(look(symbolizer, 0x400250n)).toEqual(['g']);
    expect(look(symbolizer, 0x400350n)).toEqual(['h']);
    expect(look(symbolizer, 0x4000ffn)).toBe(null);
  });

  it('nmTarget names the mapping a listing describes', () => {
    const maps = mappingsOf('shlib');
    const text = new TextDecoder().decode(load('nm/tiny.nm')); // any listing
    const { report } = createSymbolizer(maps, [], {});
    expect(report.matched).toEqual([]);
    const r = symbolizerFromFiles(maps, [{ name: 'symbols.txt', bytes: new TextEncoder().encode(text) }], {
      nmTarget: 'libfoo.so',
    });
    expect(r.report.matched).toEqual([
      { mappingPath: '/opt/flamelens-corpus/bin/libfoo.so', elfFile: 'symbols.txt', by: 'nm' },
    ]);
  });
});

describe('a stripped binary', () => {
  it('describes its mapping though no symbol names its code: its frames are outside the symbols, not without a file', () => {
    // test/fixtures/perf/bin/sorter-stripped: `strip --strip-all`, no defined symbol left (nm: none).
    const bytes = new Uint8Array(
      readFileSync(new URL('../../../test/fixtures/perf/bin/sorter-stripped', import.meta.url)),
    );
    const m: Mapping = {
      start: 0x555555554000n,
      end: 0x555555559000n,
      offset: 0n,
      path: '/usr/bin/sorter-stripped',
    };
    const { symbolizer, report } = symbolizerFromFiles([m], [{ name: 'sorter-stripped', bytes }]);
    expect(report.matched).toEqual([
      { mappingPath: '/usr/bin/sorter-stripped', elfFile: 'sorter-stripped', by: 'name', noSymbols: true },
    ]);
    // the warning says what its frames are named, as the Symbols panel does
    expect(report.warnings).toEqual([
      'sorter-stripped: no function symbols (stripped?): its frames stay [sorter-stripped] (sorter-stripped+0xOFFSET at address granularity)',
    ]);
    const [hi, lo] = splitBig(0x555555555200n);
    expect(symbolizer.lookup(hi, lo)).toBeNull();
    expect(symbolizer.hasSymbolFile?.(hi, lo)).toBe(true);
    // Outside every mapping: no file describes it.
    expect(symbolizer.hasSymbolFile?.(...splitBig(0x7f0000001000n))).toBe(false);
  });
});
