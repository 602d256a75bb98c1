// The PLT's stubs named as objdump names them (`memcpy@plt`): no symbol of the file covers them, so
// a call into a shared library was a bare address in the Assembly tab. As binutils does
// (elf_x86_64_get_synthetic_symtab and its i386 and AArch64 kin), each stub's code is read for the
// GOT slot it jumps through, and the slot's dynamic relocation (JUMP_SLOT, or GLOB_DAT for
// `.plt.got`) names the symbol. Any layout the code says (lazy `.plt`, `.plt.sec` with IBT, `.plt.got`,
// BND prefixes) is read the same way; a stub whose code is none of these is left unnamed.

import { EM_386, EM_AARCH64, EM_X86_64 } from './machines';

/** What the PLT's reading needs of a section. */
export interface PltSection {
  name: string;
  type: number;
  addr: bigint;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

export interface PltStub {
  start: bigint;
  /** One past its last byte (its entry's end). */
  end: bigint;
  /** The symbol's name as `.dynsym` has it (objdump adds `@plt`). */
  name: string;
}

const utf8 = new TextDecoder('utf-8');

const SHT_RELA = 4;
const SHT_REL = 9;
/** JUMP_SLOT and GLOB_DAT per machine. */
const SLOT_RELOCS: Record<number, readonly number[]> = {
  [EM_386]: [7, 6],
  [EM_X86_64]: [7, 6],
  [EM_AARCH64]: [1026, 1025],
};
/** IRELATIVE per machine: a slot an ifunc resolver fills, named `*ABS*+0xADDEND` (REL: `*ABS*`) as objdump does. */
const IRELATIVE: Record<number, number> = { [EM_386]: 42, [EM_X86_64]: 37, [EM_AARCH64]: 1032 };

/** The PLT stubs of the file, by address; none for a machine or layout it does not know. */
export function pltStubs(
  bytes: Uint8Array,
  sections: readonly PltSection[],
  f: { is64: boolean; le: boolean; machine: number },
): PltStub[] {
  const kinds = SLOT_RELOCS[f.machine];
  if (!kinds) return [];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const inFile = (s: PltSection) => s.offset >= 0 && s.size >= 0 && s.offset + s.size <= bytes.length;
  const slots = slotNames(bytes, dv, sections, f, kinds, IRELATIVE[f.machine], inFile);
  if (slots.size === 0) return [];
  const gotPlt = sections.find((s) => s.name === '.got.plt')?.addr;
  const out: PltStub[] = [];
  for (const s of sections) {
    if (!/^\.plt(\.sec|\.got)?$/.test(s.name) || !inFile(s)) continue;
    const code = bytes.subarray(s.offset, s.offset + s.size);
    const found: { at: number; end: number; name: string }[] = [];
    if (f.machine === EM_AARCH64) {
      for (let k = 0; k + 8 <= code.length; k += 4) {
        const slot = a64Slot(dv, s.offset + k, f.le, s.addr + BigInt(k));
        const name = slot === null ? undefined : slots.get(slot);
        if (name === undefined) continue;
        // a stub starts at its `bti c` when it has one
        const bti = k >= 4 && dv.getUint32(s.offset + k - 4, f.le) === 0xd503245f;
        // the stub runs to its `br x17` (4 instructions from the adrp)
        found.push({ at: bti ? k - 4 : k, end: k + 16, name });
        k += 8;
      }
    } else {
      const step = s.entsize >= 8 && s.entsize <= 32 ? s.entsize : 16;
      for (let e = 0; e + step <= code.length; e += step) {
        const slot = x86Slot(code, dv, s.offset, e, e + step, s.addr, f.machine === EM_X86_64, gotPlt);
        const name = slot === null ? undefined : slots.get(slot);
        if (name !== undefined) found.push({ at: e, end: e + step, name });
      }
    }
    for (const { at, end, name } of found)
      out.push({ start: s.addr + BigInt(at), end: s.addr + BigInt(Math.min(end, code.length)), name });
  }
  return out.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

/** GOT slot → symbol name, from the dynamic relocations of the slot kinds. */
function slotNames(
  bytes: Uint8Array,
  dv: DataView,
  sections: readonly PltSection[],
  f: { is64: boolean; le: boolean },
  kinds: readonly number[],
  irelative: number,
  inFile: (s: PltSection) => boolean,
): Map<bigint, string> {
  const out = new Map<bigint, string>();
  for (const s of sections) {
    if ((s.type !== SHT_RELA && s.type !== SHT_REL) || !inFile(s)) continue;
    const syms = sections[s.link];
    const strs = syms && sections[syms.link];
    if (!syms || !strs || !inFile(syms) || !inFile(strs)) continue;
    const symSize = f.is64 ? 24 : 16;
    const size = s.entsize || (f.is64 ? (s.type === SHT_RELA ? 24 : 16) : s.type === SHT_RELA ? 12 : 8);
    if (size < (f.is64 ? 16 : 8)) continue;
    for (let o = s.offset; o + size <= s.offset + s.size; o += size) {
      let slot: bigint;
      let type: number;
      let sym: number;
      let addend: bigint | null = null;
      if (f.is64) {
        slot = dv.getBigUint64(o, f.le);
        const info = dv.getBigUint64(o + 8, f.le);
        type = Number(info & 0xffffffffn);
        sym = Number(info >> 32n);
        if (s.type === SHT_RELA) addend = dv.getBigUint64(o + 16, f.le);
      } else {
        slot = BigInt(dv.getUint32(o, f.le));
        const info = dv.getUint32(o + 4, f.le);
        type = info & 0xff;
        sym = info >>> 8;
        if (s.type === SHT_RELA) addend = BigInt(dv.getUint32(o + 8, f.le));
      }
      if (type === irelative) {
        // REL keeps the addend in the slot: objdump then names no address
        out.set(slot, addend === null ? '*ABS*' : `*ABS*+0x${addend.toString(16)}`);
        continue;
      }
      if (!kinds.includes(type) || sym === 0 || (sym + 1) * symSize > syms.size) continue;
      const nameAt = strs.offset + dv.getUint32(syms.offset + sym * symSize, f.le);
      let e = nameAt;
      while (e < strs.offset + strs.size && bytes[e] !== 0) e++;
      if (e === nameAt || e >= strs.offset + strs.size) continue;
      out.set(slot, utf8.decode(bytes.subarray(nameAt, e)));
    }
  }
  return out;
}

/**
 * The GOT slot an x86 stub, code[e, end) at `base` + e, jumps through: x86-64 `jmp *disp32(%rip)`
 * (ff 25, maybe after endbr64 and a bnd prefix); i386 `jmp *abs32` (ff 25) or `jmp *disp32(%ebx)`
 * (ff a3, %ebx the GOT: `.got.plt`).
 */
function x86Slot(
  code: Uint8Array,
  dv: DataView,
  offset: number,
  e: number,
  end: number,
  base: bigint,
  x64: boolean,
  gotPlt: bigint | undefined,
): bigint | null {
  for (let k = e; k + 6 <= end; k++) {
    if (code[k] !== 0xff) continue;
    const disp = dv.getInt32(offset + k + 2, true);
    if (code[k + 1] === 0x25) return x64 ? base + BigInt(k + 6) + BigInt(disp) : BigInt(disp >>> 0);
    if (!x64 && code[k + 1] === 0xa3 && gotPlt !== undefined) return (gotPlt + BigInt(disp)) & 0xffffffffn;
  }
  return null;
}

/** AArch64 `adrp x16, PAGE; ldr x17, [x16, #OFF]` at `at` (address `pc`): the slot PAGE + OFF. */
function a64Slot(dv: DataView, at: number, le: boolean, pc: bigint): bigint | null {
  const adrp = dv.getUint32(at, le);
  const ldr = dv.getUint32(at + 4, le);
  if ((adrp & 0x9f00001f) >>> 0 !== 0x90000010 || (ldr & 0xffc003ff) >>> 0 !== 0xf9400211) return null;
  const imm = (((adrp >>> 5) & 0x7ffff) << 2) | ((adrp >>> 29) & 3); // 21 bits, in pages
  const pages = BigInt(imm >= 1 << 20 ? imm - (1 << 21) : imm);
  return ((pc & ~0xfffn) + (pages << 12n) + BigInt(((ldr >>> 10) & 0xfff) * 8)) & 0xffffffffffffffffn;
}
