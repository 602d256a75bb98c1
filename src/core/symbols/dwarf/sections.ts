// The DWARF sections of an ELF file as the ELF reader found them (maybe compressed), and their
// decompression on first use: SHF_COMPRESSED with ELFCOMPRESS_ZLIB (`gcc -gz`) and the older
// GNU `.zdebug_*` sections ("ZLIB" + 8-byte big-endian size + zlib stream).

import { unzlibSync } from 'fflate';

/** One `.debug_*` / `.zdebug_*` section, its bytes as stored in the file. */
export interface RawDwarfSection {
  /** The name without compression prefix: `.debug_info` for `.zdebug_info` too. */
  name: string;
  /** The name in the file (for messages). */
  fileName: string;
  bytes: Uint8Array;
  /** SHF_COMPRESSED: an Elf32_Chdr / Elf64_Chdr precedes the data. */
  compressed: boolean;
  /** `.zdebug_*`. */
  gnuCompressed: boolean;
}

/** What readElf keeps for DWARF: sections by name (`.debug_info`, …) and the file's layout. */
export interface DwarfSections {
  is64: boolean;
  littleEndian: boolean;
  sections: Map<string, RawDwarfSection>;
}

const ELFCOMPRESS_ZLIB = 1;
const ELFCOMPRESS_ZSTD = 2;
/** Decompressed sizes above this are refused (a corrupt header must not allocate gigabytes). */
const MAX_SECTION = 1 << 30;

/** A section's bytes, decompressed when needed. Throws an Error whose message says why not. */
export function sectionBytes(s: RawDwarfSection, is64: boolean, le: boolean): Uint8Array {
  const b = s.bytes;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (s.compressed) {
    const hdr = is64 ? 24 : 12;
    if (b.length < hdr) throw new Error(`${s.fileName}: compressed section header truncated`);
    const type = view.getUint32(0, le);
    let size: number;
    if (is64) {
      const lo = view.getUint32(le ? 8 : 12, le);
      const hi = view.getUint32(le ? 12 : 8, le);
      size = hi * 4294967296 + lo;
    } else {
      size = view.getUint32(4, le);
    }
    if (type === ELFCOMPRESS_ZSTD) throw new Error(`${s.fileName}: zstd compression is not supported`);
    if (type !== ELFCOMPRESS_ZLIB) throw new Error(`${s.fileName}: unknown compression type ${type}`);
    return inflate(s, b.subarray(hdr), size);
  }
  if (s.gnuCompressed) {
    if (b.length < 12 || b[0] !== 0x5a || b[1] !== 0x4c || b[2] !== 0x49 || b[3] !== 0x42) {
      // Not "ZLIB": some tools leave small .zdebug sections uncompressed.
      return b;
    }
    const size = view.getUint32(4, false) * 4294967296 + view.getUint32(8, false);
    return inflate(s, b.subarray(12), size);
  }
  return b;
}

function inflate(s: RawDwarfSection, data: Uint8Array, size: number): Uint8Array {
  // zlib expands at most ~1032:1: a larger size in the header is a lie, not worth the memory.
  if (size > MAX_SECTION || size > data.length * 1032 + 1024) {
    throw new Error(
      `${s.fileName}: decompressed size ${size} is not plausible for ${data.length} compressed bytes`,
    );
  }
  let out: Uint8Array;
  try {
    out = unzlibSync(data, { out: new Uint8Array(size) });
  } catch (e) {
    throw new Error(`${s.fileName}: cannot decompress (${e instanceof Error ? e.message : String(e)})`);
  }
  if (out.length !== size) {
    throw new Error(`${s.fileName}: decompressed to ${out.length} bytes, header says ${size}`);
  }
  return out;
}
