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
import {
  countSamples,
  disassembleFunction,
  type FunctionListing,
  findFunctions,
  mappingsOf,
} from '../core/disasm/disasm.ts';
import { type Disassembler, loadDisassembler, type Syntax } from '../core/disasm/engine.ts';
import { DwarfInfo } from '../core/symbols/dwarf/index.ts';
import { looksLikeElf, readElf } from '../core/symbols/elf.ts';
import { oneLine } from '../core/text/escape.ts';
import { basename } from '../core/text/names.ts';
import { compilePattern, type Pattern } from '../core/text/pattern.ts';
import { pprofPercentage, pprofScaledLabel } from '../core/text/pprof-measure.ts';
import { ProfileError, type RawProfile } from '../core/types.ts';

export interface DisasmInput {
  /** The parsed profile, weighed by the sample type asked for. */
  raw: RawProfile;
  /** The profile's unit (pprof's sample unit), for the values' format. */
  unit: string;
  binaries: { name: string; bytes: Uint8Array }[];
  regex: Pattern;
  syntax: Syntax;
  demangle?: (name: string) => string;
}

/** The engine in node: the package's CommonJS module, beside the built CLI or from node_modules. */
export function nodeDisassembler(): Promise<Disassembler> {
  const beside = new URL('./capstone/capstone.cjs', import.meta.url);
  const load = createRequire(import.meta.url);
  const path = existsSync(beside) ? fileURLToPath(beside) : load.resolve('@alexaltea/capstone-js');
  const factory = load(path) as (o?: CapstoneModuleOptions) => Promise<CapstoneModule>;
  return loadDisassembler({ factory });
}

/** The listings of the matching functions that have samples, each binary's in pprof's order. */
export function disasmListings(engine: Disassembler, input: DisasmInput): FunctionListing[] {
  const out: FunctionListing[] = [];
  for (const b of input.binaries) {
    if (!looksLikeElf(b.bytes)) throw new ProfileError(`${b.name}: not an ELF file`, 'unknown');
    const elf = readElf(b.bytes, b.name);
    const mappings = mappingsOf(input.raw.meta.mappings, elf);
    if (mappings.length === 0) continue;
    const dwarf = elf.dwarf ? DwarfInfo.create(elf.dwarf) : null;
    for (const sym of findFunctions(elf, input.regex, input.demangle)) {
      const listing = disassembleFunction(engine, elf, b.bytes, sym, {
        syntax: input.syntax,
        demangle: input.demangle,
        dwarf,
      });
      countSamples(listing, input.raw, elf, mappings);
      if (listing.cum !== 0 || listing.flat !== 0) out.push(listing);
    }
  }
  return out;
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
  /** The parsed profile, weighed by the chosen sample type, and that type's unit. */
  raw: RawProfile;
  unit: string;
  binaries: string[];
  intel: boolean;
  readFile: (path: string) => Uint8Array;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  demangle?: (name: string) => string;
}

/** `flamelens disasm`: the exit status (1: nothing matched or a file is unusable; 2: bad usage). */
export async function disasmCommand(c: DisasmCommand): Promise<number> {
  if (c.binaries.length === 0) {
    c.stderr('flamelens: disasm needs the binaries: --binary PATH (repeatable)\n');
    return 2;
  }
  const compiled = compilePattern(c.regex);
  if (!compiled.ok) {
    c.stderr(`flamelens: bad REGEX: ${compiled.error}\n`);
    return 2;
  }
  const regex = compiled.pattern;
  const binaries = c.binaries.map((p) => ({ name: basename(p), bytes: c.readFile(p) }));
  let listings: FunctionListing[];
  try {
    listings = disasmListings(await nodeDisassembler(), {
      raw: c.raw,
      unit: c.unit,
      binaries,
      regex,
      syntax: c.intel ? 'intel' : 'att',
      demangle: c.demangle,
    });
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    c.stderr(`flamelens: ${oneLine(e.describe())}\n`);
    return 1;
  }
  if (listings.length === 0) {
    c.stderr(`flamelens: no matches found for regexp: ${oneLine(c.regex)}\n`);
    return 1;
  }
  let total = 0;
  for (const w of c.raw.samples.weight) total += Math.abs(w);
  c.stdout(disasmText(listings, total, c.unit));
  return 0;
}
