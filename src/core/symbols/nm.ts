// `nm` listings dropped beside a profile (for a binary the user cannot share, or a stripped one
// whose symbols were listed before stripping). BSD format `ADDR TYPE NAME` with an optional
// size column (`nm -S`), as printed by `nm`, `nm -n`, `nm -C`, `nm -D`, `nm --defined-only`;
// also POSIX format `NAME TYPE ADDR [SIZE]` (`nm -P`). Only function symbols (T t W w i I) are
// kept. The result plugs into createSymbolizer like an ELF file.

import { emptyColumns, STB_GLOBAL, STB_LOCAL, STB_WEAK, SymbolTable } from './elf.ts';

export interface NmFile {
  kind: 'nm';
  fileName: string;
  symbols: SymbolTable;
  /** How many lines were symbol lines and how many of those were functions. */
  lines: number;
  functions: number;
  warnings: string[];
}

// nm pads BSD addresses (and sizes) to 8 or 16 digits: that tells `f T 1000` (POSIX) apart.
const HEX = '([0-9a-fA-F]{16}|[0-9a-fA-F]{8})';
const BSD = new RegExp(`^${HEX}(?:\\s+${HEX})?\\s+([A-Za-z?-])\\s+(\\S.*)$`);
/** POSIX `NAME TYPE ADDR [SIZE]` after NAME: matched from the blank before TYPE (see matchPosix). */
const POSIX_TAIL = /\s([A-Za-z?-])\s+([0-9a-fA-F]{1,16})(?:\s+([0-9a-fA-F]{1,16}))?\s*$/g;
const UNDEF = /^\s+[UvVw]\s+\S/;

/**
 * A POSIX line's [line, NAME, TYPE, ADDR, SIZE] as `^(\S.*?)\s+` + the tail would match it, or
 * null. NAME (which may hold blanks, `nm -C`) ends before the first TYPE from which the rest
 * parses: the leftmost match of the tail. That one regular expression backtracked quadratically
 * over a long run of blanks (an 80 000-blank line took 7 s); the tail alone does not.
 */
function matchPosix(line: string): [string, string, string, string, string | undefined] | null {
  if (line.length === 0 || /\s/.test(line[0])) return null;
  POSIX_TAIL.lastIndex = 1;
  const t = POSIX_TAIL.exec(line);
  if (t === null) return null;
  const name = line.slice(0, t.index).replace(/\s+$/, '');
  // NAME is `.`s: no line terminator in it (the blanks before TYPE may hold one)
  if (/[\n\r\u2028\u2029]/.test(name)) return null;
  return [line, name, t[1], t[2], t[3]];
}

function bindOf(type: string): number {
  if (type === 'W') return STB_WEAK;
  if (type === 'w') return STB_WEAK;
  if (type === 'T' || type === 'i' || type === 'I') return STB_GLOBAL;
  return STB_LOCAL;
}

function isFunctionType(type: string): boolean {
  return type === 'T' || type === 't' || type === 'W' || type === 'w' || type === 'i' || type === 'I';
}

function splitHex(h: string): [number, number] {
  const hi = h.length > 8 ? Number.parseInt(h.slice(0, h.length - 8), 16) : 0;
  const lo = Number.parseInt(h.length > 8 ? h.slice(h.length - 8) : h, 16);
  return [hi, lo];
}

function decodeHead(bytes: Uint8Array, max: number): string {
  const n = Math.min(bytes.length, max);
  let s = '';
  for (let i = 0; i < n; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/**
 * True when the bytes read as an nm listing: most of the first non-empty lines are symbol lines
 * (`ADDR [SIZE] TYPE NAME`, or an undefined symbol `   U NAME`) and at least one has an address.
 */
export function looksLikeNm(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  // NUL and other binary bytes: no listing (looked at before a string is made of them, as every
  // binary profile dropped is asked)
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] < 9) return false;
  const head = decodeHead(bytes, 8192);
  const lines = head.split('\n');
  if (bytes.length > 8192) lines.pop(); // maybe cut in the middle
  let seen = 0;
  let good = 0;
  let withAddr = 0;
  for (const raw of lines) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') continue;
    if (seen >= 40) break;
    seen++;
    if (BSD.test(line)) {
      good++;
      withAddr++;
    } else if (UNDEF.test(line) || /^\S.*:$/.test(line)) {
      good++; // undefined symbol, or a `file.o:` header of an archive listing
    }
  }
  return withAddr > 0 && good >= Math.max(1, Math.ceil(seen * 0.8));
}

/**
 * Parses an nm listing into a symbol table. Names are kept as listed (mangled unless `nm -C`
 * was used; the symbolizer demangles mangled ones). Sizes come from `nm -S`; without them a
 * symbol extends to the next listed function.
 */
export function parseNm(text: string, fileName: string): NmFile {
  const cols = emptyColumns();
  const warnings: string[] = [];
  let lines = 0;
  let functions = 0;
  let skipped = 0;
  let firstSkipped = 0;
  const all = text.split('\n');
  for (let ln = 0; ln < all.length; ln++) {
    let line = all[ln];
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') continue;
    let addr: string;
    let size: string | undefined;
    let type: string;
    let name: string;
    const m = BSD.exec(line);
    if (m) {
      [, addr, size, type, name] = m as unknown as [string, string, string | undefined, string, string];
    } else {
      const p = matchPosix(line);
      if (!p || UNDEF.test(line)) {
        if (!UNDEF.test(line) && !/^\S.*:$/.test(line)) {
          if (skipped === 0) firstSkipped = ln + 1;
          skipped++;
        }
        continue;
      }
      [, name, type, addr, size] = p as unknown as [string, string, string, string, string | undefined];
    }
    lines++;
    if (!isFunctionType(type)) continue;
    name = name.trimEnd();
    if (name === '') continue;
    const [hi, lo] = splitHex(addr);
    if (hi === 0 && lo === 0) continue;
    cols.hi.push(hi);
    cols.lo.push(lo);
    cols.size.push(size === undefined ? 0 : Number.parseInt(size, 16));
    cols.bind.push(bindOf(type));
    cols.capHi.push(0xffffffff);
    cols.capLo.push(0xffffffff);
    cols.name.push(name);
    functions++;
  }
  if (skipped > 0) warnings.push(`${skipped} lines are not nm symbol lines (first at line ${firstSkipped})`);
  return { kind: 'nm', fileName, symbols: new SymbolTable(cols), lines, functions, warnings };
}

/** An nm listing (bytes or text) as a symbol source for createSymbolizer. */
export function nmToElfLike(text: string | Uint8Array, fileName: string): NmFile {
  const s = typeof text === 'string' ? text : new TextDecoder('utf-8').decode(text);
  return parseNm(s, fileName);
}
