// The disassembler engine: Capstone 5 compiled to WebAssembly (@alexaltea/capstone-js, x86 and
// AArch64 among others; chosen by measurement: docs/DESIGN.md "Disassembly"), loaded on first use
// by a dynamic import, so it is in no bundle until a disassembly is asked for.
//
// Where its wasm comes from:
//  - in Vite builds (the worker) and Vitest: the package's capstone.wasm as an emitted asset
//    (`?url`), which the service worker precaches with the app's other wasm;
//  - in node (the CLI): the caller passes the package's module and/or the wasm bytes (`factory`,
//    `wasm`), since the package's node path needs CommonJS's __dirname, which an ES bundle lacks.

import type { CapstoneModule, CapstoneModuleOptions } from '@alexaltea/capstone-js';

export type Arch = 'x86-64' | 'x86' | 'aarch64';
/** AT&T is objdump's (and so pprof's) default for x86; AArch64 has one syntax. */
export type Syntax = 'att' | 'intel';

/** One decoded instruction, as the engine spells it. */
export interface RawInstruction {
  address: bigint;
  size: number;
  mnemonic: string;
  operands: string;
}

export interface Disassembler {
  /**
   * Decodes `bytes` found at `address`. Bytes that are no instruction become one `(bad)` entry of
   * one byte (x86) or four (AArch64), and decoding goes on after them, as objdump does.
   */
  decode(arch: Arch, bytes: Uint8Array, address: bigint, syntax?: Syntax): RawInstruction[];
}

export interface LoadDisassemblerOptions {
  /** The bytes of the package's dist/capstone.wasm. */
  wasm?: Uint8Array;
  /** The package's module (its default export), loaded by the caller (node: `require`). */
  factory?: (options?: CapstoneModuleOptions) => Promise<CapstoneModule>;
}

let loading: Promise<Disassembler> | null = null;

async function instantiate(opts: LoadDisassemblerOptions): Promise<Disassembler> {
  const factory = opts.factory ?? (await import('@alexaltea/capstone-js')).default;
  const moduleOptions: CapstoneModuleOptions = {};
  if (opts.wasm !== undefined) moduleOptions.wasmBinary = opts.wasm;
  else if (opts.factory === undefined) {
    const url = (await import('@alexaltea/capstone-js/dist/capstone.wasm?url')).default;
    moduleOptions.locateFile = () => url;
  }
  return engineOf(await factory(moduleOptions));
}

/** A Disassembler over a loaded Capstone module: one handle per architecture and syntax, kept. */
export function engineOf(cs: CapstoneModule): Disassembler {
  const handles = new Map<string, InstanceType<CapstoneModule['Capstone']>>();
  const handle = (arch: Arch, syntax: Syntax) => {
    const key = `${arch}/${syntax}`;
    let h = handles.get(key);
    if (h === undefined) {
      if (arch === 'aarch64') h = new cs.Capstone(cs.ARCH_ARM64, cs.MODE_ARM);
      else {
        h = new cs.Capstone(cs.ARCH_X86, arch === 'x86-64' ? cs.MODE_64 : cs.MODE_32);
        h.option(cs.OPT_SYNTAX, syntax === 'att' ? cs.OPT_SYNTAX_ATT : cs.OPT_SYNTAX_INTEL);
      }
      handles.set(key, h);
    }
    return h;
  };
  return {
    decode(arch, bytes, address, syntax = 'att') {
      const h = handle(arch, syntax);
      const out: RawInstruction[] = [];
      const step = arch === 'aarch64' ? 4 : 1;
      let pos = 0;
      while (pos < bytes.length) {
        let got: ReturnType<typeof h.disasm>;
        try {
          got = h.disasm(bytes.subarray(pos), address + BigInt(pos));
        } catch {
          // Capstone.js throws when the first bytes decode to nothing.
          got = [];
        }
        for (const i of got)
          out.push({ address: BigInt(i.address), size: i.size, mnemonic: i.mnemonic, operands: i.op_str });
        const last = got[got.length - 1];
        if (last !== undefined) {
          pos = Number(BigInt(last.address) - address) + last.size;
        } else {
          const size = Math.min(step, bytes.length - pos);
          out.push({ address: address + BigInt(pos), size, mnemonic: '(bad)', operands: '' });
          pos += size;
        }
      }
      return out;
    },
  };
}

/** The disassembler, loaded once (later calls share the promise; a failed load may be retried). */
export function loadDisassembler(opts: LoadDisassemblerOptions = {}): Promise<Disassembler> {
  if (loading === null) {
    loading = instantiate(opts).catch((e: unknown) => {
      loading = null;
      throw e;
    });
  }
  return loading;
}
