// shortNameOfMangled, the demangler-free short name, against what it stands in for: the wasm
// demangler's name shortened by shortFunctionName, on every function symbol of the fixture
// binaries and libraries (libstdc++'s templates among them). Where it answers it must agree; it
// must answer for most names, or it saves nothing.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Demangle, loadDemangler } from '../src/core/symbols/demangle';
import { looksLikeElf, readElf } from '../src/core/symbols/elf';
import { shortNameOfMangled } from '../src/core/text/mangled';
import { shortFunctionName } from '../src/core/text/names';

let demangle: Demangle;
beforeAll(async () => {
  const wasm = readFileSync(createRequire(import.meta.url).resolve('gecko-profiler-demangle/index_bg.wasm'));
  demangle = await loadDemangler({ wasm });
});

function elfFiles(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) elfFiles(p, out);
    else if (looksLikeElf(readFileSync(p).subarray(0, 64))) out.push(p);
  }
  return out;
}

/** Every distinct mangled symbol name of the fixtures' ELF files (versions stripped). */
function mangledNames(): string[] {
  const names = new Set<string>();
  for (const f of elfFiles('test/fixtures')) {
    const elf = readElf(new Uint8Array(readFileSync(f)), f);
    for (const n of elf.symbols.names) {
      const bare = n.replace(/@.*$/, '');
      if (bare.startsWith('_Z')) names.add(bare);
    }
  }
  return [...names].sort();
}

describe('shortNameOfMangled', () => {
  it('equals shortFunctionName(demangle(name)) wherever it answers, and answers for most names', () => {
    const names = mangledNames();
    expect(names.length).toBeGreaterThan(3000);
    let answered = 0;
    const wrong: string[] = [];
    for (const m of names) {
      const fast = shortNameOfMangled(m);
      if (fast === null) continue;
      answered++;
      const want = shortFunctionName(demangle(m));
      if (fast !== want) wrong.push(`${m}: ${fast} ≠ ${want}`);
      // The fold shortens again what it is given: a short name must stay as it is.
      else if (shortFunctionName(fast) !== fast) wrong.push(`${m}: ${fast} is shortened again`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
    console.log(`shortNameOfMangled: ${answered} of ${names.length} names without the demangler`);
    expect(answered / names.length).toBeGreaterThan(0.6);
  });

  it('a name the demangler cannot read stays as it is (it used to lose its first underscore)', () => {
    expect(demangle('_Zfoo')).toBe('_Zfoo');
    expect(demangle('_Rxyz')).toBe('_Rxyz');
    expect(demangle('_ZN3foo3barEv')).toBe('foo::bar()');
    expect(demangle('__Z3foov')).toBe('foo()');
    // Where the demangler fails, the short name is still read from the mangled one.
    const m =
      '_ZSt9__fill_a1IPmmEN9__gnu_cxx11__enable_ifIXsrSt11__is_scalarIT0_E7__valueEvE6__typeET_S8_RKS4_';
    expect(demangle(m)).toBe(m);
    expect(shortNameOfMangled(m)).toBe('std::__fill_a1');
  });

  it('shapes it reads, and shapes it leaves to the demangler', () => {
    expect(shortNameOfMangled('_ZN3foo3barIiEEvT_')).toBe('foo::bar');
    expect(shortNameOfMangled('_ZNSt6vectorIiSaIiEEC2Ev')).toBe('std::vector::vector');
    expect(shortNameOfMangled('_ZN12_GLOBAL__N_14workEv')).toBe('(anonymous namespace)::work');
    expect(shortNameOfMangled('_ZNK3fooclEv')).toBe('foo::operator()');
    expect(shortNameOfMangled('_ZL6helperi')).toBe('helper');
    expect(shortNameOfMangled('_Z3foov.cold')).toBeNull(); // a clone: the demangler says `[clone .cold]`
    expect(shortNameOfMangled('_ZZ4mainENKUlvE_clEv')).toBeNull(); // a lambda in main
    expect(shortNameOfMangled('_ZN3fooB5cxx11Ev')).toBe('foo');
    expect(shortNameOfMangled('_ZN1AcviEv')).toBeNull(); // operator int
    expect(shortNameOfMangled('_ZN1A1xE')).toBeNull(); // data
    expect(shortNameOfMangled('main')).toBeNull();
    expect(shortNameOfMangled('_ZN3foo')).toBeNull(); // cut short
  });
});
