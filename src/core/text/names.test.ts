import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { pprofShort } from '../../../test/helpers/pprof-short.ts';
import { loadDemangler } from '../symbols/demangle.ts';
import { basename, shortFunctionName, shortName } from './names.ts';

describe('basename and shortName', () => {
  it('cut paths and long names', () => {
    expect(basename('/lib/x86_64-linux-gnu/libc.so.6')).toBe('libc.so.6');
    expect(shortName('abcdef', 4)).toBe('abc…');
  });
});

describe('shortFunctionName', () => {
  it.each([
    // The issue's example (libstdc++'s regex executor, as the demangler prints it).
    [
      'std::__detail::_Executor<__gnu_cxx::__normal_iterator<char const*, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > >, std::allocator<std::__cxx11::sub_match<__gnu_cxx::__normal_iterator<char const*, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > >, std::__cxx11::regex_traits<char>, false>::_M_dfs(std::__detail::_Executor<__gnu_cxx::__normal_iterator<char const*, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > >, std::allocator<std::__cxx11::sub_match<__gnu_cxx::__normal_iterator<char const*, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > >, std::__cxx11::regex_traits<char>, false>::_Match_mode, long)',
      'std::__detail::_Executor::_M_dfs',
    ],
    ['(anonymous namespace)::Circle::area(int) const', '(anonymous namespace)::Circle::area'],
    // Thunks stay apart from their method (Go pprof -traces: `non-virtual thunk to
    // Derived::~Derived()`, test/fixtures/names/bin/cxxnames).
    ['non-virtual thunk to Derived::~Derived()', 'non-virtual thunk to Derived::~Derived'],
    ['virtual thunk to VMid::h(int)', 'virtual thunk to VMid::h'],
    [
      'non-virtual thunk to std::basic_iostream<char, std::char_traits<char> >::~basic_iostream()',
      'non-virtual thunk to std::basic_iostream::~basic_iostream',
    ],
    ['std::function<void (int)>::operator()(int) const', 'std::function::operator()'],
    ['Foo::operator()<int>(int)', 'Foo::operator()'],
    ['main::{lambda(int)#1}::operator()(int) const', 'main::{lambda(int)#1}::operator()'],
    ['f(int) const::{lambda()#1}::operator()() const', 'f::{lambda()#1}::operator()'],
    ['bool operator< <int>(Foo<int> const&, Foo<int> const&)', 'operator<'],
    ['std::ostream& operator<<(std::ostream&, Foo const&)', 'operator<<'],
    ['Foo::operator->() const', 'Foo::operator->'],
    ['Foo::operator->*(int)', 'Foo::operator->*'],
    ['Foo::operator<=>(Foo const&) const', 'Foo::operator<=>'],
    ['Foo::operator>>=(int)', 'Foo::operator>>='],
    ['Foo::operator int() const', 'Foo::operator int'],
    ['operator new(unsigned long)', 'operator new'],
    ['operator delete[](void*)', 'operator delete[]'],
    [
      'outer::inner::Matrix<double, 48>::operator*(outer::inner::Matrix<double, 48> const&) const',
      'outer::inner::Matrix::operator*',
    ],
    [
      'void std::__introsort_loop<int*, long, __gnu_cxx::__ops::_Iter_less_iter>(int*, int*, long, __gnu_cxx::__ops::_Iter_less_iter)',
      'std::__introsort_loop',
    ],
    ['foo(void (*)(int), int (*) [3])', 'foo'],
    ['A::f() &&', 'A::f'],
    ['A::g() const volatile &', 'A::g'],
    [
      'std::__cxx11::basic_string<char>::_M_create[abi:cxx11](unsigned long&, unsigned long)',
      'std::__cxx11::basic_string::_M_create',
    ],
    ['foo::bar[abi:cxx11]()', 'foo::bar'],
    ['foo(int)::counter', 'foo::counter'],
    ['compute(int) [clone .cold]', 'compute [clone .cold]'],
    ['A::f(int) [clone .constprop.0]', 'A::f [clone .constprop.0]'],
    // Rust: the hash goes, closures and qualified paths stay.
    ['std::rt::lang_start::{{closure}}::h0123456789abcdef', 'std::rt::lang_start::{{closure}}'],
    [
      '<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop::h0123456789abcdef',
      '<alloc::vec::Vec as core::ops::drop::Drop>::drop',
    ],
    ['core::ptr::drop_in_place<alloc::string::String>', 'core::ptr::drop_in_place'],
    // Not C++: unchanged.
    ['main', 'main'],
    ['__libc_start_main', '__libc_start_main'],
    ['[python3.11]', '[python3.11]'],
    ['libc.so.6+0x2724a', 'libc.so.6+0x2724a'],
    ['0x7fff12345', '0x7fff12345'],
    ['main.(*Server).handle', 'main.(*Server).handle'],
    ['java.util.HashMap.<init>(int)', 'java.util.HashMap.<init>(int)'],
    ['<module> (script.py:3)', '<module> (script.py:3)'],
    ['process (inlined)', 'process (inlined)'],
    ['<img src=x onerror=alert(1)>', '<img src=x onerror=alert(1)>'],
    ['<script>alert(2)</script>', '<script>alert(2)</script>'],
    ['=HYPERLINK("http://example.com")', '=HYPERLINK("http://example.com")'],
    // Unbalanced: unchanged rather than cut wrongly.
    ['broken<int(', 'broken<int('],
  ])('%s', (full, short) => {
    expect(shortFunctionName(full)).toBe(short);
    // Shortening twice changes nothing.
    expect(shortFunctionName(short)).toBe(short);
  });

  it("agrees with the oracle's shortening on every C++ symbol of the fixtures' ELF files", async () => {
    // test/fixtures/names/pprof-short.tsv.gz (made by make_pprof_short.py): mangled name, binutils'
    // demangling, and symbol_fidelity.py's `short` of it. pprof's ShortFunctionName also cuts
    // `operator()`'s brackets and `(anonymous namespace)`, which we keep whole: so the claim is that
    // the oracle's shortening of our short name is its shortening of the full name — we drop all it
    // drops, and merge no two functions that pprof keeps apart. Checked on binutils' demangling (the
    // oracle's input) and on gecko-profiler-demangle's (ours, which spells out `std::istream` &c.).
    const demangle = await loadDemangler();
    const rows = gunzipSync(readFileSync('test/fixtures/names/pprof-short.tsv.gz'))
      .toString('utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t') as [string, string, string]);
    expect(rows.length).toBeGreaterThan(5000);
    const bad: string[] = [];
    for (const [mangled, binutils, oracle] of rows) {
      // The port is faithful to the Python oracle.
      if (pprofShort(binutils) !== oracle)
        bad.push(`port: ${binutils} → ${pprofShort(binutils)} (oracle: ${oracle})`);
      const a = shortFunctionName(binutils);
      if (pprofShort(a) !== oracle) bad.push(`${binutils} → ${a} (oracle: ${oracle})`);
      const full = demangle(mangled);
      const b = shortFunctionName(full);
      if (pprofShort(b) !== pprofShort(full)) bad.push(`${full} → ${b} (oracle: ${pprofShort(full)})`);
    }
    expect(bad.slice(0, 10)).toEqual([]);
  });
});
