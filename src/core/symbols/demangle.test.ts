// The demangler against c++filt and llvm-cxxfilt on every C++ symbol of a real program
// (test/fixtures/names/bin/cxxnames, made by test/fixtures/src/make_cxxnames_fixtures.sh, with
// both tools' output in cxxnames.cxxfilt.tsv): thunks, ABI tags on unscoped names and constructor
// templates, which the wasm demangler renders wrongly by itself, come out as the tools print them.

import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Demangle, loadDemangler, repairedDemangler } from './demangle.ts';

const TSV = new URL('../../../test/fixtures/names/cxxnames.cxxfilt.tsv', import.meta.url).pathname;
const rows = readFileSync(TSV, 'utf8')
  .trim()
  .split('\n')
  .map((l) => {
    const [mangled, gnu, llvm] = l.split('\t');
    return { mangled, gnu, llvm };
  });

let demangle: Demangle;
beforeAll(async () => {
  demangle = await loadDemangler();
});

/**
 * c++filt's rendering as ours shows it: the demangler leaves out a template function's return type
 * (`void foo<int>(int)` → `foo<int>(int)`), so `ours` may be c++filt's output past its first space.
 */
function sameAsCxxfilt(ours: string, gnu: string): boolean {
  return ours === gnu || (gnu.endsWith(ours) && gnu[gnu.length - ours.length - 1] === ' ');
}

describe('demangled names equal c++filt (cxxnames: every C++ symbol)', () => {
  it('every symbol, up to the template return type the demangler leaves out', () => {
    expect(rows.length).toBeGreaterThan(60);
    const wrong = rows.filter((r) => !sameAsCxxfilt(demangle(r.mangled), r.gnu));
    expect(wrong.map((r) => [r.mangled, demangle(r.mangled), r.gnu])).toEqual([]);
  });

  it('thunks: non-virtual and virtual, to methods and destructors (as both tools print them)', () => {
    const thunks = rows.filter((r) => r.mangled.startsWith('_ZTh') || r.mangled.startsWith('_ZTv'));
    expect(thunks.length).toBe(6);
    for (const r of thunks) {
      expect(r.gnu).toBe(r.llvm);
      expect(demangle(r.mangled), r.mangled).toBe(r.gnu);
    }
    expect(demangle('_ZThn8_N7DerivedD1Ev')).toBe('non-virtual thunk to Derived::~Derived()');
    expect(demangle('_ZTv0_n24_N4VMid1hEi')).toBe('virtual thunk to VMid::h(int)');
  });

  it('ABI tags on an unscoped function name follow the name, clone suffixes kept', () => {
    const tagged = rows.filter((r) => /^_ZL?\d+[A-Za-z_]\w*B\d/.test(r.mangled));
    expect(tagged.map((r) => r.mangled).sort()).toEqual([
      '_Z5labelB5cxx11i',
      '_Z5labelB5cxx11i.cold',
      '_Z9lib_labelB5cxx11i',
      '_Z9lib_labelB5cxx11i.cold',
    ]);
    for (const r of tagged) expect(demangle(r.mangled), r.mangled).toBe(r.gnu);
    expect(demangle('_Z5labelB5cxx11i')).toBe('label[abi:cxx11](int)');
  });

  it('a constructor template keeps its first parameter (its mangled name has no return type)', () => {
    const ctors = rows.filter((r) => r.gnu.startsWith('Span::Span<'));
    expect(ctors).toHaveLength(2);
    for (const r of ctors) {
      expect(r.gnu).toBe('Span::Span<int const*>(int const*, int const*)');
      expect(demangle(r.mangled)).toBe(r.gnu);
    }
  });

  it('vtables and VTTs read as the tools print them', () => {
    for (const r of rows.filter((x) => x.mangled.startsWith('_ZTV')))
      expect(demangle(r.mangled), r.mangled).toBe(r.gnu);
    // c++filt: `VTT for std::basic_iostream<char, std::char_traits<char> >` (libstdc++'s _ZTTSd).
    expect(demangle('_ZTTSd')).toBe('VTT for std::basic_iostream<char, std::char_traits<char> >');
  });
});

describe('repairedDemangler leaves names to the raw demangler when a repair cannot be made', () => {
  it('a malformed call offset or an inner name the demangler refuses leaves the name as it is', () => {
    const raw = (n: string) => (n === '_ZN1A1fEv' ? 'A::f()' : n);
    const d = repairedDemangler(raw);
    expect(d('_ZThn8_N1A1fEv')).toBe('non-virtual thunk to A::f()');
    expect(d('_ZThx_N1A1fEv')).toBe('_ZThx_N1A1fEv');
    expect(d('_ZThn8_N1B1gEv')).toBe('_ZThn8_N1B1gEv');
    expect(d('_Z5labelB5cxx11i')).toBe('_Z5labelB5cxx11i');
  });
});
