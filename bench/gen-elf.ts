// Deterministic synthetic ELF64 (little endian, x86_64, ET_DYN like a PIE) for the symbolization
// benchmark: the binary of the synthetic profile's `/opt/bench/bin/bench` mapping, with only what
// symbolization reads: the ELF header, two PT_LOAD segments (headers; text), and the sections
// .text, .symtab (`symbols` GLOBAL FUNC symbols whose sizes tile the text range, in shuffled
// order like a real symtab is not sorted), .strtab (Itanium-mangled C++ names, so the demangler
// runs) and .shstrtab. The code bytes are int3.
//
//   npx tsx bench/gen-elf.ts OUT [SYMBOLS]     (default 100000; matches makeSyntheticProfile)

import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { prng } from '../test/helpers/prng';
import { BIN_START, BIN_TEXT, BIN_TEXT_SIZE } from './gen-synthetic';

export interface SyntheticElfOptions {
  /** Number of function symbols (at most textSize). */
  symbols: number;
  /** Virtual address of .text (and of the executable PT_LOAD). */
  textStart: number;
  /** Bytes of .text; the symbols tile [textStart, textStart + textSize). */
  textSize: number;
  /** File offset of .text; congruent to textStart modulo the page size (0x1000). */
  fileOffset: number;
  seed: number;
}

/** The options that make the binary of makeSyntheticProfile's main mapping. */
export function benchElfOptions(symbols: number, seed = 7): SyntheticElfOptions {
  // The r-xp mapping's file offset is BIN_TEXT - BIN_START (0x1000); a PIE links its text at
  // that same vaddr (the r--p mapping at BIN_START, offset 0, is vaddr 0).
  const offset = BIN_TEXT - BIN_START;
  return { symbols, textStart: offset, textSize: BIN_TEXT_SIZE, fileOffset: offset, seed };
}

const NAMESPACES = ['core', 'io', 'net', 'util', 'detail', 'parser', 'sched', 'storage'];
/** Itanium parameter encodings: (int), (), (char const*), (std::vector<int> const&), (unsigned long, unsigned long), (double). */
const PARAMS = ['i', 'v', 'PKc', 'RKSt6vectorIiSaIiEE', 'mm', 'd'];

/** `_ZN5bench<ns>fn_00042E<params>`: bench::<ns>::fn_00042(<params>). */
export function syntheticSymbolName(k: number, digits: number, rnd: () => number): string {
  const ns = NAMESPACES[Math.floor(rnd() * NAMESPACES.length)];
  const params = PARAMS[Math.floor(rnd() * PARAMS.length)];
  const fn = `fn_${String(k).padStart(digits, '0')}`;
  return `_ZN5bench${ns.length}${ns}${fn.length}${fn}E${params}`;
}

const align = (n: number, a: number) => Math.ceil(n / a) * a;

export function makeSyntheticElf(opts: SyntheticElfOptions): Uint8Array {
  const { symbols: n, textStart, textSize, fileOffset } = opts;
  if (!(n >= 1 && n <= textSize)) throw new Error(`symbols must be in 1..textSize (${textSize})`);
  if (textStart % 0x1000 !== fileOffset % 0x1000)
    throw new Error('textStart and fileOffset must be congruent modulo 0x1000');
  const EH = 64;
  const PH = 56;
  const SH = 64;
  const SYM = 24;
  const phnum = 2;
  if (fileOffset < EH + phnum * PH) throw new Error('fileOffset leaves no room for the headers');
  const rnd = prng(opts.seed);

  // Symbol starts: cumulative random weights, rounded, every size ≥ 1, the last ends at the end.
  const starts = new Float64Array(n + 1);
  {
    const w = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) total += w[k] = 0.25 + rnd() * rnd() * 4;
    let acc = 0;
    for (let k = 0; k < n; k++) {
      const s = Math.round((textSize * acc) / total);
      starts[k] = Math.min(Math.max(s, k === 0 ? 0 : starts[k - 1] + 1), textSize - (n - k));
      acc += w[k];
    }
    starts[n] = textSize;
  }
  const digits = Math.max(5, String(n - 1).length);
  const names = Array.from({ length: n }, (_, k) => syntheticSymbolName(k, digits, rnd));
  // The symtab order: shuffled (Fisher–Yates).
  const order = Uint32Array.from({ length: n }, (_, k) => k);
  for (let k = n - 1; k > 0; k--) {
    const j = Math.floor(rnd() * (k + 1));
    const t = order[k];
    order[k] = order[j];
    order[j] = t;
  }

  const enc = new TextEncoder();
  const strtabParts: Uint8Array[] = [new Uint8Array(1)];
  const nameOff = new Uint32Array(n);
  let strtabSize = 1;
  for (let i = 0; i < n; i++) {
    const k = order[i];
    const b = enc.encode(`${names[k]}\0`);
    nameOff[k] = strtabSize;
    strtabParts.push(b);
    strtabSize += b.length;
  }
  const shnames = ['', '.text', '.symtab', '.strtab', '.shstrtab'];
  const shstr = enc.encode(`${shnames.join('\0')}\0`);
  const shName = shnames.map((_, i) => shnames.slice(0, i).reduce((o, s) => o + s.length + 1, 0));

  const symtabOff = align(fileOffset + textSize, 8);
  const symtabSize = (n + 1) * SYM;
  const strtabOff = symtabOff + symtabSize;
  const shstrOff = strtabOff + strtabSize;
  const shoff = align(shstrOff + shstr.length, 8);
  const shnum = shnames.length;
  const out = new Uint8Array(shoff + shnum * SH);
  const dv = new DataView(out.buffer);
  const u16 = (o: number, v: number) => dv.setUint16(o, v, true);
  const u32 = (o: number, v: number) => dv.setUint32(o, v, true);
  const u64 = (o: number, v: number) => dv.setBigUint64(o, BigInt(v), true);

  // ELF header.
  out.set([0x7f, 0x45, 0x4c, 0x46, 2 /* ELFCLASS64 */, 1 /* LSB */, 1 /* EV_CURRENT */, 0 /* SYSV */]);
  u16(16, 3); // ET_DYN
  u16(18, 62); // EM_X86_64
  u32(20, 1);
  u64(24, textStart); // e_entry
  u64(32, EH); // e_phoff
  u64(40, shoff);
  u32(48, 0);
  u16(52, EH);
  u16(54, PH);
  u16(56, phnum);
  u16(58, SH);
  u16(60, shnum);
  u16(62, shnum - 1); // .shstrtab

  // Program headers: the headers (R), the text (R+X).
  const phdr = (i: number, flags: number, offset: number, vaddr: number, size: number) => {
    const o = EH + i * PH;
    u32(o, 1); // PT_LOAD
    u32(o + 4, flags);
    u64(o + 8, offset);
    u64(o + 16, vaddr);
    u64(o + 24, vaddr);
    u64(o + 32, size);
    u64(o + 40, size);
    u64(o + 48, 0x1000);
  };
  phdr(0, 4, 0, 0, EH + phnum * PH);
  phdr(1, 5, fileOffset, textStart, textSize);

  out.fill(0xcc, fileOffset, fileOffset + textSize);

  // .symtab: entry 0 is the null symbol; then GLOBAL FUNC symbols in .text (section 1).
  for (let i = 0; i < n; i++) {
    const k = order[i];
    const o = symtabOff + (i + 1) * SYM;
    u32(o, nameOff[k]);
    out[o + 4] = (1 << 4) | 2; // STB_GLOBAL, STT_FUNC
    out[o + 5] = 0; // STV_DEFAULT
    u16(o + 6, 1);
    u64(o + 8, textStart + starts[k]);
    u64(o + 16, starts[k + 1] - starts[k]);
  }
  let p = strtabOff;
  for (const b of strtabParts) {
    out.set(b, p);
    p += b.length;
  }
  out.set(shstr, shstrOff);

  // Section headers.
  const shdr = (
    i: number,
    type: number,
    flags: number,
    addr: number,
    offset: number,
    size: number,
    link: number,
    info: number,
    addralign: number,
    entsize: number,
  ) => {
    const o = shoff + i * SH;
    u32(o, shName[i]);
    u32(o + 4, type);
    u64(o + 8, flags);
    u64(o + 16, addr);
    u64(o + 24, offset);
    u64(o + 32, size);
    u32(o + 40, link);
    u32(o + 44, info);
    u64(o + 48, addralign);
    u64(o + 56, entsize);
  };
  shdr(1, 1 /* PROGBITS */, 6 /* ALLOC|EXECINSTR */, textStart, fileOffset, textSize, 0, 0, 16, 0);
  shdr(2, 2 /* SYMTAB */, 0, 0, symtabOff, symtabSize, 3, 1 /* first non-local */, 8, SYM);
  shdr(3, 3 /* STRTAB */, 0, 0, strtabOff, strtabSize, 0, 0, 1, 0);
  shdr(4, 3 /* STRTAB */, 0, 0, shstrOff, shstr.length, 0, 0, 1, 0);
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [outPath, count] = process.argv.slice(2);
  if (!outPath) {
    process.stderr.write('usage: tsx bench/gen-elf.ts OUT [SYMBOLS]\n');
    process.exit(2);
  }
  const bytes = makeSyntheticElf(benchElfOptions(Number(count ?? 100_000)));
  writeFileSync(outPath, bytes);
  process.stdout.write(`${outPath}: ${bytes.length} bytes\n`);
}
