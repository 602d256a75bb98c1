// The disassembly of a profile's functions: for each binary given that the profile maps, the
// functions a name matcher picks, their instructions with the profile's samples on them. The
// analysis seam (core/analysis/session.ts) runs it over its own symbol files, for the CLI's
// `disasm` and the app's Assembly tab alike.

import { DwarfInfo } from '../symbols/dwarf/index';
import { looksLikeElf, readElf } from '../symbols/elf';
import { ProfileError, type RawProfile } from '../types';
import {
  countSamples,
  disassembleFunction,
  type FunctionListing,
  type FunctionMatch,
  findFunctions,
  mappingsOf,
} from './disasm';
import type { Disassembler, Syntax } from './engine';

export interface DisasmInput {
  /** The parsed profile, weighed by the sample type asked for. */
  raw: RawProfile;
  binaries: readonly { name: string; bytes: Uint8Array }[];
  /** Which functions: a regular expression (the CLI's REGEX), or an exact name. */
  match: FunctionMatch;
  syntax: Syntax;
  demangle?: (name: string) => string;
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
    for (const sym of findFunctions(elf, input.match, input.demangle)) {
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
