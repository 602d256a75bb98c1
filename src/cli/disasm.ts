// `flamelens disasm REGEX FILE --binary …`: the functions matching REGEX in the given binaries,
// disassembled with the profile's samples on each instruction, in `pprof -disasm`'s layout:
//   Total: 18
//   ROUTINE ======================== spin
//           18         18 (flat, cum)   100% of Total
//            .          .       1139: push   %rbp                              ;spin tiny.c:5
// Functions without samples are left out, as pprof leaves them out.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { CapstoneModule, CapstoneModuleOptions } from '@alexaltea/capstone-js';
import type { AnalysisSession } from '../core/analysis/session.ts';
import type { FunctionListing } from '../core/disasm/disasm.ts';
import { type Disassembler, loadDisassembler } from '../core/disasm/engine.ts';
import { oneLine } from '../core/text/escape.ts';
import { basename } from '../core/text/names.ts';
import { compilePattern } from '../core/text/pattern.ts';
import { pprofPercentage, pprofScaledLabel } from '../core/text/pprof-measure.ts';
import { ProfileError } from '../core/types.ts';

/** The engine in node: the package's CommonJS module, beside the built CLI or from node_modules. */
export function nodeDisassembler(): Promise<Disassembler> {
  const beside = new URL('./capstone/capstone.cjs', import.meta.url);
  const load = createRequire(import.meta.url);
  const path = existsSync(beside) ? fileURLToPath(beside) : load.resolve('@alexaltea/capstone-js');
  const factory = load(path) as (o?: CapstoneModuleOptions) => Promise<CapstoneModule>;
  return loadDisassembler({ factory });
}

/** pprof's PrintAssembly text for these listings. */
export function disasmText(listings: readonly FunctionListing[], total: number, unit: string): string {
  const format = (v: number) => pprofScaledLabel(v, unit, 'minimum');
  const valueOrDot = (v: number) => (v === 0 ? '.' : format(v));
  const out: string[] = [`Total: ${format(total)}`];
  for (const l of listings) {
    out.push(`ROUTINE ======================== ${l.symbol.name}`);
    out.push(
      `${format(l.flat).padStart(10)} ${format(l.cum).padStart(10)} (flat, cum) ${pprofPercentage(l.cum, total)} of Total`,
    );
    let last = '';
    for (const ins of l.instructions) {
      const src = ins.line >= 0 ? l.lines[ins.line] : undefined;
      const here = src
        ? `${src.function ? `${src.function} ` : ''}${basename(src.file)}${src.line ? `:${src.line}` : ''}`
        : '';
      const loc = here !== last ? here : '';
      last = here;
      const values = `${valueOrDot(ins.flat).padStart(10)} ${valueOrDot(ins.cum).padStart(10)} ${ins.addressText.padStart(10)}:`;
      if (loc === '') out.push(`${values} ${ins.text}`);
      else if (ins.text.length < 40) out.push(`${values} ${ins.text.padEnd(40)};${loc}`);
      else out.push(`${' '.repeat(74)};${loc}`, `${values} ${ins.text}`);
    }
  }
  return `${out.join('\n')}\n`;
}

export interface DisasmCommand {
  regex: string;
  /** The profile and the binaries, opened as every command opens them. */
  session: AnalysisSession;
  intel: boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** `flamelens disasm`: the exit status (1: nothing matched or a file is unusable; 2: bad usage). */
export async function disasmCommand(c: DisasmCommand): Promise<number> {
  // RE2 semantics (linear time), as pprof's.
  const compiled = compilePattern(c.regex);
  if (!compiled.ok) {
    c.stderr(`flamelens: bad REGEX: ${oneLine(compiled.error)}\n`);
    return 2;
  }
  let listings: FunctionListing[];
  try {
    listings = await c.session.disassemble(compiled.pattern, c.intel ? 'intel' : 'att');
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    c.stderr(`flamelens: ${oneLine(e.describe())}\n`);
    return e.message.includes('--binary') ? 2 : 1;
  }
  if (listings.length === 0) {
    c.stderr(`flamelens: no matches found for regexp: ${oneLine(c.regex)}\n`);
    return 1;
  }
  const { raw, unit } = c.session.weighed();
  let total = 0;
  for (const w of raw.samples.weight) total += Math.abs(w);
  c.stdout(disasmText(listings, total, unit));
  return 0;
}
