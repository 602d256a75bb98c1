// A function's disassembly with the profile's samples on it, as `pprof -disasm` and weblist show
// it: each instruction of an ELF symbol's range (x86-64, x86, AArch64), addresses as objdump
// prints them, jump and call targets resolved to addresses and `<symbol+0xoff>` labels, the source
// line of each (DWARF's innermost frame, as `objdump -l`), and per instruction flat (samples whose
// leaf is there) and cum (samples with it anywhere on the stack, callers at PC − 1 as the fold
// looks them up; once per sample). An address inside an instruction counts for that instruction,
// as pprof's annotateAssembly sums the samples up to the next one.

import { DwarfInfo } from '../symbols/dwarf/index.ts';
import { type ElfFile, offsetToVaddr, stripVersion, vaddrToOffset } from '../symbols/elf.ts';
import { EM_386, EM_AARCH64, EM_X86_64 } from '../symbols/machines.ts';
import { basename, shortFunctionName } from '../text/names.ts';
import { type Mapping, ProfileError, type RawProfile } from '../types.ts';
import type { Arch, Disassembler, Syntax } from './engine.ts';

/** A function symbol of an ELF file: its name (demangled when a demangler was given) and range. */
export interface FunctionSymbol {
  name: string;
  /** The name as stored (mangled, `@VERSION` removed). */
  rawName: string;
  start: bigint;
  end: bigint;
}

export interface AsmInstruction {
  address: bigint;
  /** As objdump prints it: lowercase hex without 0x or leading zeros. */
  addressText: string;
  /** Where it is in the file (what an address frame says: its offset in its module's file). */
  fileOffset: number;
  size: number;
  mnemonic: string;
  /** The operands as the engine spells them. */
  operands: string;
  /** objdump's layout: `mnemonic operands`, a direct target as `ADDRESS <symbol+0xoff>`. */
  text: string;
  /** A direct jump's or call's target; absent for other instructions. */
  target?: bigint;
  /** `symbol` or `symbol+0xoff` of the target, when a symbol of the file holds it. */
  targetLabel?: string;
  /** The instruction of this listing the target is (a jump within the function), else -1. */
  targetIndex: number;
  /** Index into `FunctionListing.lines`; -1 without DWARF for this address. */
  line: number;
  flat: number;
  cum: number;
}

/** A source line the function's instructions come from (the innermost inlined frame's). */
export interface SourceLine {
  file: string;
  line: number;
  /** The function DWARF names there (an inlined one for inlined code), demangled as the symbols are. */
  function: string;
  /** Its instructions, in address order. */
  instructions: number[];
  flat: number;
  cum: number;
}

export interface FunctionListing {
  symbol: FunctionSymbol;
  arch: Arch;
  instructions: AsmInstruction[];
  /** Sorted by file, then line: weblist's order (each line, then its instructions). */
  lines: SourceLine[];
  /** Samples whose leaf is in the function; samples with any of its addresses on the stack. */
  flat: number;
  cum: number;
}

/** The architecture of an ELF file the disassembler reads, or a ProfileError saying why not. */
export function archOf(elf: ElfFile): Arch {
  if (elf.machine === EM_X86_64) return 'x86-64';
  if (elf.machine === EM_386) return 'x86';
  if (elf.machine === EM_AARCH64 && elf.littleEndian) return 'aarch64';
  throw new ProfileError(
    `${elf.fileName}: cannot disassemble machine ${elf.machine}${elf.machine === EM_AARCH64 ? ' (big-endian)' : ''}: x86-64, x86 and AArch64 only`,
    'unknown',
  );
}

const bigOf = (hi: number, lo: number) => (BigInt(hi) << 32n) | BigInt(lo);

/**
 * Which functions to disassemble: `test` on a symbol's name (demangled, and as stored); `mayMatch`,
 * when given, on the stored name first: false skips the symbol without demangling it (a binary
 * has 100k symbols: demangling them all for one function took seconds).
 */
export interface FunctionMatch {
  test(name: string): boolean;
  mayMatch?(rawName: string): boolean;
}

/**
 * The function the page names (a frame's function name: demangled and shortened as the view
 * shows it, or whole). Its identifier (the part after the last `::`) is in the mangled name too:
 * the symbols without it are skipped undemangled.
 */
export function namedFunction(name: string): FunctionMatch {
  const ident = /(?:^|::)([A-Za-z_][A-Za-z0-9_]*)$/.exec(name)?.[1];
  return {
    test: (n) => n === name || shortFunctionName(n) === name,
    ...(ident && !ident.startsWith('operator') && { mayMatch: (raw: string) => raw.includes(ident) }),
  };
}

/** The file's symbols whose name (demangled or as stored) matches `re`, by name then address (pprof's order). */
export function findFunctions(
  elf: ElfFile,
  re: FunctionMatch,
  demangle?: (name: string) => string,
): FunctionSymbol[] {
  const t = elf.symbols;
  const out: FunctionSymbol[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < t.count; i++) {
    const rawName = stripVersion(t.names[i]);
    if (re.mayMatch && !re.mayMatch(rawName)) continue;
    const name = demangle ? demangle(rawName) : rawName;
    if (!re.test(name) && !re.test(rawName)) continue;
    const start = bigOf(t.startHi[i], t.startLo[i]);
    const end = bigOf(t.endHi[i], t.endLo[i]);
    const key = `${start}:${name}`;
    if (end <= start || seen.has(key)) continue;
    seen.add(key);
    out.push({ name, rawName, start, end });
  }
  return out.sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.start < b.start ? -1 : a.start > b.start ? 1 : 0,
  );
}

/** The name and offset objdump gives an address: `sym` or `sym+0x1c`; undefined outside every symbol. */
function labelOf(elf: ElfFile, addr: bigint, demangle?: (name: string) => string): string | undefined {
  const t = elf.symbols;
  // Binary search on starts: the last symbol starting at or below addr.
  let lo = 0;
  let hi = t.count - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (bigOf(t.startHi[mid], t.startLo[mid]) <= addr) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const start = found < 0 ? 0n : bigOf(t.startHi[found], t.startLo[found]);
  if (found < 0 || addr >= bigOf(t.endHi[found], t.endLo[found])) return pltLabel(elf, addr, demangle);
  const raw = stripVersion(t.names[found]);
  const name = demangle ? demangle(raw) : raw;
  return addr === start ? name : `${name}+0x${(addr - start).toString(16)}`;
}

/** objdump's label of an address in a PLT stub: `name@plt` (`+0xoff` inside it); undefined elsewhere. */
function pltLabel(elf: ElfFile, addr: bigint, demangle?: (name: string) => string): string | undefined {
  const stub = elf.plt?.find((s) => addr >= s.start && addr < s.end);
  if (!stub) return undefined;
  const name = `${demangle ? demangle(stub.name) : stub.name}@plt`;
  return addr === stub.start ? name : `${name}+0x${(addr - stub.start).toString(16)}`;
}

const X86_BRANCH = /^(?:j[a-z]+|call[lqw]?|loop[a-z]*|xbegin)$/;
const A64_BRANCH = /^(?:b|bl|b\.[a-z]+|cbn?z|tbn?z)$/;

/** A direct branch's target from the engine's operands (x86: `0x1139`; AArch64: last `#0x1139`). */
function directTarget(arch: Arch, mnemonic: string, operands: string): bigint | undefined {
  if (arch === 'aarch64') {
    if (!A64_BRANCH.test(mnemonic)) return undefined;
    const m = /#(0x[0-9a-f]+)$/.exec(operands);
    return m ? BigInt(m[1]) : undefined;
  }
  if (!X86_BRANCH.test(mnemonic)) return undefined;
  const m = /^\$?(0x[0-9a-f]+)$/.exec(operands.trim());
  return m ? BigInt(m[1]) : undefined;
}

export interface DisassembleOptions {
  syntax?: Syntax;
  demangle?: (name: string) => string;
  /** The file's DWARF, when made already (DwarfInfo.create is not free for large files). */
  dwarf?: DwarfInfo | null;
}

/** The instructions of `sym` in `elf` (whose bytes are `bytes`), with their source lines; no samples yet. */
export function disassembleFunction(
  engine: Disassembler,
  elf: ElfFile,
  bytes: Uint8Array,
  sym: FunctionSymbol,
  opts: DisassembleOptions = {},
): FunctionListing {
  const arch = archOf(elf);
  if (elf.isDebugFile)
    throw new ProfileError(
      `${elf.fileName}: a separate debug file holds no code: drop the binary itself`,
      'unknown',
    );
  const offset = vaddrToOffset(elf.loadSegments, sym.start);
  const size = Number(sym.end - sym.start);
  if (offset < 0 || offset + size > bytes.length)
    throw new ProfileError(
      `${elf.fileName}: ${sym.name} (0x${sym.start.toString(16)}–0x${sym.end.toString(16)}) is not in the file's loaded code`,
      'unknown',
    );
  const raw = engine.decode(arch, bytes.subarray(offset, offset + size), sym.start, opts.syntax ?? 'att');
  const byAddress = new Map<bigint, number>();
  raw.forEach((r, i) => {
    byAddress.set(r.address, i);
  });
  const dwarf = opts.dwarf !== undefined ? opts.dwarf : elf.dwarf ? DwarfInfo.create(elf.dwarf) : null;
  const lines: SourceLine[] = [];
  const lineIds = new Map<string, number>();
  const instructions: AsmInstruction[] = raw.map((r, i) => {
    const target = directTarget(arch, r.mnemonic, r.operands);
    let text = r.operands ? `${r.mnemonic.padEnd(6)} ${r.operands.replaceAll(', ', ',')}` : r.mnemonic;
    let targetLabel: string | undefined;
    if (target !== undefined) {
      targetLabel = labelOf(elf, target, opts.demangle);
      const ops = r.operands.replace(/#?\$?0x[0-9a-f]+$/, target.toString(16));
      text = `${r.mnemonic.padEnd(6)} ${ops.replaceAll(', ', ',')}${targetLabel ? ` <${targetLabel}>` : ''}`;
    }
    let line = -1;
    const answer = dwarf !== null && r.address < 2n ** 53n ? dwarf.lookup(Number(r.address)) : null;
    const inner = answer?.frames[answer.frames.length - 1];
    if (inner?.file) {
      const key = `${inner.file}\0${inner.line}\0${inner.name ?? ''}`;
      let id = lineIds.get(key);
      if (id === undefined) {
        id = lines.length;
        lineIds.set(key, id);
        lines.push({
          file: inner.file,
          line: inner.line,
          function: inner.name && opts.demangle ? opts.demangle(inner.name) : (inner.name ?? ''),
          instructions: [],
          flat: 0,
          cum: 0,
        });
      }
      lines[id].instructions.push(i);
      line = id;
    }
    return {
      address: r.address,
      addressText: r.address.toString(16),
      fileOffset: offset + Number(r.address - sym.start),
      size: r.size,
      mnemonic: r.mnemonic,
      operands: r.operands,
      text,
      ...(target !== undefined && { target }),
      ...(targetLabel !== undefined && { targetLabel }),
      targetIndex: target !== undefined ? (byAddress.get(target) ?? -1) : -1,
      line,
      flat: 0,
      cum: 0,
    };
  });
  // Weblist's order: by file, then line (the instruction lists stay in address order).
  const order = lines
    .map((_, i) => i)
    .sort((a, b) => {
      const x = lines[a];
      const y = lines[b];
      return x.file < y.file ? -1 : x.file > y.file ? 1 : x.line - y.line || a - b;
    });
  const renumber = new Int32Array(lines.length);
  order.forEach((old, i) => {
    renumber[old] = i;
  });
  for (const ins of instructions) if (ins.line >= 0) ins.line = renumber[ins.line];
  return { symbol: sym, arch, instructions, lines: order.map((i) => lines[i]), flat: 0, cum: 0 };
}

/** The profile's mappings of this file: by build-id, else by file name (as the symbolizer matches). */
export function mappingsOf(mappings: readonly Mapping[], elf: ElfFile): Mapping[] {
  if (elf.buildId) {
    const byId = mappings.filter((m) => m.buildId?.toLowerCase() === elf.buildId);
    if (byId.length > 0) return byId;
  }
  const base = basename(elf.fileName);
  return mappings.filter((m) => basename(m.path) === base && (!m.buildId || !elf.buildId));
}

/**
 * Puts the samples of `raw` (weighed by `raw.samples.weight`) on the listing's instructions and
 * source lines, in place: addresses of `mappings` (the file's, `mappingsOf`) become the file's
 * virtual addresses through its PT_LOAD segments (link-time addresses as they are).
 */
export function countSamples(
  listing: FunctionListing,
  raw: RawProfile,
  elf: ElfFile,
  mappings: readonly Mapping[],
): void {
  const ins = listing.instructions;
  const n = ins.length;
  if (n === 0) return;
  const starts = ins.map((i) => i.address);
  const end = ins[n - 1].address + BigInt(ins[n - 1].size);
  /** The instruction holding a file virtual address, or -1. */
  const at = (v: bigint): number => {
    if (v < starts[0] || v >= end) return -1;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= v) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  /** A runtime address (as looked up) → the file's virtual address, or null outside the file. */
  const toFile = (a: bigint): bigint | null => {
    for (const m of mappings) {
      if (a < m.start || a >= m.end) continue;
      if (m.linkTimeAddresses) return a;
      const fo = a - m.start + m.offset;
      if (fo < 0n || fo >= 2n ** 53n) return null;
      const v = offsetToVaddr(elf.loadSegments, Number(fo));
      return v === null ? null : bigOf(v[0], v[1]);
    }
    return null;
  };
  const locs = raw.locations;
  // Per location, its instruction as a leaf and as a caller (PC − 1), -2 = not computed yet.
  const asLeaf = new Int32Array(locs.count).fill(-2);
  const asCaller = new Int32Array(locs.count).fill(-2);
  const instructionOf = (loc: number, caller: boolean): number => {
    const memo = caller ? asCaller : asLeaf;
    let v = memo[loc];
    if (v !== -2) return v;
    v = -1;
    if (locs.hasAddr[loc]) {
      let a = bigOf(locs.addrHi[loc], locs.addrLo[loc]);
      if (caller && raw.adjustCallers && a > 0n) a -= 1n;
      const f = toFile(a);
      if (f !== null) v = at(f);
    }
    memo[loc] = v;
    return v;
  };
  const seenIns = new Int32Array(n).fill(-1);
  const seenLine = new Int32Array(listing.lines.length).fill(-1);
  const { stackStart, weight } = raw.samples;
  const stackLocs = raw.samples.stackLocs;
  let flat = 0;
  let cum = 0;
  for (let s = 0; s < raw.samples.count; s++) {
    const w = weight[s];
    if (w === 0) continue;
    const b = stackStart[s];
    const e = stackStart[s + 1];
    let on = false;
    for (let p = b; p < e; p++) {
      const i = instructionOf(stackLocs[p], p > b && !raw.flat);
      if (i < 0) continue;
      on = true;
      const li = ins[i].line;
      if (p === b) {
        ins[i].flat += w;
        flat += w;
        if (li >= 0) listing.lines[li].flat += w;
      }
      if (seenIns[i] !== s) {
        seenIns[i] = s;
        ins[i].cum += w;
      }
      if (li >= 0 && seenLine[li] !== s) {
        seenLine[li] = s;
        listing.lines[li].cum += w;
      }
    }
    if (on) cum += w;
  }
  listing.flat += flat;
  listing.cum += cum;
}
