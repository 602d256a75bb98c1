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
  return cachedDemangler((name) => glue.demangle_any(name));
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
