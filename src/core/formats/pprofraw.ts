// perl pprof's "symbolized profile", written by `google-pprof --raw BINARY PROFILE`:
//
//   --- symbol
//   binary=<program as given>
//   0x<addr> <name>[--<inlined>…]      (one line per address; 16 hex digits, 8 for 32-bit)
//   ---
//   --- profile
//   <binary gperftools CPU profile: 64-bit header in native order, period 1, no trailer, no maps,
//    caller PCs already −1-adjusted, records merged by stack>
//
// Facts: corpus README §5b (google-pprof l.1117–1166 writes it, l.3428 ReadSymbols reads it).
// The binary part is read by the gperftools parser; this file handles the text around it.

import { StringInterner } from '../address.ts';
import type { ProfileWarning, RawProfile } from '../types.ts';
import { ProfileError } from '../types.ts';
import { parseGperftools } from './gperftools.ts';

const SYMBOL_HEADER = '--- symbol';
const PROFILE_HEADER = '--- profile';

/** Reads one text line starting at `pos`: [line without \r\n, index after the \n]. */
function lineAt(bytes: Uint8Array, pos: number): [string, number] {
  let e = pos;
  while (e < bytes.length && bytes[e] !== 10) e++;
  let s = '';
  const stop = e > pos && bytes[e - 1] === 13 ? e - 1 : e;
  // Symbol names are ASCII in practice; decode UTF-8 only when needed.
  let ascii = true;
  for (let i = pos; i < stop; i++) {
    if (bytes[i] >= 0x80) {
      ascii = false;
      break;
    }
  }
  if (ascii) {
    for (let i = pos; i < stop; i += 4096) {
      s += String.fromCharCode(...bytes.subarray(i, Math.min(stop, i + 4096)));
    }
  } else {
    s = new TextDecoder('utf-8').decode(bytes.subarray(pos, stop));
  }
  return [s.replace(/\r/g, ''), e < bytes.length ? e + 1 : e];
}

/** Skips the `%warn …` / `%…` lines perl's ReadProfileHeader skips; returns the next position. */
function skipPercentLines(bytes: Uint8Array, pos: number): number {
  let p = pos;
  while (p < bytes.length && bytes[p] === 37 /* % */) {
    while (p < bytes.length && bytes[p] !== 10) p++;
    p++;
  }
  return p;
}

/** True when the bytes start (after optional `%` lines) with `--- symbol`. */
export function looksLikePprofRaw(bytes: Uint8Array): boolean {
  const p = skipPercentLines(bytes, 0);
  if (p + SYMBOL_HEADER.length > bytes.length) return false;
  const [line] = lineAt(bytes.subarray(0, Math.min(bytes.length, p + 256)), p);
  return line.trimEnd() === SYMBOL_HEADER;
}

/**
 * Splits perl's inline chain `outer--inlined--innermost` into frames, outermost first.
 * `--` never occurs in a name except in `operator--`, which is kept whole (perl itself splits it).
 */
export function splitInlineChain(names: string): string[] {
  const parts = names.split('--');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (out.length > 0 && out[out.length - 1].endsWith('operator')) out[out.length - 1] += `--${p}`;
    else out.push(p);
  }
  return out.filter((s) => s !== '');
}

/** `main<000000000000119e>` → `main`: the address tag perl adds to nm-resolved names. */
export function stripNmTag(name: string): string {
  return name.replace(/<[0-9a-f]+>$/, '');
}

// Linear: `0*` and the digits cannot trade zeros, and the name (`[\s\S]+`, not `.+`) cannot fail at a
// CR or U+2028 and backtrack over the blanks before it (`0*([0-9a-fA-F]+)\s+(.+)$` took 2.5 s on
// one 80 000-character line).
const SYMBOL_LINE = /^0x0*([1-9a-fA-F][0-9a-fA-F]*|0)\s+([\s\S]+)$/;
const ADDRESS_NAME = /^0x[0-9a-fA-F]+$/;

/**
 * Parses a perl `--raw` symbolized CPU profile. Result: format 'pprof-raw', adjustCallers false
 * (the writer adjusted them), periodUs 0 (perl writes a fake period of 1 µs: the real one is lost),
 * `embeddedSymbols` from the symbol section (frames outermost first, nm tags removed; addresses
 * perl left unresolved, named `0x…`, are left out), and each location's `locName` set to its real
 * (outermost) function.
 */
export function parsePprofRaw(bytes: Uint8Array): RawProfile {
  let pos = skipPercentLines(bytes, 0);
  let lineNo = 1;
  for (let i = 0; i < pos; i++) if (bytes[i] === 10) lineNo++;
  let [line, next] = lineAt(bytes, pos);
  if (line.trimEnd() !== SYMBOL_HEADER) {
    throw new ProfileError('not a pprof --raw profile: it does not start with "--- symbol"', 'pprof-raw', {
      line: lineNo,
    });
  }
  const warnings: ProfileWarning[] = [];
  const symbols = new Map<string, string[]>();
  const headerLines: { key: string; value: string; known: boolean }[] = [];
  let badLines = 0;
  let ended = false;
  pos = next;
  while (pos < bytes.length) {
    lineNo++;
    [line, next] = lineAt(bytes, pos);
    pos = next;
    if (line.startsWith('---')) {
      ended = true;
      break;
    }
    const m = SYMBOL_LINE.exec(line);
    if (m) {
      // A name that is nothing once its tag is cut is no name (the address stays unnamed).
      const chain = splitInlineChain(m[2].trim())
        .map(stripNmTag)
        .filter((s) => s !== '');
      if (chain.length === 0 || (chain.length === 1 && ADDRESS_NAME.test(chain[0]))) continue;
      symbols.set(m[1].toLowerCase(), chain);
      continue;
    }
    const kv = /^([A-Za-z_][\w.-]*)=(.*)$/.exec(line);
    if (kv) {
      headerLines.push({ key: kv[1], value: kv[2], known: kv[1] === 'binary' });
      continue;
    }
    if (line.trim() === '' || line.startsWith('%')) continue;
    if (++badLines <= 5)
      warnings.push({ message: `not a symbol line, ignored: ${line.slice(0, 80)}`, line: lineNo });
  }
  if (!ended) {
    throw new ProfileError(
      'pprof --raw profile: the symbol section never ends (no "---" line)',
      'pprof-raw',
      {
        line: lineNo,
      },
    );
  }
  // After the symbols: `--- profile` (perl writes a lone `---` first; accept it either way).
  if (line.trimEnd() !== PROFILE_HEADER) {
    pos = skipPercentLines(bytes, pos);
    while (pos < bytes.length) {
      lineNo++;
      [line, next] = lineAt(bytes.subarray(0, Math.min(bytes.length, pos + 4096)), pos);
      pos = next;
      if (line.trim() !== '') break;
    }
    if (line.trimEnd() !== PROFILE_HEADER) {
      const what = line.startsWith('--- ') ? `a "${line.trimEnd()}" section` : 'no "--- profile" section';
      throw new ProfileError(
        `pprof --raw profile has ${what}: only CPU profiles (--- profile) are supported`,
        'pprof-raw',
        { line: lineNo },
      );
    }
  }
  const binaryStart = pos;
  if (binaryStart >= bytes.length) {
    throw new ProfileError('pprof --raw profile: the "--- profile" section is empty', 'pprof-raw', {
      offset: binaryStart,
    });
  }
  let raw: RawProfile;
  try {
    raw = parseGperftools(bytes.subarray(binaryStart));
  } catch (e) {
    if (e instanceof ProfileError) {
      const where = e.offset !== undefined ? { offset: e.offset + binaryStart } : {};
      throw new ProfileError(`pprof --raw profile, binary part: ${e.message}`, 'pprof-raw', where);
    }
    throw e;
  }

  // The binary part has no trailer and no maps by design: drop that warning, shift the others.
  for (const w of raw.warnings) {
    if (/no trailer after \d+ records|^no mapped-objects text/.test(w.message)) continue;
    warnings.push(w.offset !== undefined ? { ...w, offset: w.offset + binaryStart } : w);
  }
  const filePeriod = raw.meta.periodUs;
  warnings.push({
    message:
      `the sampling period is unknown: pprof --raw writes ${filePeriod} µs instead of the real one, ` +
      'so sample counts are shown without time units',
  });
  if (badLines > 5) warnings.push({ message: `${badLines - 5} more lines in the symbol section ignored` });

  // Name each location after its real (outermost) function; embeddedSymbols has the full chain.
  const strings = new StringInterner();
  const loc = raw.locations;
  const locName = new Int32Array(loc.count).fill(-1);
  for (let i = 0; i < loc.count; i++) {
    const hi = loc.addrHi[i];
    const lo = loc.addrLo[i];
    const key = hi === 0 ? lo.toString(16) : hi.toString(16) + lo.toString(16).padStart(8, '0');
    const chain = symbols.get(key);
    if (chain !== undefined) locName[i] = strings.intern(chain[0]);
  }

  const extra: Record<string, string> = { ...(raw.meta.extra ?? {}) };
  extra['period in file'] = `${filePeriod} µs (written by pprof --raw; not the real period)`;
  extra.symbols = String(symbols.size);
  const out: RawProfile = {
    ...raw,
    format: 'pprof-raw',
    meta: { ...raw.meta, periodUs: 0, mappings: [], extra },
    locations: { ...loc, locName },
    strings: strings.strings,
    adjustCallers: false,
    embeddedSymbols: symbols,
    warnings,
  };
  if (headerLines.length > 0) out.meta.headerLines = headerLines;
  else delete out.meta.headerLines;
  return out;
}
