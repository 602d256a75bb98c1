// Granularity, as pprof's -functions / -lines / -addresses: what a frame is. The fold names frames
// through a symbolizer (and a profile's own lines); at `lines` a frame is `function file:line`, at
// `addresses` `function+0xOFFSET` (into the symbol that holds the address). Addresses no symbol
// covers stay `MODULE+0xOFFSET`. Done by wrapping the symbolizer and renaming a profile's own
// lines, so the fold itself does not change.

import { shortFunctionName } from '../text/names';
import type { Granularity, RawProfile, SymbolFrame, Symbolizer } from '../types';
import type { FrameNames } from './fold';

const lineName = (name: string, file: string | undefined, line: number | undefined) =>
  file ? `${name} ${file}:${line ?? 0}` : name;

/**
 * A symbolizer whose names are the granularity's frames. At `lines` and `addresses` the names are
 * shortened here (when `names` is short), before the file:line or offset is added: the fold then
 * takes them as they are.
 */
export function symbolizerFor(
  s: Symbolizer | undefined,
  g: Granularity,
  names: FrameNames = 'full',
): Symbolizer | undefined {
  if (!s || g === 'functions') return s;
  // Each function's name comes back at every address of it (and of the functions inlined into
  // it): shortened once per name.
  const shortOf = new Map<string, string>();
  const nm =
    names === 'short'
      ? (n: string) => {
          let s = shortOf.get(n);
          if (s === undefined) {
            s = shortFunctionName(n);
            shortOf.set(n, s);
          }
          return s;
        }
      : (n: string) => n;
  const common = { hasSymbolFile: s.hasSymbolFile?.bind(s) };
  if (g === 'lines') {
    // The symbolizer's frames are shared between the addresses they cover (DWARF's inline callers
    // and lines): each named once.
    // So are whole chains (and a symbol's names): the names of each are one array, which the
    // fold caches by.
    const named = new Map<SymbolFrame, string>();
    const nameOf = (f: SymbolFrame) => {
      let n = named.get(f);
      if (n === undefined) {
        n = lineName(nm(f.name), f.file, f.line);
        named.set(f, n);
      }
      return n;
    };
    const chains = new Map<readonly unknown[], string[]>();
    const once = <T>(found: readonly T[], name: (x: T) => string): string[] => {
      let out = chains.get(found);
      if (out === undefined) {
        out = found.map(name);
        chains.set(found, out);
      }
      return out;
    };
    return {
      ...common,
      lookup(hi, lo) {
        const frames = s.lookupFrames?.(hi, lo);
        if (frames) return once(frames, nameOf);
        const found = s.lookup(hi, lo);
        return found ? once(found, nm) : null;
      },
    };
  }
  return {
    ...common,
    lookup(hi, lo) {
      const found = s.lookup(hi, lo);
      if (!found || found.length === 0) return found;
      const out = found.map(nm);
      const off = s.offsetInSymbol?.(hi, lo);
      if (off !== null && off !== undefined)
        out[out.length - 1] = `${out[out.length - 1]}+0x${off.toString(16)}`;
      return out;
    },
  };
}

/** A profile whose own lines (pprof) are named `function file:line` at line granularity. */
export function rawFor(raw: RawProfile, g: Granularity, names: FrameNames = 'full'): RawProfile {
  const lines = raw.lines;
  if (g !== 'lines' || !lines) return raw;
  const strings = raw.strings.slice();
  const name = new Int32Array(lines.name.length);
  const ids = new Map<string, number>();
  for (let i = 0; i < name.length; i++) {
    const f = lines.file[i];
    const fn = strings[lines.name[i]];
    const text = lineName(
      names === 'short' ? shortFunctionName(fn) : fn,
      f >= 0 ? strings[f] : undefined,
      lines.line[i],
    );
    let id = ids.get(text);
    if (id === undefined) {
      id = strings.length;
      strings.push(text);
      ids.set(text, id);
    }
    name[i] = id;
  }
  return { ...raw, strings, lines: { ...lines, name } };
}
