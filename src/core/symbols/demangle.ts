// C++ (Itanium) and Rust demangling with gecko-profiler-demangle (wasm, ~150 kB gzip), loaded
// lazily on first use.
//
// The package is a wasm-bindgen "bundler" build: its index.js does `import * as wasm from
// './index_bg.wasm'` (wasm ESM integration), which node 20 cannot load and which would give a
// module worker a top-level await (toolchain.md gotcha 6). So we never import index.js: we load
// the JS glue (index_bg.js) and instantiate the wasm ourselves, from
//  - bytes the caller passes (`wasm` option: the CLI reads node_modules/…/index_bg.wasm), or
//  - Vite's `?init` import, which works in Vite builds (module workers included: the wasm file is
//    emitted as an asset and fetched) and in Vitest (read from disk), with no plugin.

import { templateCtorNameEnd } from '../text/mangled.ts';

export type Demangle = (name: string) => string;

export interface LoadDemanglerOptions {
  /** The bytes of gecko-profiler-demangle's index_bg.wasm (or a compiled module). */
  wasm?: BufferSource | WebAssembly.Module;
}

interface Glue {
  demangle_any(name: string): string;
  __wbg_set_wasm(exports: WebAssembly.Exports): void;
}

/** True for names a demangler may change: Itanium C++ (`_Z…`, macOS `__Z…`) and Rust v0 (`_R…`). */
export function looksMangled(name: string): boolean {
  if (name.length < 3 || name.charCodeAt(0) !== 95) return false; // '_'
  const c = name.charCodeAt(1);
  if (c === 90 || c === 82) return true; // 'Z', 'R'
  return c === 95 && name.charCodeAt(2) === 90; // '__Z'
}

let loading: Promise<Demangle> | null = null;

async function instantiate(opts: LoadDemanglerOptions): Promise<Demangle> {
  // @ts-expect-error: the package ships types for index.js only; the glue's API is typed by Glue.
  const glue = (await import('gecko-profiler-demangle/index_bg.js')) as unknown as Glue;
  const imports = { './index_bg.js': glue as unknown as WebAssembly.ModuleImports };
  let instance: WebAssembly.Instance;
  if (opts.wasm instanceof WebAssembly.Module) {
    instance = await WebAssembly.instantiate(opts.wasm, imports);
  } else if (opts.wasm !== undefined) {
    instance = (await WebAssembly.instantiate(opts.wasm, imports)).instance;
  } else {
    const init = (await import('gecko-profiler-demangle/index_bg.wasm?init')).default;
    instance = await init(imports);
  }
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return cachedDemangler(repairedDemangler((name) => glue.demangle_any(name)));
}

/** `n`? digits (a call offset's number), from `i`; the index past it, or -1. */
function offsetEnd(name: string, i: number): number {
  let j = name[i] === 'n' ? i + 1 : i;
  const start = j;
  while (j < name.length && name.charCodeAt(j) >= 48 && name.charCodeAt(j) <= 57) j++;
  return j === start ? -1 : j;
}

/** A <call-offset> (`h` <number> `_`, `v` <number> `_` <number> `_`) at `i`: the index past it, or -1. */
function callOffsetEnd(name: string, i: number): number {
  const kind = name[i];
  if (kind !== 'h' && kind !== 'v') return -1;
  let j = offsetEnd(name, i + 1);
  if (j < 0 || name[j] !== '_') return -1;
  if (kind === 'h') return j + 1;
  j = offsetEnd(name, j + 1);
  return j < 0 || name[j] !== '_' ? -1 : j + 1;
}

const THUNKS: Record<string, string> = {
  h: 'non-virtual thunk to ',
  v: 'virtual thunk to ',
  c: 'covariant return thunk to ',
};

/**
 * Wraps gecko-profiler-demangle (cpp_demangle 0.4) so that the shapes it renders wrongly come out
 * as c++filt and llvm-cxxfilt print them:
 *  - thunks (`_ZThn8_N7DerivedD1Ev`): `{virtual override thunk({offset(-8)}, …)}` → `non-virtual
 *    thunk to Derived::~Derived()` (`virtual thunk to`, `covariant return thunk to`);
 *  - `_ZTV`/`_ZTT` (`{vtable(T)}`, `{vtt(T)}`) → `vtable for T`, `VTT for T`;
 *  - ABI tags on a function's unscoped name (`_Z5labelB5cxx11i`): `label([abi:cxx11], int)` →
 *    `label[abi:cxx11](int)` (a template one, `_Z3fooB5cxx11IiEvT_`, was not demangled at all);
 *  - a constructor template (`_ZNSsC1IPKcEET_S2_RKSaIcE`) lost its first parameter, taken for a
 *    return type: `v` is inserted as one (a builtin type is no substitution candidate).
 * The repaired part is demangled by the same demangler; when it fails the name is as it would be.
 */
export function repairedDemangler(raw: Demangle): Demangle {
  const demangle = (name: string): string => {
    if (name.startsWith('_ZT')) {
      const kind = name[3];
      if (kind === 'h' || kind === 'v' || kind === 'c') {
        let i = callOffsetEnd(name, kind === 'c' ? 4 : 3);
        if (kind === 'c' && i >= 0) i = callOffsetEnd(name, i);
        if (i < 0) return raw(name);
        const inner = `_Z${name.slice(i)}`;
        const out = demangle(inner);
        return out === inner ? name : THUNKS[kind] + out;
      }
      if (kind === 'V' || kind === 'T') {
        const typeinfo = raw(`_ZTI${name.slice(4)}`);
        if (!typeinfo.startsWith('typeinfo for ')) return raw(name);
        return (kind === 'V' ? 'vtable for ' : 'VTT for ') + typeinfo.slice('typeinfo for '.length);
      }
      return raw(name);
    }
    const tagged = untagUnscoped(name);
    if (tagged !== null) {
      const out = demangle(tagged.plain);
      if (out !== tagged.plain && out.startsWith(tagged.id))
        return tagged.id + tagged.tags + out.slice(tagged.id.length);
      return raw(name);
    }
    const end = templateCtorNameEnd(name);
    if (end >= 0) {
      const withVoid = `${name.slice(0, end)}v${name.slice(end)}`;
      const out = raw(withVoid);
      return out === withVoid ? raw(name) : out;
    }
    return raw(name);
  };
  return demangle;
}

/**
 * `_Z` [`L`] <source-name> <abi-tag>+ …: the name without its tags (`plain`), the source name
 * (`id`) and the tags as printed (`[abi:cxx11]`); null for any other name.
 */
function untagUnscoped(name: string): { plain: string; id: string; tags: string } | null {
  if (!name.startsWith('_Z')) return null;
  let i = name[2] === 'L' ? 3 : 2;
  const sourceName = (): string | null => {
    const start = i;
    while (i < name.length && name.charCodeAt(i) >= 48 && name.charCodeAt(i) <= 57) i++;
    if (i === start || (start === i - 1 && name[start] === '0')) return null;
    const n = Number(name.slice(start, i));
    if (i + n > name.length) return null;
    i += n;
    return name.slice(i - n, i);
  };
  const id = sourceName();
  if (id === null || name[i] !== 'B') return null;
  const idEnd = i;
  let tags = '';
  while (name[i] === 'B') {
    i++;
    const tag = sourceName();
    if (tag === null) return null;
    tags += `[abi:${tag}]`;
  }
  return { plain: name.slice(0, idEnd) + name.slice(i), id, tags };
}

/**
 * The demangler, loaded once (later calls share the same promise). The function it resolves to
 * returns names that are not mangled unchanged, and caches its answers.
 */
export function loadDemangler(opts: LoadDemanglerOptions = {}): Promise<Demangle> {
  if (loading === null) {
    loading = instantiate(opts).catch((e: unknown) => {
      loading = null; // allow a retry
      throw e;
    });
  }
  return loading;
}

/**
 * Wraps a raw demangler: only mangled-looking names reach it, answers are cached (bounded), and
 * a demangler failure leaves the name as it is.
 */
export function cachedDemangler(raw: Demangle, maxEntries = 1 << 17): Demangle {
  const cache = new Map<string, string>();
  return (name: string): string => {
    if (!looksMangled(name)) return name;
    let out = cache.get(name);
    if (out !== undefined) return out;
    try {
      out = raw(name);
      // A name it cannot demangle comes back without its first `_` (it tried it as a macOS name,
      // `__Z…`): the name as it is, then.
      if (out === name.slice(1)) out = name;
    } catch {
      out = name;
    }
    if (cache.size >= maxEntries) cache.clear();
    cache.set(name, out);
    return out;
  };
}
