// Function listings (disasm.ts) as JSON, for an HTML report that carries the disassembly of its
// heaviest functions (the report holds no binary to disassemble). Addresses are 64-bit: written as
// hex strings, never through a number. Read back field by field: a report is a file from someone
// else, so anything that is not a listing as written here is refused, never shown.

import type { AsmInstruction, FunctionListing, SourceLine } from './disasm.ts';
import type { Arch } from './engine.ts';

const hex = (n: bigint) => n.toString(16);

/** `listings` as plain JSON values. */
export function listingsToJson(listings: readonly FunctionListing[]): unknown[] {
  return listings.map((l) => ({
    symbol: {
      name: l.symbol.name,
      rawName: l.symbol.rawName,
      start: hex(l.symbol.start),
      end: hex(l.symbol.end),
    },
    arch: l.arch,
    flat: l.flat,
    cum: l.cum,
    lines: l.lines,
    instructions: l.instructions.map((i) => ({
      ...i,
      address: hex(i.address),
      ...(i.target !== undefined && { target: hex(i.target) }),
    })),
  }));
}

const ARCHES = new Set<unknown>(['x86-64', 'x86', 'aarch64'] satisfies Arch[]);
const isHex = (x: unknown): x is string => typeof x === 'string' && /^[0-9a-f]{1,16}$/.test(x);
const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const isInt = (x: unknown): x is number => Number.isSafeInteger(x);
const isText = (x: unknown): x is string => typeof x === 'string';

function lineOf(x: unknown, instructions: number): SourceLine | null {
  if (typeof x !== 'object' || x === null) return null;
  const s = x as Record<string, unknown>;
  if (!isText(s.file) || !isInt(s.line) || !isText(s.function) || !isCount(s.flat) || !isCount(s.cum))
    return null;
  if (!Array.isArray(s.instructions) || !s.instructions.every((k) => isInt(k) && k >= 0 && k < instructions))
    return null;
  return {
    file: s.file,
    line: s.line,
    function: s.function,
    instructions: s.instructions as number[],
    flat: s.flat,
    cum: s.cum,
  };
}

function instructionOf(x: unknown, count: number, lines: number): AsmInstruction | null {
  if (typeof x !== 'object' || x === null) return null;
  const i = x as Record<string, unknown>;
  const ok =
    isHex(i.address) &&
    isText(i.addressText) &&
    isInt(i.fileOffset) &&
    isInt(i.size) &&
    isText(i.mnemonic) &&
    isText(i.operands) &&
    isText(i.text) &&
    (i.target === undefined || isHex(i.target)) &&
    (i.targetLabel === undefined || isText(i.targetLabel)) &&
    isInt(i.targetIndex) &&
    i.targetIndex >= -1 &&
    i.targetIndex < count &&
    isInt(i.line) &&
    i.line >= -1 &&
    i.line < lines &&
    isCount(i.flat) &&
    isCount(i.cum);
  if (!ok) return null;
  return {
    address: BigInt(`0x${i.address}`),
    addressText: i.addressText as string,
    fileOffset: i.fileOffset as number,
    size: i.size as number,
    mnemonic: i.mnemonic as string,
    operands: i.operands as string,
    text: i.text as string,
    ...(i.target !== undefined && { target: BigInt(`0x${i.target}`) }),
    ...(i.targetLabel !== undefined && { targetLabel: i.targetLabel as string }),
    targetIndex: i.targetIndex as number,
    line: i.line as number,
    flat: i.flat as number,
    cum: i.cum as number,
  };
}

/** Listings as listingsToJson wrote them, or null when `x` is anything else. */
export function listingsFromJson(x: unknown): FunctionListing[] | null {
  if (!Array.isArray(x)) return null;
  const out: FunctionListing[] = [];
  for (const v of x) {
    if (typeof v !== 'object' || v === null) return null;
    const l = v as Record<string, unknown>;
    const s = l.symbol as Record<string, unknown> | null;
    if (typeof s !== 'object' || s === null || !isText(s.name) || !isText(s.rawName)) return null;
    if (!isHex(s.start) || !isHex(s.end) || !ARCHES.has(l.arch) || !isCount(l.flat) || !isCount(l.cum))
      return null;
    if (!Array.isArray(l.instructions) || !Array.isArray(l.lines)) return null;
    const count = l.instructions.length;
    const lines = l.lines.map((k) => lineOf(k, count));
    const instructions = l.instructions.map((k) => instructionOf(k, count, lines.length));
    if (lines.includes(null) || instructions.includes(null)) return null;
    out.push({
      symbol: { name: s.name, rawName: s.rawName, start: BigInt(`0x${s.start}`), end: BigInt(`0x${s.end}`) },
      arch: l.arch as Arch,
      flat: l.flat,
      cum: l.cum,
      lines: lines as SourceLine[],
      instructions: instructions as AsmInstruction[],
    });
  }
  return out;
}
