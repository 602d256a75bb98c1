// Bar labels of real long C++ names (Go pprof's raw output of the corpus's cxx_demangle program,
// demangled by c++filt): cut to fit, they keep the function's own name.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fitName } from './fit-name';
import { shortFunctionName } from './names';

const raw = readFileSync('test/fixtures/pprof/export/cxx_demangle.go-raw.txt');
const text = (raw[0] === 0x1f ? gunzipSync(raw) : raw).toString('utf8');
/** The corpus's function names (Go pprof's `-raw` locations), longest first. */
const NAMES = [...new Set([...text.matchAll(/ M=\d+ (.+) :\d+ s=\d+$/gm)].map((m) => m[1]))].sort(
  (a, b) => b.length - a.length,
);
const named = (fn: string) => NAMES.find((n) => n.includes(`::${fn}`))!;

describe('fitName', () => {
  it('keeps a label that fits; gives nothing where not two characters fit', () => {
    expect(fitName('main', 4)).toBe('main');
    expect(fitName('main', 1)).toBe('');
  });

  it('drops parameter lists, then template arguments, then qualifiers: the name stays', () => {
    const emplace = named('_M_emplace_hint_unique<');
    expect(emplace.length).toBeGreaterThan(600);
    expect(fitName(emplace, 60)).toBe('std::_Rb_tree<…>::_M_emplace_hint_unique<…>(…)');
    expect(fitName(emplace, 45)).toBe('…_Rb_tree<…>::_M_emplace_hint_unique<…>(…)');
    expect(fitName(emplace, 40)).toBe('…_M_emplace_hint_unique<…>(…)');
    // Narrower than the name: its start, cut at the end.
    expect(fitName(emplace, 12)).toBe('_M_emplace_…');
    const rebalance = named('_Rb_tree_insert_and_rebalance(');
    expect(fitName(rebalance, 40)).toBe('std::_Rb_tree_insert_and_rebalance(…)');
    // A template's parameters hold more templates: emptied as one.
    const swap = named('swap(');
    expect(fitName(swap, 90)).toBe(
      'std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::swap(…)',
    );
    expect(fitName(swap, 40)).toBe('std::__cxx11::basic_string<…>::swap(…)');
  });

  it('every corpus name cut to 30 characters keeps its function’s own name (pprof’s short name’s last part)', () => {
    expect(NAMES.length).toBeGreaterThan(10);
    for (const n of NAMES.filter((x) => x.length > 30)) {
      const fit = fitName(n, 30);
      expect(fit.length, fit).toBeLessThanOrEqual(30);
      const own = shortFunctionName(n).split('::').pop()!;
      expect(fit, n).toContain(own.length < 29 ? own : own.slice(0, 29));
    }
  });

  it('keeps a line frame’s file:line, cutting the name before it', () => {
    expect(fitName('fx::hot_chain inline.cpp:15', 40)).toBe('fx::hot_chain inline.cpp:15');
    expect(fitName('fx::hot_chain inline.cpp:15', 26)).toBe('…hot_chain inline.cpp:15');
    expect(fitName('fx::hot_chain inline.cpp:15', 20)).toBe('hot_c… inline.cpp:15');
    // Too narrow for both: the name's start.
    expect(fitName('fx::hot_chain inline.cpp:15', 10)).toBe('…hot_chain');
    expect(fitName('fx::hot_chain inline.cpp:15', 8)).toBe('hot_cha…');
  });

  it('keeps operators and the anonymous namespace whole, and a leading return type goes first', () => {
    const call = '(anonymous namespace)::Parser::operator()(int, char const*) const';
    expect(fitName(call, 50)).toBe('(anonymous namespace)::Parser::operator()(…) const');
    expect(fitName(call, 30)).toBe('…Parser::operator()(…) const');
    expect(fitName('void std::sort<int*>(int*, int*)', 18)).toBe('…std::sort<…>(…)');
  });

  it('keeps a comparison’s +/− mark before the name', () => {
    expect(fitName('− std::_Rb_tree_insert_and_rebalance(bool, std::_Rb_tree_node_base*)', 30)).toBe(
      '− _Rb_tree_insert_and_rebalan…',
    );
    expect(fitName('+ fx::hot_chain inline.cpp:15', 22)).toBe('+ hot_c… inline.cpp:15');
  });
});
