// `.debug_line`: one unit's line-number program (DWARF 2–5) decoded into sorted sequences of
// rows, and the lookup of an address, as binutils' bfd (dwarf2.c) does it:
//  - rows at the same address in one sequence: the last one counts;
//  - sequences sorted by start address (longest first on ties), nested ones dropped and
//    overlapping ones trimmed;
//  - an address is in the row at or below it, if that row does not end the sequence.
// File names are joined with their directory and the unit's DW_AT_comp_dir like bfd's
// concat_filename (DWARF 5 file and directory 0 are real entries; before, index 0 is "unknown").

import {
  DW_FORM_data1,
  DW_FORM_data2,
  DW_FORM_data4,
  DW_FORM_data8,
  DW_FORM_line_strp,
  DW_FORM_string,
  DW_FORM_strp,
  DW_FORM_udata,
  type FormContext,
  readForm,
  skipForm,
} from './forms.ts';
import { BIG, cstrAt, Reader } from './reader.ts';

/** Strings a line-program header may point into. */
export interface LineStrings {
  str?: Uint8Array;
  lineStr?: Uint8Array;
}

/** A decoded line table. Row addresses are numbers (BIG for unusable ones). */
export interface LineTable {
  /** Sequences sorted and trimmed: [seqLow[i], seqHigh[i]) holds rows seqStart[i] … seqEnd[i]. */
  seqLow: Float64Array;
  seqHigh: Float64Array;
  seqStart: Uint32Array;
  /** Index of the sequence's end row (its end_sequence row). */
  seqEnd: Uint32Array;
  rowAddr: Float64Array;
  rowFile: Uint32Array;
  rowLine: Uint32Array;
  /** The file name for a file register value (bfd's concat_filename), null when unknown. */
  fileName(file: number): string;
}

const DW_LNCT_path = 1;
const DW_LNCT_directory_index = 2;

class Growable {
  addr = new Float64Array(256);
  file = new Uint32Array(256);
  line = new Uint32Array(256);
  n = 0;
  push(a: number, f: number, l: number): void {
    if (this.n === this.addr.length) {
      const m = this.n * 2;
      const a2 = new Float64Array(m);
      a2.set(this.addr);
      this.addr = a2;
      const f2 = new Uint32Array(m);
      f2.set(this.file);
      this.file = f2;
      const l2 = new Uint32Array(m);
      l2.set(this.line);
      this.line = l2;
    }
    this.addr[this.n] = a;
    this.file[this.n] = f;
    this.line[this.n] = l;
    this.n++;
  }
}

/**
 * Decodes the line program at `offset` in `.debug_line`. `compDir` is the unit's DW_AT_comp_dir.
 * Throws DwarfError on malformed data.
 */
export function readLineTable(
  bytes: Uint8Array,
  le: boolean,
  offset: number,
  compDir: string | null,
  strings: LineStrings,
): LineTable {
  const r: Reader = new Reader(bytes, le, '.debug_line', offset);
  const [unitLength, offSize] = r.initialLength();
  const unitEnd = r.pos + unitLength;
  if (unitEnd > bytes.length) r.fail(`line program length ${unitLength} runs past the section`, offset);
  r.end = unitEnd;
  const version = r.u16();
  if (version < 2 || version > 5) r.fail(`unsupported line table version ${version}`, offset);
  let addrSize = 8;
  if (version >= 5) {
    addrSize = r.u8();
    r.u8(); // segment selector size
  }
  const headerLength = r.offset(offSize);
  const programStart = r.pos + headerLength;
  if (programStart > unitEnd) r.fail('line program header runs past the unit', offset);
  const minInst = r.u8();
  const maxOps = version >= 4 ? r.u8() : 1;
  r.u8(); // default_is_stmt
  const lineBaseByte = r.u8();
  const lineBase = lineBaseByte >= 128 ? lineBaseByte - 256 : lineBaseByte;
  const lineRange = r.u8();
  const opcodeBase = r.u8();
  if (lineRange === 0) r.fail('line_range is 0', offset);
  if (maxOps === 0) r.fail('maximum_operations_per_instruction is 0', offset);
  const stdLengths: number[] = [0];
  for (let i = 1; i < opcodeBase; i++) stdLengths.push(r.u8());

  const dirs: (string | null)[] = [];
  const files: { name: string | null; dir: number }[] = [];
  const fc: FormContext = { version, addrSize, offSize };
  const strAt = (sec: Uint8Array | undefined, off: number): string | null => {
    if (sec === undefined) return null;
    return cstrAt(sec, off, sec.length)?.text ?? null;
  };
  if (version >= 5) {
    const readEntries = (isFile: boolean) => {
      const nFormats = r.u8();
      const types: number[] = [];
      const forms: number[] = [];
      for (let i = 0; i < nFormats; i++) {
        types.push(r.uleb());
        forms.push(r.uleb());
      }
      const count = r.uleb();
      // Each entry takes at least one byte when there are formats: no more entries than bytes.
      if (count > programStart - r.pos + 1 && nFormats > 0) r.fail(`bad entry count ${count}`);
      const n = nFormats === 0 ? 0 : count;
      for (let i = 0; i < n; i++) {
        let name: string | null = null;
        let dir = 0;
        for (let k = 0; k < nFormats; k++) {
          const form = forms[k];
          if (types[k] === DW_LNCT_path) {
            if (form === DW_FORM_string) name = r.cstr();
            else if (form === DW_FORM_line_strp) name = strAt(strings.lineStr, r.offset(offSize));
            else if (form === DW_FORM_strp) name = strAt(strings.str, r.offset(offSize));
            else skipForm(r, form, fc);
          } else if (types[k] === DW_LNCT_directory_index) {
            if (
              form === DW_FORM_data1 ||
              form === DW_FORM_data2 ||
              form === DW_FORM_data4 ||
              form === DW_FORM_data8 ||
              form === DW_FORM_udata
            )
              dir = readForm(r, form, fc);
            else skipForm(r, form, fc);
          } else {
            skipForm(r, form, fc);
          }
        }
        if (isFile) files.push({ name, dir });
        else dirs.push(name);
      }
    };
    readEntries(false);
    readEntries(true);
  } else {
    for (;;) {
      const s = r.cstr();
      if (s === '') break;
      dirs.push(s);
    }
    for (;;) {
      const s = r.cstr();
      if (s === '') break;
      const dir = r.uleb();
      r.skipLeb();
      r.skipLeb();
      files.push({ name: s, dir });
    }
  }

  const useZero = version >= 5;
  const nameCache = new Map<number, string>();
  const fileName = (file: number): string => {
    let s = nameCache.get(file);
    if (s === undefined) {
      s = concatFilename(files, dirs, useZero, compDir, file);
      nameCache.set(file, s);
    }
    return s;
  };

  // The program.
  r.pos = programStart;
  const rows = new Growable();
  const ends: number[] = []; // row index of each sequence's end row
  let seqFirst = 0; // first row of the current sequence
  let address = 0;
  // The file register starts at 1 in every version (DWARF 5 table 6.4), and gcc relies on it: a
  // function from a header that opens a sequence, or every function's first rows with -flto
  // (file 0 `<artificial>`), has no DW_LNS_set_file before its first rows. LLVM reads file 1;
  // bfd 2.40 read file 0 in DWARF 5 (binutils PR 30783, fixed in 2.42).
  const firstFile = 1;
  let file = firstFile;
  let line = 1;
  const seqStarts: number[] = [];
  const emit = (end: boolean) => {
    // bfd keeps only the last row at one address (and the same end flag) in a sequence.
    const n = rows.n;
    if (n > seqFirst && rows.addr[n - 1] === address && !end) {
      rows.file[n - 1] = file;
      rows.line[n - 1] = line;
      return;
    }
    rows.push(address, file, line);
  };
  const reset = () => {
    address = 0;
    file = firstFile;
    line = 1;
  };
  while (r.pos < unitEnd) {
    const op = r.u8();
    if (op >= opcodeBase) {
      const adj = op - opcodeBase;
      address += Math.floor(adj / lineRange) * minInst;
      line += lineBase + (adj % lineRange);
      emit(false);
    } else if (op === 0) {
      const len = r.uleb();
      if (len === 0) continue;
      const start = r.pos;
      r.need(len);
      const sub = r.u8();
      if (sub === 1) {
        // end_sequence
        emit(true);
        seqStarts.push(seqFirst);
        ends.push(rows.n - 1);
        seqFirst = rows.n;
        reset();
      } else if (sub === 2) {
        const n = len - 1;
        address = n === 4 || n === 8 || n === 2 || n === 1 ? r.uN(n) : r.uN(addrSize);
      } else if (sub === 3) {
        // define_file (DWARF 2–4)
        const s = r.cstr();
        const dir = r.uleb();
        files.push({ name: s, dir });
      }
      r.pos = start + len;
    } else {
      switch (op) {
        case 1: // copy
          emit(false);
          break;
        case 2: // advance_pc
          address += r.uleb() * minInst;
          break;
        case 3: // advance_line
          line += r.sleb();
          break;
        case 4: // set_file
          file = r.uleb();
          break;
        case 8: // const_add_pc
          address += Math.floor((255 - opcodeBase) / lineRange) * minInst;
          break;
        case 9: // fixed_advance_pc
          address += r.u16();
          break;
        case 5: // set_column
        case 12: // set_isa
          r.skipLeb();
          break;
        case 6: // negate_stmt
        case 7: // set_basic_block
        case 10: // set_prologue_end
        case 11: // set_epilogue_begin
          break;
        default:
          for (let i = 0; i < stdLengths[op]; i++) r.skipLeb();
      }
    }
    if (line < 0 || line > 0xffffffff) line = 0;
    if (address >= BIG) address = BIG;
  }

  // Sequences: sort by start (longest first on ties, then program order), drop nested ones,
  // trim overlapping ones (bfd's sort_line_sequences).
  const nSeq = ends.length;
  const order: number[] = [];
  for (let i = 0; i < nSeq; i++) order.push(i);
  const lowOf = (i: number) => rows.addr[seqStarts[i]];
  const highOf = (i: number) => rows.addr[ends[i]];
  order.sort((a, b) => lowOf(a) - lowOf(b) || highOf(b) - highOf(a) || a - b);
  const seqLow: number[] = [];
  const seqHigh: number[] = [];
  const seqStart: number[] = [];
  const seqEnd: number[] = [];
  let lastHigh = -1;
  for (const i of order) {
    let low = lowOf(i);
    const high = highOf(i);
    if (low >= BIG) continue;
    if (seqLow.length > 0 && low < lastHigh) {
      if (high <= lastHigh) continue;
      low = lastHigh;
    }
    lastHigh = high;
    seqLow.push(low);
    seqHigh.push(high);
    seqStart.push(seqStarts[i]);
    seqEnd.push(ends[i]);
  }
  return {
    seqLow: Float64Array.from(seqLow),
    seqHigh: Float64Array.from(seqHigh),
    seqStart: Uint32Array.from(seqStart),
    seqEnd: Uint32Array.from(seqEnd),
    rowAddr: rows.addr.subarray(0, rows.n),
    rowFile: rows.file.subarray(0, rows.n),
    rowLine: rows.line.subarray(0, rows.n),
    fileName,
  };
}

/** The row for an address: its index, or -1. */
export function lookupLine(t: LineTable, addr: number): number {
  let a = 0;
  let b = t.seqLow.length;
  let s = -1;
  while (a < b) {
    const mid = (a + b) >>> 1;
    if (addr < t.seqLow[mid]) b = mid;
    else if (addr >= t.seqHigh[mid]) a = mid + 1;
    else {
      s = mid;
      break;
    }
  }
  if (s < 0) return -1;
  // The last row at or below addr, among seqStart … seqEnd (the end row is never an answer).
  let lo = t.seqStart[s];
  let hi = t.seqEnd[s]; // exclusive for candidates
  const ra = t.rowAddr;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ra[mid] <= addr) lo = mid + 1;
    else hi = mid;
  }
  const i = lo - 1;
  if (i < t.seqStart[s] || i >= t.seqEnd[s]) return -1;
  if (addr >= ra[i + 1]) return -1;
  return i;
}

function isAbsolute(p: string): boolean {
  return p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);
}

/** bfd's concat_filename. */
function concatFilename(
  files: { name: string | null; dir: number }[],
  dirs: (string | null)[],
  useZero: boolean,
  compDir: string | null,
  file0: number,
): string {
  let file = file0;
  if (!useZero) {
    if (file === 0) return '<unknown>';
    file--;
  }
  if (file >= files.length) return '<unknown>';
  const filename = files[file].name;
  if (filename === null) return '<unknown>';
  if (isAbsolute(filename)) return filename;
  let dir = files[file].dir;
  if (!useZero) dir--;
  let subdir: string | null = dir >= 0 && dir < dirs.length ? dirs[dir] : null;
  let dirName: string | null = null;
  if (subdir === null || !isAbsolute(subdir)) dirName = compDir;
  if (dirName === null) {
    dirName = subdir;
    subdir = null;
  }
  if (dirName === null) return filename;
  return subdir !== null ? `${dirName}/${subdir}/${filename}` : `${dirName}/${filename}`;
}
