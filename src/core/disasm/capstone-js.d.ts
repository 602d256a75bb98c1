// Types for the parts of @alexaltea/capstone-js (Capstone 5 compiled to WebAssembly by Emscripten;
// the package ships none) that disasm/engine.ts uses.
declare module '@alexaltea/capstone-js' {
  export interface CapstoneInstruction {
    id: number;
    /** An i64 read from wasm memory. */
    address: bigint | number;
    size: number;
    mnemonic: string;
    op_str: string;
  }
  export interface CapstoneHandle {
    option(option: number, value: number): void;
    disasm(buffer: Uint8Array, address: bigint | number, max?: number): CapstoneInstruction[];
    close(): void;
  }
  export interface CapstoneModule {
    Capstone: new (arch: number, mode: number) => CapstoneHandle;
    ARCH_X86: number;
    ARCH_ARM64: number;
    MODE_32: number;
    MODE_64: number;
    MODE_ARM: number;
    MODE_LITTLE_ENDIAN: number;
    MODE_BIG_ENDIAN: number;
    OPT_SYNTAX: number;
    OPT_SYNTAX_ATT: number;
    OPT_SYNTAX_INTEL: number;
  }
  export interface CapstoneModuleOptions {
    wasmBinary?: ArrayBuffer | Uint8Array;
    locateFile?: (path: string, prefix: string) => string;
  }
  const MCapstone: (options?: CapstoneModuleOptions) => Promise<CapstoneModule>;
  export default MCapstone;
}
