// llvm-symbolizer's answers saved as fixtures (test/fixtures/dwarf/src/llvm_oracle.py and
// test/fixtures/src/make_names_fixtures.sh): `llvm-symbolizer --functions=linkage --inlining
// --no-demangle --print-address` output, one block per address.

import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

export interface LlvmFrame {
  /** As stored in the binary (mangled); `??` when LLVM knows no name. */
  name: string;
  /** Empty when `??`. */
  file: string;
  /** 0 when unknown. */
  line: number;
}

/**
 * The blocks of a saved llvm-symbolizer output (gzipped when the path ends in `.gz`), in order:
 * each address (`0x…` as printed) and its frames, outermost first.
 */
export function readLlvmOracle(path: string): { vaddr: bigint; frames: LlvmFrame[] }[] {
  const bytes = readFileSync(path);
  const text = path.endsWith('.gz') ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return text
    .split(/\n\n/)
    .map((b) => b.replace(/^\n+/, ''))
    .filter((b) => b.trim() !== '')
    .map((b) => {
      const lines = b.split('\n');
      const frames: LlvmFrame[] = [];
      for (let k = 1; k + 1 < lines.length; k += 2) {
        const m = /^(.*):(\d+):\d+$/.exec(lines[k + 1]);
        const file = m && m[1] !== '??' ? m[1] : '';
        frames.push({ name: lines[k], file, line: m ? Number(m[2]) : 0 });
      }
      return { vaddr: BigInt(lines[0]), frames: frames.reverse() };
    });
}
