// The globals the core may use: those that exist alike in node (tests, CLI) and in the browser's
// worker. tsconfig.core.json type-checks the core (its non-test files) with the ECMAScript library
// alone and no @types: `document`, `window`, `fs`, `Buffer` or `process` in the core fail
// `npm run typecheck`. This file declares exactly what the core uses of the rest, as much of each as
// it uses; the main tsconfig.json leaves it out (the DOM and node types declare these there).

/** Decodes text: every text format, ELF and DWARF strings, bundles' manifests and names. */
interface TextDecoderOptions {
  fatal?: boolean;
  ignoreBOM?: boolean;
}
declare class TextDecoder {
  constructor(label?: string, options?: TextDecoderOptions);
  decode(input?: ArrayBuffer | ArrayBufferView): string;
}

/** Encodes text: the pprof and snapshot writers, bundles' manifests. */
declare class TextEncoder {
  encode(input?: string): Uint8Array<ArrayBuffer>;
}

/** Timing of the pipeline's stages and of parses given a time budget (`performance.now()`). */
declare const performance: { now(): number };

/** The view's URL form (view/schema.ts encodeView, decodeView). */
declare class URLSearchParams {
  constructor(init?: string);
  append(name: string, value: string): void;
  get(name: string): string | null;
  getAll(name: string): string[];
  set(name: string, value: string): void;
  toString(): string;
}

/** The origins a link downloads from (view/schema.ts linkOrigins). */
declare class URL {
  constructor(url: string, base?: string);
  readonly origin: string;
  readonly protocol: string;
}

/** The demangler is WebAssembly (symbols/demangle.ts instantiates it). */
type BufferSource = ArrayBuffer | ArrayBufferView;
declare namespace WebAssembly {
  class Module {
    constructor(bytes: BufferSource);
  }
  interface Instance {
    readonly exports: Exports;
  }
  interface WebAssemblyInstantiatedSource {
    instance: Instance;
    module: Module;
  }
  type Exports = Record<string, unknown>;
  type ModuleImports = Record<string, unknown>;
  type Imports = Record<string, ModuleImports>;
  function instantiate(bytes: BufferSource, imports?: Imports): Promise<WebAssemblyInstantiatedSource>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
}

/** Vite's `?init` import of the demangler's wasm (as vite/client declares it). */
declare module '*.wasm?init' {
  const initWasm: (options?: WebAssembly.Imports) => Promise<WebAssembly.Instance>;
  export default initWasm;
}

/** Vite's `?url` import of the disassembler's wasm (disasm/engine.ts): where the build put it. */
declare module '*.wasm?url' {
  const url: string;
  export default url;
}
