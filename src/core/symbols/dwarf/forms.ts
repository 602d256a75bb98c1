// DWARF constants (tags, attributes, forms) and abbreviation tables: decoding `.debug_abbrev`,
// the size of each attribute form, and skipping/reading attribute values.

import { BIG, type Reader } from './reader.ts';

export const DW_TAG_entry_point = 0x03;
export const DW_TAG_compile_unit = 0x11;
export const DW_TAG_inlined_subroutine = 0x1d;
export const DW_TAG_subprogram = 0x2e;
export const DW_TAG_partial_unit = 0x3c;
export const DW_TAG_skeleton_unit = 0x4a;

export const DW_AT_sibling = 0x01;
export const DW_AT_name = 0x03;
export const DW_AT_stmt_list = 0x10;
export const DW_AT_low_pc = 0x11;
export const DW_AT_high_pc = 0x12;
export const DW_AT_language = 0x13;
export const DW_AT_comp_dir = 0x1b;
export const DW_AT_abstract_origin = 0x31;
export const DW_AT_specification = 0x47;
export const DW_AT_ranges = 0x55;
export const DW_AT_call_file = 0x58;
export const DW_AT_call_line = 0x59;
export const DW_AT_linkage_name = 0x6e;
export const DW_AT_str_offsets_base = 0x72;
export const DW_AT_addr_base = 0x73;
export const DW_AT_rnglists_base = 0x74;
export const DW_AT_MIPS_linkage_name = 0x2007;
export const DW_AT_GNU_addr_base = 0x2133;

export const DW_FORM_addr = 0x01;
export const DW_FORM_block2 = 0x03;
export const DW_FORM_block4 = 0x04;
export const DW_FORM_data2 = 0x05;
export const DW_FORM_data4 = 0x06;
export const DW_FORM_data8 = 0x07;
export const DW_FORM_string = 0x08;
export const DW_FORM_block = 0x09;
export const DW_FORM_block1 = 0x0a;
export const DW_FORM_data1 = 0x0b;
export const DW_FORM_flag = 0x0c;
export const DW_FORM_sdata = 0x0d;
export const DW_FORM_strp = 0x0e;
export const DW_FORM_udata = 0x0f;
export const DW_FORM_ref_addr = 0x10;
export const DW_FORM_ref1 = 0x11;
export const DW_FORM_ref2 = 0x12;
export const DW_FORM_ref4 = 0x13;
export const DW_FORM_ref8 = 0x14;
export const DW_FORM_ref_udata = 0x15;
export const DW_FORM_indirect = 0x16;
export const DW_FORM_sec_offset = 0x17;
export const DW_FORM_exprloc = 0x18;
export const DW_FORM_flag_present = 0x19;
export const DW_FORM_strx = 0x1a;
export const DW_FORM_addrx = 0x1b;
export const DW_FORM_ref_sup4 = 0x1c;
export const DW_FORM_strp_sup = 0x1d;
export const DW_FORM_data16 = 0x1e;
export const DW_FORM_line_strp = 0x1f;
export const DW_FORM_ref_sig8 = 0x20;
export const DW_FORM_implicit_const = 0x21;
export const DW_FORM_loclistx = 0x22;
export const DW_FORM_rnglistx = 0x23;
export const DW_FORM_ref_sup8 = 0x24;
export const DW_FORM_strx1 = 0x25;
export const DW_FORM_strx2 = 0x26;
export const DW_FORM_strx3 = 0x27;
export const DW_FORM_strx4 = 0x28;
export const DW_FORM_addrx1 = 0x29;
export const DW_FORM_addrx2 = 0x2a;
export const DW_FORM_addrx3 = 0x2b;
export const DW_FORM_addrx4 = 0x2c;
export const DW_FORM_GNU_addr_index = 0x1f01;
export const DW_FORM_GNU_str_index = 0x1f02;
export const DW_FORM_GNU_ref_alt = 0x1f20;
export const DW_FORM_GNU_strp_alt = 0x1f21;

/** What reading an attribute needs to know about its unit. */
export interface FormContext {
  version: number;
  addrSize: number;
  offSize: number;
}

/** The size of a form's value, or -1 when it varies (LEB128, strings, blocks, indirect). */
export function formSize(form: number, u: FormContext): number {
  switch (form) {
    case DW_FORM_addr:
      return u.addrSize;
    case DW_FORM_data1:
    case DW_FORM_ref1:
    case DW_FORM_flag:
    case DW_FORM_strx1:
    case DW_FORM_addrx1:
      return 1;
    case DW_FORM_data2:
    case DW_FORM_ref2:
    case DW_FORM_strx2:
    case DW_FORM_addrx2:
      return 2;
    case DW_FORM_strx3:
    case DW_FORM_addrx3:
      return 3;
    case DW_FORM_data4:
    case DW_FORM_ref4:
    case DW_FORM_strx4:
    case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
      return 4;
    case DW_FORM_data8:
    case DW_FORM_ref8:
    case DW_FORM_ref_sig8:
    case DW_FORM_ref_sup8:
      return 8;
    case DW_FORM_data16:
      return 16;
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_sec_offset:
    case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt:
    case DW_FORM_GNU_strp_alt:
      return u.offSize;
    case DW_FORM_ref_addr:
      return u.version <= 2 ? u.addrSize : u.offSize;
    case DW_FORM_flag_present:
    case DW_FORM_implicit_const:
      return 0;
    default:
      return -1;
  }
}

/** True for forms whose value is a string. */
export function isStringForm(form: number): boolean {
  return (
    form === DW_FORM_string ||
    form === DW_FORM_strp ||
    form === DW_FORM_line_strp ||
    form === DW_FORM_strx ||
    form === DW_FORM_strx1 ||
    form === DW_FORM_strx2 ||
    form === DW_FORM_strx3 ||
    form === DW_FORM_strx4 ||
    form === DW_FORM_GNU_str_index ||
    form === DW_FORM_GNU_strp_alt ||
    form === DW_FORM_strp_sup
  );
}

/** True for address-class forms (DW_AT_high_pc is an offset from low_pc otherwise). */
export function isAddressForm(form: number): boolean {
  return (
    form === DW_FORM_addr ||
    form === DW_FORM_addrx ||
    form === DW_FORM_addrx1 ||
    form === DW_FORM_addrx2 ||
    form === DW_FORM_addrx3 ||
    form === DW_FORM_addrx4 ||
    form === DW_FORM_GNU_addr_index
  );
}

/** True for unit-relative reference forms. */
export function isUnitRef(form: number): boolean {
  return (
    form === DW_FORM_ref1 ||
    form === DW_FORM_ref2 ||
    form === DW_FORM_ref4 ||
    form === DW_FORM_ref8 ||
    form === DW_FORM_ref_udata
  );
}

/** Skips one attribute value of the given form. */
export function skipForm(r: Reader, form: number, u: FormContext): void {
  const n = formSize(form, u);
  if (n >= 0) {
    r.skip(n);
    return;
  }
  switch (form) {
    case DW_FORM_string:
      r.skipCstr();
      return;
    case DW_FORM_udata:
    case DW_FORM_sdata:
    case DW_FORM_ref_udata:
    case DW_FORM_strx:
    case DW_FORM_addrx:
    case DW_FORM_loclistx:
    case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
      r.skipLeb();
      return;
    case DW_FORM_block1:
      r.skip(r.u8());
      return;
    case DW_FORM_block2:
      r.skip(r.u16());
      return;
    case DW_FORM_block4:
      r.skip(r.u32());
      return;
    case DW_FORM_block:
    case DW_FORM_exprloc:
      r.skip(r.uleb());
      return;
    case DW_FORM_indirect: {
      const f = r.uleb();
      if (f === DW_FORM_indirect || f === DW_FORM_implicit_const)
        r.fail(`bad indirect form 0x${f.toString(16)}`);
      skipForm(r, f, u);
      return;
    }
    default:
      r.fail(`unknown attribute form 0x${form.toString(16)}`);
  }
}

/**
 * An attribute value as a number: constants, flags, references (as stored: unit-relative for
 * ref1…ref_udata), section offsets, string/address/range-list indices, addresses. Strings and
 * blocks are skipped and read as -1; 16-byte data as BIG. `implicitConst` is the abbreviation's
 * value for DW_FORM_implicit_const.
 */
export function readForm(r: Reader, form: number, u: FormContext, implicitConst = 0): number {
  switch (form) {
    case DW_FORM_addr:
      return r.uN(u.addrSize);
    case DW_FORM_data1:
    case DW_FORM_ref1:
    case DW_FORM_flag:
    case DW_FORM_strx1:
    case DW_FORM_addrx1:
      return r.u8();
    case DW_FORM_data2:
    case DW_FORM_ref2:
    case DW_FORM_strx2:
    case DW_FORM_addrx2:
      return r.u16();
    case DW_FORM_strx3:
    case DW_FORM_addrx3:
      return r.u24();
    case DW_FORM_data4:
    case DW_FORM_ref4:
    case DW_FORM_strx4:
    case DW_FORM_addrx4:
    case DW_FORM_ref_sup4:
      return r.u32();
    case DW_FORM_data8:
    case DW_FORM_ref8:
    case DW_FORM_ref_sig8:
    case DW_FORM_ref_sup8:
      return r.u64();
    case DW_FORM_strp:
    case DW_FORM_line_strp:
    case DW_FORM_sec_offset:
    case DW_FORM_strp_sup:
    case DW_FORM_GNU_ref_alt:
    case DW_FORM_GNU_strp_alt:
      return r.offset(u.offSize);
    case DW_FORM_ref_addr:
      return u.version <= 2 ? r.uN(u.addrSize) : r.offset(u.offSize);
    case DW_FORM_flag_present:
      return 1;
    case DW_FORM_implicit_const:
      return implicitConst;
    case DW_FORM_udata:
    case DW_FORM_ref_udata:
    case DW_FORM_strx:
    case DW_FORM_addrx:
    case DW_FORM_loclistx:
    case DW_FORM_rnglistx:
    case DW_FORM_GNU_addr_index:
    case DW_FORM_GNU_str_index:
      return r.uleb();
    case DW_FORM_sdata:
      return r.sleb();
    case DW_FORM_data16:
      r.skip(16);
      return BIG;
    case DW_FORM_indirect: {
      const f = r.uleb();
      if (f === DW_FORM_indirect || f === DW_FORM_implicit_const)
        r.fail(`bad indirect form 0x${f.toString(16)}`);
      return readForm(r, f, u);
    }
    default:
      skipForm(r, form, u);
      return -1;
  }
}

/** array, class, enumeration, structure, subroutine and union types: no code inside. */
const TYPE_TAGS = new Set([0x01, 0x02, 0x04, 0x13, 0x15, 0x17]);

/** One abbreviation: the tag, whether DIEs have children, and the attribute specs. */
export interface Abbrev {
  tag: number;
  children: boolean;
  attrs: number[];
  forms: number[];
  consts: number[];
  /** Bytes of all attribute values when every form has a fixed size, else -1. */
  fixed: number;
  /**
   * For a type DIE with children (struct, class, union, enum, array, subroutine type) that has a
   * unit-relative DW_AT_sibling: that attribute's index, so its subtree (which holds no code) can
   * be skipped; else -1.
   */
  skipTree: number;
}

/** An abbreviation table: codes 1…n in `dense` (the usual case), others in `sparse`. */
export interface AbbrevTable {
  dense: (Abbrev | undefined)[];
  sparse: Map<number, Abbrev>;
}

export function abbrevOf(t: AbbrevTable, code: number): Abbrev | undefined {
  return code < t.dense.length ? t.dense[code] : t.sparse.get(code);
}

/** Decodes the abbreviation table at `r.pos` (up to its terminating 0 code). */
export function readAbbrevTable(r: Reader, u: FormContext): AbbrevTable {
  const dense: (Abbrev | undefined)[] = [undefined];
  const sparse = new Map<number, Abbrev>();
  for (;;) {
    const code = r.uleb();
    if (code === 0) break;
    const tag = r.uleb();
    const children = r.u8() !== 0;
    const attrs: number[] = [];
    const forms: number[] = [];
    const consts: number[] = [];
    let fixed = 0;
    for (;;) {
      const name = r.uleb();
      const form = r.uleb();
      if (name === 0 && form === 0) break;
      attrs.push(name);
      forms.push(form);
      consts.push(form === DW_FORM_implicit_const ? r.sleb() : 0);
      const n = formSize(form, u);
      fixed = fixed < 0 || n < 0 ? -1 : fixed + n;
    }
    let skipTree = -1;
    if (children && TYPE_TAGS.has(tag)) {
      const i = attrs.indexOf(DW_AT_sibling);
      if (i >= 0 && isUnitRef(forms[i])) skipTree = i;
    }
    const a: Abbrev = { tag, children, attrs, forms, consts, fixed, skipTree };
    if (code === dense.length) dense.push(a);
    else sparse.set(code, a);
  }
  return { dense, sparse };
}
