// What a frame says in words, drawn from its kind and fields (types.ts FrameTable), never by
// taking its name apart: the bar label (canvas and SVG), the tooltip's lines (canvas and SVG's
// <title>), the table's cell. One place, so every view and export says the same.

import { hexOf } from '../address';
import { FrameKind, type FrameTable, Unnamed } from '../types';
import { visibleText } from './escape';
import { basename } from './names';

/**
 * Frame f's name: its identity (zoom paths, links, transforms, search and a comparison's merge go
 * by it) and what views show. An address frame stored without one is `MODULE+0xOFFSET` (`0x…`
 * outside every module), as FrameNaming would have named it.
 */
export function frameName(t: FrameTable, f: number): string {
  const own = t.ownName[f] ?? null;
  return own === null ? addressName(t, f) : own;
}

/** The name of an address frame stored without one (FrameTable.moduleNames). */
function addressName(t: FrameTable, f: number): string {
  const hex = hexOf(t.addrHi?.[f] ?? 0, t.addrLo?.[f] ?? 0);
  const m = t.module[f];
  return m < 0 ? `0x${hex}` : `${t.moduleNames![m]}+0x${hex}`;
}

/** The function the frame is (Function, Inlined) or is in (Line, Address in a function); null for none. */
export function functionOf(t: FrameTable, f: number): string | null {
  const k = t.kind[f];
  if (k === FrameKind.Function || k === FrameKind.Inlined) return frameName(t, f);
  const fn = t.func?.[f] ?? -1;
  return fn >= 0 ? t.strings[fn] : null;
}

/** A Line frame's `file:line`, the file's path whole; null for other frames. */
export function sourceAt(t: FrameTable, f: number): string | null {
  const file = t.file?.[f] ?? -1;
  if (t.kind[f] !== FrameKind.Line || file < 0) return null;
  return `${t.strings[file]}:${t.line?.[f] ?? 0}`;
}

/** An Address frame's address: `libfoo.so+0x1a2b` (offset in the module's file) or `0x…`; null for others. */
export function addressOf(t: FrameTable, modules: readonly string[], f: number): string | null {
  if (t.kind[f] !== FrameKind.Address) return null;
  const hex = hexOf(t.addrHi?.[f] ?? 0, t.addrLo?.[f] ?? 0);
  const m = t.module[f];
  return m >= 0 && modules[m] !== undefined ? `${basename(modules[m])}+0x${hex}` : `0x${hex}`;
}

/**
 * A frame's label on its bar: a Line frame as `function file.cpp:12` (the file's base name: the
 * directories are the same for all of a file's lines, and at the end of the name they cut the
 * function's name out of a narrow bar); every other frame as its name.
 */
export function frameLabel(t: FrameTable, f: number): string {
  const line = lineLabel(t, f);
  return shownText(line === null ? (frameName(t, f) ?? '') : `${line.fn} ${line.at}`);
}

/** The longest name shown whole (C++ template names run to thousands of characters; none to this). */
export const SHOWN_MAX = 16_384;

/**
 * A name as a view shows it: its controls and bidirectional overrides as escapes (text/escape.ts:
 * one name cannot read as another), whole up to SHOWN_MAX characters, else its start and how much
 * is left out. A file anyone can write may name a function with 20 MB: laid out whole in a table cell, a
 * tooltip or a canvas label it held the page's thread for seconds. Exports keep names whole.
 */
export function shownText(text: string): string {
  if (text.length <= SHOWN_MAX) return visibleText(text);
  const cut = SHOWN_MAX - 64;
  return `${visibleText(text.slice(0, cut))}… (${(text.length - cut).toLocaleString('en-US')} more characters)`;
}

/**
 * A Line frame's label in its two parts, the function and `file.cpp:12` (frameLabel's, joined by a
 * space), for a view that cuts the first and keeps the second; null for other frames.
 */
export function lineLabel(t: FrameTable, f: number): { fn: string; at: string } | null {
  const file = t.file?.[f] ?? -1;
  if (t.kind[f] !== FrameKind.Line || file < 0) return null;
  return {
    fn: shownText(functionOf(t, f) ?? ''),
    at: shownText(`${basename(t.strings[file])}:${t.line?.[f] ?? 0}`),
  };
}

/** The lines a tooltip shows of a frame, each absent when it would say nothing new. */
export interface FrameDescription {
  /** The label (frameLabel), whole. */
  title: string;
  /** The full (demangled) name of the frame's function, where short names cut it. */
  full?: string;
  /** Inlined into its caller (an inline chain's inner frame). */
  inlined?: true;
  /** A Line frame's `path/file.cpp:12`, the path whole. */
  at?: string;
  /** An Address frame in a function: where the address is in its module (`libfoo.so+0x1a2b`). */
  address?: string;
  /** Why the code has no name, and what would name it. */
  hint?: string;
  /** The module's path. */
  module?: string;
}

const HINTS: Partial<Record<Unnamed, string>> = {
  [Unnamed.OutsideSymbols]: 'No symbol covers these addresses: drop the binary’s debug file.',
  [Unnamed.NoSymbolFile]: 'No binary for this module: drop it to see function names.',
};

export function describeFrame(t: FrameTable, modules: readonly string[], f: number): FrameDescription {
  const d: FrameDescription = { title: frameLabel(t, f) };
  const fn = functionOf(t, f);
  const full = t.fullName?.[f];
  if (fn !== null && full !== undefined && full !== fn) d.full = shownText(full);
  if (t.kind[f] === FrameKind.Inlined) d.inlined = true;
  const at = sourceAt(t, f);
  if (at !== null) d.at = shownText(at);
  if (fn !== null) {
    const address = addressOf(t, modules, f);
    if (address !== null) d.address = address;
  }
  const hint = HINTS[(t.unnamed?.[f] ?? Unnamed.Named) as Unnamed];
  if (hint !== undefined) d.hint = hint;
  const m = t.module[f];
  if (m >= 0 && modules[m]) d.module = shownText(modules[m]);
  return d;
}

/** The description as lines of text (an SVG <title>, a CLI): title, full name, place, module, hint. */
export function describeFrameLines(d: FrameDescription): string[] {
  const out = [d.title];
  if (d.full !== undefined) out.push(d.full);
  if (d.inlined) out.push('inlined');
  if (d.at !== undefined) out.push(`at ${d.at}`);
  if (d.address !== undefined) out.push(`address ${d.address}`);
  if (d.module !== undefined) out.push(d.module);
  if (d.hint !== undefined) out.push(d.hint);
  return out;
}
