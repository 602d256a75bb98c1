// ELF symbol reader over DataView: ELF32/ELF64, little/big endian. Reads the section headers,
// `.symtab` and `.dynsym` (function symbols with sizes), PT_LOAD segments (file offset ↔ virtual
// address), the GNU build-id and `.gnu_debuglink`. No DWARF. Pure TypeScript: runs in node and
// in a module worker (no Buffer, no fs).
//
// Addresses are 64-bit: symbol addresses are kept as (hi, lo) uint32 pairs in sorted typed
// arrays; file offsets and sizes are plain numbers (a file is far below 2^53 bytes).

import { ProfileError } from '../types.ts';
import type { DwarfSections, RawDwarfSection } from './dwarf/sections.ts';
import { EM_ARM } from './machines';
import { type PltStub, pltStubs } from './plt';

const TWO32 = 4294967296;

/** A malformed or unsupported ELF file. The message names the file. */
export class ElfError extends ProfileError {
  readonly fileName: string;
  constructor(fileName: string, message: string, offset?: number) {
    // An offset past 2^53 (a damaged 64-bit field) is no place in the file to point at.
    super(
      `${fileName}: ${message}`,
      'unknown',
      offset === undefined || !Number.isFinite(offset) ? {} : { offset },
    );
    this.name = 'ElfError';
    this.fileName = fileName;
  }
}

// ---------------------------------------------------------------------------------------------
// Symbol tables

/** Symbol binding, as ranked when several symbols share an address. */
export const STB_LOCAL = 0;
export const STB_GLOBAL = 1;
export const STB_WEAK = 2;
export const STB_GNU_UNIQUE = 10;

/** Columnar symbol candidates (before sorting and alias resolution). */
export interface SymbolColumns {
  hi: number[];
  lo: number[];
  /** Size in bytes; 0 = unknown (extends to the next symbol, within `capHi/capLo`). */
  size: number[];
  bind: number[];
  /** Exclusive upper bound for a size-0 symbol (its section's end); 0xffffffff/0xffffffff = none. */
  capHi: number[];
  capLo: number[];
  name: string[];
}

export function emptyColumns(): SymbolColumns {
  return { hi: [], lo: [], size: [], bind: [], capHi: [], capLo: [], name: [] };
}

function bindRank(bind: number): number {
  if (bind === STB_GLOBAL || bind === STB_GNU_UNIQUE) return 2;
  if (bind === STB_WEAK) return 1;
  return 0;
}

function leadingUnderscores(s: string): number {
  let n = 0;
  while (n < s.length && s.charCodeAt(n) === 95) n++;
  return n;
}

/** A symbol name with a non-default version (`name@VER`, not `name@@VER`). */
function hiddenVersion(s: string): boolean {
  const i = s.indexOf('@');
  return i > 0 && s.charCodeAt(i + 1) !== 64;
}

/**
 * Negative when candidate a should name an address rather than b (aliases at one address), `aOrder`
 * and `bOrder` being their positions in the file's symbol tables (`.dynsym` and `.symtab` in section
 * order; a debug file's symbols before its library's). Order: a known size, then exported
 * (GLOBAL/UNIQUE/WEAK) over LOCAL; between exported ones, the one defined later, whatever its
 * binding, version or name — Go pprof's choice on every alias of the fixtures' libcs (`munmap` over
 * `__munmap`, `__pread64` over `__libc_pread`, `cfree` over `free` in the 64-bit libc, `malloc` over
 * `__libc_malloc` in the 32-bit one: docs/pprof-differences.md); between LOCAL ones, not a
 * non-default version (`memcpy@GLIBC_2.2.5`), then fewer leading underscores (`clone3` over
 * `__GI___clone3`), shorter, code-unit order.
 */
export function compareAliases(
  aSize: number,
  aBind: number,
  aName: string,
  bSize: number,
  bBind: number,
  bName: string,
  aOrder = 0,
  bOrder = 0,
): number {
  if (aSize > 0 !== bSize > 0) return aSize > 0 ? -1 : 1;
  const aExported = bindRank(aBind) > 0;
  if (aExported !== bindRank(bBind) > 0) return aExported ? -1 : 1;
  if (aExported && aOrder !== bOrder) return bOrder - aOrder;
  const ha = hiddenVersion(aName);
  if (ha !== hiddenVersion(bName)) return ha ? 1 : -1;
  const u = leadingUnderscores(aName) - leadingUnderscores(bName);
  if (u !== 0) return u;
  if (aName.length !== bName.length) return aName.length - bName.length;
  return aName < bName ? -1 : aName > bName ? 1 : 0;
}

/** `name@@VER` / `name@VER` → `name` (symbol versions as `.symtab` and nm spell them). */
export function stripVersion(name: string): string {
  const i = name.indexOf('@');
  return i > 0 ? name.slice(0, i) : name;
}

/**
 * Function symbols sorted by address, one per address (aliases resolved), with exclusive ends.
 * `lookup(hi, lo)` returns the index of the symbol covering the address, or -1.
 */
export class SymbolTable {
  readonly count: number;
  readonly startHi: Uint32Array;
  readonly startLo: Uint32Array;
  readonly endHi: Uint32Array;
  readonly endLo: Uint32Array;
  /** Names as stored in the file (mangled, possibly with `@VERSION`). */
  readonly names: string[];
  /** The resolved candidates, kept so tables can be merged (debug file + stripped library). */
  readonly columns: SymbolColumns;

  constructor(cols: SymbolColumns) {
    const n0 = cols.hi.length;
    const order = new Uint32Array(n0);
    for (let i = 0; i < n0; i++) order[i] = i;
    order.sort((a, b) => {
      const d = cols.hi[a] - cols.hi[b] || cols.lo[a] - cols.lo[b];
      if (d !== 0) return d;
      return compareAliases(
        cols.size[a],
        cols.bind[a],
        cols.name[a],
        cols.size[b],
        cols.bind[b],
        cols.name[b],
        a,
        b,
      );
    });
    // One entry per address: the first of each run is the preferred alias; it takes the largest
    // size of the run and the largest cap.
    const kept = emptyColumns();
    for (let k = 0; k < n0; ) {
      const i = order[k];
      let size = cols.size[i];
      let capHi = cols.capHi[i];
      let capLo = cols.capLo[i];
      let j = k + 1;
      while (j < n0 && cols.hi[order[j]] === cols.hi[i] && cols.lo[order[j]] === cols.lo[i]) {
        const o = order[j];
        if (cols.size[o] > size) size = cols.size[o];
        if (cols.capHi[o] > capHi || (cols.capHi[o] === capHi && cols.capLo[o] > capLo)) {
          capHi = cols.capHi[o];
          capLo = cols.capLo[o];
        }
        j++;
      }
      kept.hi.push(cols.hi[i]);
      kept.lo.push(cols.lo[i]);
      kept.size.push(size);
      kept.bind.push(cols.bind[i]);
      kept.capHi.push(capHi);
      kept.capLo.push(capLo);
      kept.name.push(cols.name[i]);
      k = j;
    }
    const n = kept.hi.length;
    this.count = n;
    this.columns = kept;
    this.names = kept.name;
    this.startHi = Uint32Array.from(kept.hi);
    this.startLo = Uint32Array.from(kept.lo);
    this.endHi = new Uint32Array(n);
    this.endLo = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      let eh: number;
      let el: number;
      if (kept.size[i] > 0) {
        const t = kept.lo[i] + kept.size[i];
        el = t % TWO32;
        eh = Math.min(0xffffffff, kept.hi[i] + Math.floor(t / TWO32));
      } else {
        // Up to the next symbol, but not past the end of the symbol's section.
        eh = kept.capHi[i];
        el = kept.capLo[i];
        if (i + 1 < n && (kept.hi[i + 1] < eh || (kept.hi[i + 1] === eh && kept.lo[i + 1] < el))) {
          eh = kept.hi[i + 1];
          el = kept.lo[i + 1];
        }
      }
      this.endHi[i] = eh;
      this.endLo[i] = el;
    }
  }

  /** The symbol at or below the address that covers it, or -1. */
  lookup(hi: number, lo: number): number {
    let a = 0;
    let b = this.count;
    const sh = this.startHi;
    const sl = this.startLo;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (hi < sh[mid] || (hi === sh[mid] && lo < sl[mid])) b = mid;
      else a = mid + 1;
    }
    const i = a - 1;
    if (i < 0) return -1;
    const eh = this.endHi[i];
    return hi < eh || (hi === eh && lo < this.endLo[i]) ? i : -1;
  }

  /** A table holding the symbols of both (aliases at one address resolved as usual). */
  static merge(a: SymbolTable, b: SymbolTable): SymbolTable {
    const c = emptyColumns();
    for (const t of [a.columns, b.columns]) {
      c.hi.push(...t.hi);
      c.lo.push(...t.lo);
      c.size.push(...t.size);
      c.bind.push(...t.bind);
      c.capHi.push(...t.capHi);
      c.capLo.push(...t.capLo);
      c.name.push(...t.name);
    }
    return new SymbolTable(c);
  }
}

// ---------------------------------------------------------------------------------------------
// ELF files

export const ET_REL = 1;
export const ET_EXEC = 2;
export const ET_DYN = 3;

export interface LoadSegment {
  /** File offset and size of the segment's bytes in the file. */
  offset: number;
  filesz: number;
  memsz: number;
  vaddr: bigint;
  vaddrHi: number;
  vaddrLo: number;
  /** PF_X = 1, PF_W = 2, PF_R = 4. */
  flags: number;
}

export interface ElfFile {
  kind: 'elf';
  fileName: string;
  /** GNU build-id, lowercase hex. */
  buildId?: string;
  is64: boolean;
  littleEndian: boolean;
  /** e_type: ET_EXEC 2, ET_DYN 3 (shared objects and PIE), ET_REL 1. */
  type: number;
  machine: number;
  loadSegments: LoadSegment[];
  symbols: SymbolTable;
  /**
   * A library merged with its separate debug file (mergeDebugFile): the library's own symbols
   * (`.symtab`, or `.dynsym` when stripped), which alone name a function's outermost frame where
   * DWARF names it too, as llvm-symbolizer does (docs/symbols.md). Absent: `symbols` are the file's own.
   */
  ownSymbols?: SymbolTable;
  /** Where the symbols came from. */
  symbolSource: 'symtab' | 'dynsym' | 'symtab+dynsym' | 'none';
  /** `.gnu_debuglink`: the name of the separate debug file and its CRC32. */
  debugLink?: { file: string; crc: number };
  /**
   * A separate debug file (`objcopy --only-keep-debug`): code sections are NOBITS and the
   * PT_LOAD file offsets are meaningless, so it only lends its symbols to the library with the
   * same build-id.
   */
  isDebugFile: boolean;
  /**
   * The PLT's stubs, named by the relocations of the GOT slots they jump through (plt.ts): what
   * objdump labels `name@plt`. Not symbols: samples in them are not named by them (pprof does not).
   */
  plt?: PltStub[];
  /** A library merged with its separate debug file (mergeDebugFile): that file's name. */
  debugFile?: string;
  /** Problems that did not stop reading (a section past the end of the file, …). */
  warnings: string[];
  /**
   * The `.debug_*` / `.zdebug_*` sections, as stored (maybe compressed; decoded on first use by
   * dwarf/index.ts). Absent when the file has no `.debug_info`.
   */
  dwarf?: DwarfSections;
}

export function looksLikeElf(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46
  );
}

const SHT_SYMTAB = 2;
const SHT_STRTAB = 3;
const SHT_NOTE = 7;
const SHT_NOBITS = 8;
const SHT_DYNSYM = 11;
const SHF_COMPRESSED = 0x800;
const PT_LOAD = 1;
const PT_NOTE = 4;
const STT_FUNC = 2;
const STT_GNU_IFUNC = 10;
const SHN_UNDEF = 0;
const SHN_LORESERVE = 0xff00;
const SHN_XINDEX = 0xffff;
const NT_GNU_BUILD_ID = 3;

interface Section {
  index: number;
  name: string;
  type: number;
  flags: number;
  addrHi: number;
  addrLo: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  addralign: number;
  entsize: number;
}

/** A file offset or size as a message says it (u64n reads 2^53 or more as Infinity: a damaged header). */
function bytesText(n: number): string {
  return Number.isFinite(n) ? String(n) : '2^53 or more';
}

class Reader {
  readonly view: DataView;
  readonly length: number;
  constructor(
    readonly bytes: Uint8Array,
    readonly le: boolean,
    readonly fileName: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.byteLength;
  }
  check(off: number, n: number, what: string): void {
    if (off < 0 || n < 0 || off + n > this.length) {
      throw new ElfError(
        this.fileName,
        `${what} at offset ${bytesText(off)} (${bytesText(n)} bytes) is past the end of the file (${this.length} bytes): ` +
          'truncated or not a valid ELF file',
        off,
      );
    }
  }
  u8(off: number): number {
    return this.bytes[off];
  }
  u16(off: number): number {
    return this.view.getUint16(off, this.le);
  }
  u32(off: number): number {
    return this.view.getUint32(off, this.le);
  }
  /** A 64-bit field as [hi, lo]. */
  u64(off: number): [number, number] {
    const a = this.view.getUint32(off, this.le);
    const b = this.view.getUint32(off + 4, this.le);
    return this.le ? [b, a] : [a, b];
  }
  /** A 64-bit size or offset as a number; values at or above 2^53 become Infinity. */
  u64n(off: number): number {
    const [h, l] = this.u64(off);
    return h >= 0x200000 ? Number.POSITIVE_INFINITY : h * TWO32 + l;
  }
  /** A NUL-terminated string inside [start, end). */
  cstr(off: number, end: number): string {
    const b = this.bytes;
    let e = off;
    let high = 0;
    while (e < end && b[e] !== 0) high |= b[e++];
    // ASCII (most symbol names): one fromCharCode call, several times faster than concatenating
    // characters or a TextDecoder call per name (100k-symbol binaries).
    if (high < 0x80 && e - off < 4096)
      return String.fromCharCode.apply(null, b.subarray(off, e) as unknown as number[]);
    return utf8.decode(b.subarray(off, e));
  }
}

const utf8 = new TextDecoder('utf-8');

function hexBytes(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < b.length; i++) s += b[i].toString(16).padStart(2, '0');
  return s;
}

/** Parses ELF notes in [off, off+size); returns the GNU build-id if there is one. */
function buildIdInNotes(r: Reader, off: number, size: number, align: number): string | undefined {
  const end = off + size;
  let p = off;
  const pad = (n: number) => (n + align - 1) & ~(align - 1);
  while (p + 12 <= end) {
    const namesz = r.u32(p);
    const descsz = r.u32(p + 4);
    const type = r.u32(p + 8);
    const nameOff = p + 12;
    const descOff = nameOff + pad(namesz);
    const next = descOff + pad(descsz);
    if (namesz > size || descsz > size || descOff + descsz > end) return undefined;
    if (
      type === NT_GNU_BUILD_ID &&
      namesz === 4 &&
      r.u8(nameOff) === 0x47 && // G
      r.u8(nameOff + 1) === 0x4e && // N
      r.u8(nameOff + 2) === 0x55 && // U
      descsz > 0
    ) {
      return hexBytes(r.bytes.subarray(descOff, descOff + descsz));
    }
    if (next <= p) return undefined;
    p = next;
  }
  return undefined;
}

/**
 * The GNU build-id of an ELF file from its first bytes only (the ELF header, the program headers
 * and a PT_NOTE segment, which linkers put in the first page): for matching many candidate files
 * without reading them whole. Undefined when those bytes do not hold it (or it is not ELF).
 */
export function buildIdFromHead(head: Uint8Array): string | undefined {
  if (!looksLikeElf(head) || head.length < 52 || (head[4] !== 1 && head[4] !== 2)) return undefined;
  try {
    const is64 = head[4] === 2;
    const r = new Reader(head, head[5] !== 2, '');
    const phoff = is64 ? r.u64n(32) : r.u32(28);
    const phentsize = r.u16(is64 ? 54 : 42);
    const phnum = r.u16(is64 ? 56 : 44);
    for (let i = 0; i < phnum; i++) {
      const o = phoff + i * phentsize;
      if (o + (is64 ? 56 : 32) > head.length) return undefined;
      if (r.u32(o) !== PT_NOTE) continue;
      const offset = is64 ? r.u64n(o + 8) : r.u32(o + 4);
      const size = is64 ? r.u64n(o + 32) : r.u32(o + 16);
      const align = is64 ? r.u64n(o + 48) : r.u32(o + 28);
      if (offset + size > head.length) continue;
      const id = buildIdInNotes(r, offset, size, align === 8 ? 8 : 4);
      if (id !== undefined) return id;
    }
  } catch {
    // A damaged header: not known from the head.
  }
  return undefined;
}

/**
 * Whether an ELF file is a separate debug file (`objcopy --only-keep-debug`, Debian's -dbg
 * packages): its `.text` holds no bytes. Reads the section headers only; false when unreadable.
 */
export function isSeparateDebugFile(bytes: Uint8Array): boolean {
  if (!looksLikeElf(bytes) || bytes.length < 52 || (bytes[4] !== 1 && bytes[4] !== 2)) return false;
  try {
    const sections = readSectionHeaders(new Reader(bytes, bytes[5] !== 2, ''), bytes[4] === 2, '', []);
    return sections.find((x) => x.name === '.text')?.type === SHT_NOBITS;
  } catch {
    return false;
  }
}

/**
 * Reads an ELF file's function symbols, load segments, build-id and debug link.
 * Throws ElfError (naming the file) when the file is not ELF or its headers are unreadable;
 * a damaged symbol section only loses that section (a warning), so `.dynsym` can still serve.
 */
export function readElf(bytes: Uint8Array, fileName: string): ElfFile {
  try {
    return readElfUnchecked(bytes, fileName);
  } catch (e) {
    if (e instanceof ElfError) throw e;
    throw new ElfError(fileName, `cannot read ELF file: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function readElfUnchecked(bytes: Uint8Array, fileName: string): ElfFile {
  if (!looksLikeElf(bytes)) throw new ElfError(fileName, 'not an ELF file (bad magic)', 0);
  if (bytes.length < 52) throw new ElfError(fileName, 'truncated ELF header', 0);
  const cls = bytes[4];
  const data = bytes[5];
  if (cls !== 1 && cls !== 2) throw new ElfError(fileName, `unknown ELF class ${cls}`, 4);
  if (data !== 1 && data !== 2) throw new ElfError(fileName, `unknown ELF byte order ${data}`, 5);
  const is64 = cls === 2;
  const r = new Reader(bytes, data === 1, fileName);
  r.check(0, is64 ? 64 : 52, 'ELF header');
  const warnings: string[] = [];
  const type = r.u16(16);
  const machine = r.u16(18);
  const phoff = is64 ? r.u64n(32) : r.u32(28);
  const phentsize = r.u16(is64 ? 54 : 42);
  let phnum = r.u16(is64 ? 56 : 44);
  const sections = readSectionHeaders(r, is64, fileName, warnings);

  // Program headers: PT_LOAD segments and PT_NOTE (build-id when there are no sections).
  const loadSegments: LoadSegment[] = [];
  const notes: { offset: number; size: number; align: number }[] = [];
  if (phoff !== 0 && phnum > 0) {
    if (phnum === 0xffff && sections.length > 0) phnum = sections[0].info;
    const want = is64 ? 56 : 32;
    if (phentsize < want)
      throw new ElfError(fileName, `bad program header size ${phentsize}`, is64 ? 54 : 42);
    r.check(phoff, phnum * phentsize, 'program header table');
    for (let i = 0; i < phnum; i++) {
      const o = phoff + i * phentsize;
      const ptype = r.u32(o);
      let offset: number;
      let vh: number;
      let vl: number;
      let filesz: number;
      let memsz: number;
      let flags: number;
      let align: number;
      if (is64) {
        flags = r.u32(o + 4);
        offset = r.u64n(o + 8);
        [vh, vl] = r.u64(o + 16);
        filesz = r.u64n(o + 32);
        memsz = r.u64n(o + 40);
        align = r.u64n(o + 48);
      } else {
        offset = r.u32(o + 4);
        vh = 0;
        vl = r.u32(o + 8);
        filesz = r.u32(o + 16);
        memsz = r.u32(o + 20);
        flags = r.u32(o + 24);
        align = r.u32(o + 28);
      }
      if (ptype === PT_LOAD && !Number.isFinite(offset + filesz)) {
        // u64n's Infinity (2^53 or more): no file is that large, so the header is damaged.
        warnings.push(`program header ${i}: a load segment's offset or size is absurdly large: skipped`);
      } else if (ptype === PT_LOAD) {
        loadSegments.push({
          offset,
          filesz,
          memsz,
          vaddr: (BigInt(vh) << 32n) | BigInt(vl),
          vaddrHi: vh,
          vaddrLo: vl,
          flags,
        });
      } else if (ptype === PT_NOTE) {
        notes.push({ offset, size: filesz, align: align === 8 ? 8 : 4 });
      }
    }
  }

  // Build-id: from SHT_NOTE sections, else from PT_NOTE segments.
  let buildId: string | undefined;
  for (const s of sections) {
    if (buildId !== undefined) break;
    if (s.type !== SHT_NOTE || s.offset + s.size > r.length) continue;
    buildId = buildIdInNotes(r, s.offset, s.size, s.addralign === 8 ? 8 : 4);
  }
  for (const n of notes) {
    if (buildId !== undefined) break;
    if (n.offset + n.size > r.length) continue;
    buildId = buildIdInNotes(r, n.offset, n.size, n.align);
  }

  // Debug link.
  let debugLink: ElfFile['debugLink'];
  const dl = sections.find((s) => s.name === '.gnu_debuglink');
  if (dl && dl.type !== SHT_NOBITS && dl.offset + dl.size <= r.length && dl.size >= 8) {
    const file = r.cstr(dl.offset, dl.offset + dl.size);
    const crcOff = dl.offset + ((file.length + 1 + 3) & ~3);
    if (crcOff + 4 <= dl.offset + dl.size) debugLink = { file, crc: r.u32(crcOff) };
  }

  // DWARF sections, kept as views of the file's bytes (decompressed and parsed on first use).
  let dwarf: DwarfSections | undefined;
  for (const s of sections) {
    const gnu = s.name.startsWith('.zdebug_');
    if (!gnu && !s.name.startsWith('.debug_')) continue;
    if (s.type === SHT_NOBITS || s.size === 0) continue;
    if (!Number.isFinite(s.size) || s.offset + s.size > r.length) {
      warnings.push(
        `${s.name} (offset ${bytesText(s.offset)}, ${bytesText(s.size)} bytes) is past the end of the file: skipped`,
      );
      continue;
    }
    const name = gnu ? `.debug_${s.name.slice(8)}` : s.name;
    const raw: RawDwarfSection = {
      name,
      fileName: s.name,
      bytes: bytes.subarray(s.offset, s.offset + s.size),
      compressed: (s.flags & SHF_COMPRESSED) !== 0,
      gnuCompressed: gnu,
    };
    if (dwarf === undefined) dwarf = { is64, littleEndian: r.le, sections: new Map() };
    if (!dwarf.sections.has(name)) dwarf.sections.set(name, raw);
  }
  if (dwarf !== undefined && !dwarf.sections.has('.debug_info')) dwarf = undefined;

  // A separate debug file: its .text is NOBITS.
  const text = sections.find((s) => s.name === '.text');
  const isDebugFile = text !== undefined && text.type === SHT_NOBITS;

  // Symbols: .symtab and .dynsym (a stripped file has only the latter).
  const cols = emptyColumns();
  let fromSymtab = false;
  let fromDynsym = false;
  for (const s of sections) {
    if (s.type !== SHT_SYMTAB && s.type !== SHT_DYNSYM) continue;
    const label = s.name || (s.type === SHT_SYMTAB ? '.symtab' : '.dynsym');
    if (s.flags & SHF_COMPRESSED) {
      warnings.push(`${label} is compressed: not supported, section skipped`);
      continue;
    }
    const got = readSymbols(r, s, sections, is64, machine, cols, warnings, label);
    if (got && s.type === SHT_SYMTAB) fromSymtab = true;
    if (got && s.type === SHT_DYNSYM) fromDynsym = true;
  }
  const symbolSource = fromSymtab
    ? fromDynsym
      ? 'symtab+dynsym'
      : 'symtab'
    : fromDynsym
      ? 'dynsym'
      : 'none';

  const elf: ElfFile = {
    kind: 'elf',
    fileName,
    is64,
    littleEndian: r.le,
    type,
    machine,
    loadSegments,
    symbols: new SymbolTable(cols),
    symbolSource,
    isDebugFile,
    warnings,
  };
  if (buildId !== undefined) elf.buildId = buildId;
  if (debugLink !== undefined) elf.debugLink = debugLink;
  if (dwarf !== undefined) elf.dwarf = dwarf;
  const plt = pltStubs(
    bytes,
    sections.map((x) => ({ ...x, addr: (BigInt(x.addrHi) << 32n) | BigInt(x.addrLo) })),
    { is64, le: r.le, machine },
  );
  if (plt.length > 0) elf.plt = plt;
  return elf;
}

/** Appends the defined function symbols of one symbol section; false when it was unusable. */
function readSymbols(
  r: Reader,
  s: Section,
  sections: Section[],
  is64: boolean,
  machine: number,
  cols: SymbolColumns,
  warnings: string[],
  label: string,
): boolean {
  if (s.type === SHT_NOBITS || s.size === 0) return false;
  const entsize = is64 ? 24 : 16;
  if (s.offset + s.size > r.length) {
    warnings.push(
      `${label} (offset ${bytesText(s.offset)}, ${bytesText(s.size)} bytes) is past the end of the file: skipped`,
    );
    return false;
  }
  if (s.entsize !== 0 && s.entsize < entsize) {
    warnings.push(`${label} has a bad entry size ${s.entsize}: skipped`);
    return false;
  }
  const step = s.entsize || entsize;
  const str = sections[s.link];
  if (!str || str.type !== SHT_STRTAB || str.offset + str.size > r.length) {
    warnings.push(`${label}: its string table is missing or past the end of the file: skipped`);
    return false;
  }
  const strEnd = str.offset + str.size;
  const n = Math.floor(s.size / step);
  let added = 0;
  for (let i = 1; i < n; i++) {
    const o = s.offset + i * step;
    let nameOff: number;
    let info: number;
    let shndx: number;
    let vh: number;
    let vl: number;
    let size: number;
    if (is64) {
      nameOff = r.u32(o);
      info = r.u8(o + 4);
      shndx = r.u16(o + 6);
      // 64-bit fields read inline (no [hi, lo] array per symbol: this loop runs 100k+ times).
      const a = r.u32(o + 8);
      const b = r.u32(o + 12);
      vh = r.le ? b : a;
      vl = r.le ? a : b;
      const sa = r.u32(o + 16);
      const sb = r.u32(o + 20);
      const sh = r.le ? sb : sa;
      size = sh >= 0x200000 ? Number.POSITIVE_INFINITY : sh * TWO32 + (r.le ? sa : sb);
    } else {
      nameOff = r.u32(o);
      vh = 0;
      vl = r.u32(o + 4);
      size = r.u32(o + 8);
      info = r.u8(o + 12);
      shndx = r.u16(o + 14);
    }
    const stype = info & 0xf;
    if (stype !== STT_FUNC && stype !== STT_GNU_IFUNC) continue;
    if (shndx === SHN_UNDEF || (vh === 0 && vl === 0)) continue;
    if (nameOff >= str.size) continue;
    const name = r.cstr(str.offset + nameOff, strEnd);
    if (name === '') continue;
    if (machine === EM_ARM) vl = (vl & ~1) >>> 0; // Thumb bit
    let capHi = 0xffffffff;
    let capLo = 0xffffffff;
    if (shndx < SHN_LORESERVE) {
      const sec = sections[shndx];
      if (sec && sec.size > 0 && Number.isFinite(sec.size)) {
        const t = sec.addrLo + sec.size;
        capLo = t % TWO32;
        capHi = Math.min(0xffffffff, sec.addrHi + Math.floor(t / TWO32));
      }
    }
    cols.hi.push(vh);
    cols.lo.push(vl);
    cols.size.push(Number.isFinite(size) ? size : 0);
    cols.bind.push(info >> 4);
    cols.capHi.push(capHi);
    cols.capLo.push(capLo);
    cols.name.push(name);
    added++;
  }
  return added > 0;
}

/**
 * The library with the symbols of its separate debug file (same build-id) added: the library's
 * load segments and build-id, the union of both symbol tables, and the debug file's DWARF
 * sections (the library's own when the debug file has none).
 */
export function mergeDebugFile(lib: ElfFile, debug: ElfFile): ElfFile {
  const merged: ElfFile = {
    ...lib,
    // The library's own symbols last: between exported aliases its `.dynsym` order decides.
    symbols: SymbolTable.merge(debug.symbols, lib.symbols),
    ownSymbols: lib.ownSymbols ?? lib.symbols,
    symbolSource: lib.symbolSource,
    warnings: [...lib.warnings, ...debug.warnings.map((w) => `${debug.fileName}: ${w}`)],
    debugFile: debug.fileName,
  };
  const dwarf = debug.dwarf ?? lib.dwarf;
  if (dwarf !== undefined) merged.dwarf = dwarf;
  if (debug.symbolSource !== 'none') {
    merged.symbolSource = lib.symbolSource === 'none' ? debug.symbolSource : 'symtab+dynsym';
  }
  return merged;
}

/**
 * File offset → ELF virtual address through the PT_LOAD segment whose file bytes hold it.
 * Returns [hi, lo] or null when no segment holds the offset.
 */
export function offsetToVaddr(segments: readonly LoadSegment[], fileOffset: number): [number, number] | null {
  for (const s of segments) {
    if (fileOffset >= s.offset && fileOffset < s.offset + s.filesz) {
      const t = s.vaddrLo + (fileOffset - s.offset);
      return [(s.vaddrHi + Math.floor(t / TWO32)) >>> 0, t % TWO32];
    }
  }
  return null;
}

/** ELF virtual address → file offset (the inverse of offsetToVaddr), or -1. */
export function vaddrToOffset(segments: readonly LoadSegment[], vaddr: bigint): number {
  for (const s of segments) {
    if (vaddr >= s.vaddr && vaddr < s.vaddr + BigInt(s.filesz)) return s.offset + Number(vaddr - s.vaddr);
  }
  return -1;
}

/**
 * The section headers, named (with the extended numbering of section 0 for huge files). Throws
 * ElfError when the table is unreadable; a missing name table is a warning.
 */
function readSectionHeaders(r: Reader, is64: boolean, fileName: string, warnings: string[]): Section[] {
  const shoff = is64 ? r.u64n(40) : r.u32(32);
  const shentsize = r.u16(is64 ? 58 : 46);
  let shnum = r.u16(is64 ? 60 : 48);
  let shstrndx = r.u16(is64 ? 62 : 50);

  const sections: Section[] = [];
  if (shoff !== 0) {
    const want = is64 ? 64 : 40;
    if (shentsize < want)
      throw new ElfError(fileName, `bad section header size ${shentsize}`, is64 ? 58 : 46);
    r.check(shoff, shentsize, 'section header table');
    if (shnum === 0) shnum = is64 ? r.u64n(shoff + 32) : r.u32(shoff + 20);
    if (shstrndx === SHN_XINDEX) shstrndx = r.u32(shoff + (is64 ? 40 : 24));
    r.check(shoff, shnum * shentsize, 'section header table');
    for (let i = 0; i < shnum; i++) {
      const o = shoff + i * shentsize;
      let s: Section;
      if (is64) {
        const [ah, al] = r.u64(o + 16);
        s = {
          index: i,
          name: '',
          type: r.u32(o + 4),
          flags: r.u64n(o + 8),
          addrHi: ah,
          addrLo: al,
          offset: r.u64n(o + 24),
          size: r.u64n(o + 32),
          link: r.u32(o + 40),
          info: r.u32(o + 44),
          addralign: r.u64n(o + 48),
          entsize: r.u64n(o + 56),
        };
      } else {
        s = {
          index: i,
          name: '',
          type: r.u32(o + 4),
          flags: r.u32(o + 8),
          addrHi: 0,
          addrLo: r.u32(o + 12),
          offset: r.u32(o + 16),
          size: r.u32(o + 20),
          link: r.u32(o + 24),
          info: r.u32(o + 28),
          addralign: r.u32(o + 32),
          entsize: r.u32(o + 36),
        };
      }
      sections.push(s);
    }
    const shstr = sections[shstrndx];
    if (shstr && shstr.type !== SHT_NOBITS && shstr.offset + shstr.size <= r.length) {
      for (const s of sections) {
        const nameOff = r.u32(shoff + s.index * shentsize);
        if (nameOff < shstr.size) s.name = r.cstr(shstr.offset + nameOff, shstr.offset + shstr.size);
      }
    } else if (shnum > 0) {
      warnings.push('section name table missing or past the end of the file');
    }
  }
  return sections;
}
