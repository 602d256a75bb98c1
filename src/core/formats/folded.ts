// Folded stacks (Brendan Gregg's `stackcollapse` output): `root;…;leaf WEIGHT` per line.
// The weight is the last space-separated token; blank lines and lines starting with # are skipped.

import { F64Builder, nameOnlyLocations, StringInterner, U32Builder } from '../address.ts';
import { unescapeFoldedName } from '../text/escape.ts';
import type { ProfileWarning, RawProfile } from '../types.ts';
import { ProfileError } from '../types.ts';
import { ByteInterner } from './byte-interner.ts';

/** A count as folded text writes numbers: `12`, `3.5`, and what our writer writes too: `-2`, `1e-7`. */
const WEIGHT_RE = /^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i;
const MAX_LINE_WARNINGS = 20;

/** Splits `stack weight`; null when the line is not a folded-stack line. */
function splitLine(line: string): { stack: string; weight: number } | null {
  const t = line.trimEnd();
  const sp = Math.max(t.lastIndexOf(' '), t.lastIndexOf('\t'));
  if (sp <= 0) return null;
  const w = t.slice(sp + 1);
  if (!WEIGHT_RE.test(w)) return null;
  const stack = t.slice(0, sp).trimEnd();
  if (stack === '') return null;
  return { stack, weight: Number(w) };
}

/**
 * Splits a line of Brendan Gregg's differential folded format (`difffolded.pl`): `stack BASE NEW`,
 * the baseline's count then the comparison's; null when the line is not one.
 */
function splitDiffLine(line: string): { stack: string; base: number; comp: number } | null {
  const last = splitLine(line);
  if (!last) return null;
  const first = splitLine(last.stack);
  if (!first) return null;
  return { stack: first.stack, base: first.weight, comp: last.weight };
}

/**
 * Sniffs folded text: valid UTF-8 without control characters in the first 64 KB, and the first
 * (up to 50) content lines all parse as `stack weight`.
 */
export function looksLikeFolded(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 65536);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(head);
  } catch {
    if (bytes.length <= 65536) return false;
    // The cut may have split a multi-byte character: retry without the last 3 bytes.
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(head.subarray(0, head.length - 3));
    } catch {
      return false;
    }
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting binary data is the point
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return false;
  const lines = text.split('\n');
  if (bytes.length > head.length) {
    lines.pop(); // possibly cut
    // A first line longer than the head (a name of 100 KB): sniffed whole, up to a limit.
    if (lines.length === 0) return firstLineIsFolded(bytes);
  }
  let seen = 0;
  for (const line of lines) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    if (!splitLine(line)) return false;
    if (++seen >= 50) break;
  }
  return seen > 0;
}

/**
 * Of text the sniff refused that begins as folded stacks: the first of the sniffed lines that is no
 * `stack WEIGHT` line after content lines that were, with its number and the byte it starts at (so
 * a stack file with one stray line is told where it is); null when the text does not begin as
 * folded stacks (then it is no folded text at all) or every sniffed line is one.
 */
export function foldedMisfit(bytes: Uint8Array): { line: number; offset: number } | null {
  const head = bytes.subarray(0, 65536);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let start = 0;
  let line = 1;
  let seen = 0;
  while (start < head.length && seen < 50) {
    let end = head.indexOf(10, start);
    if (end < 0) {
      if (bytes.length > head.length) return null; // the head's last line may be cut
      end = head.length;
    }
    let text: string;
    try {
      text = decoder.decode(head.subarray(start, end));
    } catch {
      return null;
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: binary data is no folded text
    if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return null;
    const t = text.trim();
    if (t !== '' && !t.startsWith('#')) {
      if (!splitLine(text)) return seen > 0 ? { line, offset: start } : null;
      seen++;
    }
    start = end + 1;
    line++;
  }
  return null;
}

/** The longest first line looked at when sniffing (a stack of deep recursion's long names). */
const MAX_FIRST_LINE = 64 << 20;

/** Whether a file's first line, longer than the sniffed head, is a folded stack. */
function firstLineIsFolded(bytes: Uint8Array): boolean {
  const nl = bytes.subarray(0, MAX_FIRST_LINE).indexOf(10);
  if (nl < 0) return false;
  let line: string;
  try {
    line = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, nl));
  } catch {
    return false;
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting binary data is the point
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(line)) return false;
  return splitLine(line) !== null;
}

/**
 * google-pprof's `--collapsed` output tags names with the function's address (`main<00000000000011f9>`,
 * 16 hex digits, 8 for 32-bit programs): not part of the name.
 */
const ADDRESS_TAG = /<[0-9a-f]{8}(?:[0-9a-f]{8})?>$/;

/**
 * A frame name as written, without google-pprof's trailing address tag, its escapes (`\xHH`,
 * `\uHHHH`: what our writer escapes, text/escape.ts) read.
 */
function frameName(written: string): string {
  const name = written.trim();
  if (name.charCodeAt(name.length - 1) !== 62 /* > */) return unescapeFoldedName(name);
  const cut = name.replace(ADDRESS_TAG, '');
  return unescapeFoldedName(cut === '' ? name : cut);
}

/** Parses folded stacks into name-only locations, stacks stored leaf first. */

/** True when the text's content lines (the first 50) all have two counts: `stack BASE NEW`. */
function isDiffText(text: string): boolean {
  let seen = 0;
  for (const line of text.split('\n', 4096)) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    if (!splitDiffLine(line)) return false;
    if (++seen >= 50) break;
  }
  return seen > 0;
}

/** AsciiLine.read's verdicts. */
const OK = 0;
const SKIP = 1;
const BAD = 2;
const NOT_ASCII = 3;

/** JavaScript's `trim` whitespace among ASCII bytes: \t \n \v \f \r and space. */
const isBlank = (c: number) => c === 32 || (c >= 9 && c <= 13);

/**
 * One line of ASCII bytes read as splitLine (splitDiffLine for `pair`) reads its text, in place:
 * its frames' byte ranges (blank ones empty) and its counts.
 */
class AsciiLine {
  /** The frames' [begin, end) byte ranges, root first: an empty range for a blank name. */
  cuts: Int32Array = new Int32Array(256);
  names = 0;
  weight = 0;
  base = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly pair: boolean,
  ) {}

  /**
   * Reads bytes[b, e): OK (its frames and counts set), SKIP (blank or a comment), BAD (not a
   * folded line), NOT_ASCII (a byte over 0x7f: read it as text).
   */
  read(b: number, e: number): number {
    const bytes = this.bytes;
    let names = 0;
    let cuts: Int32Array = this.cuts;
    let at = b;
    for (let i = b; i < e; i++) {
      const c = bytes[i];
      if (c > 0x7f) return NOT_ASCII;
      if (c === 59 /* ; */) {
        if (2 * names + 2 > cuts.length) cuts = this.grow();
        cuts[2 * names] = at;
        cuts[2 * names + 1] = i;
        names++;
        at = i + 1;
      }
    }
    // trim: blank or a comment
    let end = e;
    while (end > b && isBlank(bytes[end - 1])) end--;
    let first = b;
    while (first < end && isBlank(bytes[first])) first++;
    if (first === end || bytes[first] === 35 /* # */) return SKIP;
    // the last count, then (pair) the one before it: each after the last blank, the stack before
    let stackEnd = this.count(b, end);
    if (stackEnd < 0) return BAD;
    if (this.pair) {
      const comp = this.weight;
      stackEnd = this.count(b, stackEnd);
      if (stackEnd < 0) return BAD;
      this.base = this.weight;
      this.weight = comp;
    }
    // The names: the ranges the stack's ';' end, then the last one, up to the stack's end.
    while (names > 0 && cuts[2 * names - 1] >= stackEnd) names--;
    if (2 * names + 2 > cuts.length) cuts = this.grow();
    cuts[2 * names] = names > 0 ? cuts[2 * names - 1] + 1 : b;
    cuts[2 * names + 1] = stackEnd;
    names++;
    // A blank name is no frame (as `trim() === ''`): an empty range.
    for (let k = 0; k < names; k++) {
      let x = cuts[2 * k];
      const y = cuts[2 * k + 1];
      while (x < y && isBlank(bytes[x])) x++;
      if (x === y) cuts[2 * k + 1] = cuts[2 * k];
    }
    this.names = names;
    return OK;
  }

  /**
   * splitLine over bytes[b, end) (already without trailing blanks): sets `weight` to the count
   * after the last space or tab and returns where the stack before it ends (its trailing blanks
   * cut), or -1 when the line is no `stack COUNT`.
   */
  private count(b: number, end: number): number {
    const bytes = this.bytes;
    let sp = end - 1;
    while (sp >= b && bytes[sp] !== 32 && bytes[sp] !== 9) sp--;
    if (sp <= b) return -1;
    let w = '';
    for (let i = sp + 1; i < end; i++) w += String.fromCharCode(bytes[i]);
    if (!WEIGHT_RE.test(w)) return -1;
    this.weight = Number(w);
    let stackEnd = sp;
    while (stackEnd > b && isBlank(bytes[stackEnd - 1])) stackEnd--;
    return stackEnd === b ? -1 : stackEnd;
  }

  private grow(): Int32Array {
    const next = new Int32Array(this.cuts.length * 2);
    next.set(this.cuts);
    this.cuts = next;
    return next;
  }
}

/**
 * Parses folded stacks into name-only locations, stacks stored leaf first. Two counts per line
 * (difffolded.pl's `stack BASE NEW`) give a profile of two sample types, `baseline` and
 * `comparison` (the default), marked `diffPair`: it opens as a comparison of the two.
 *
 * Read from the bytes, line by line: an ASCII line is split where it lies and each frame's bytes
 * found by a hash (ByteInterner: a name is decoded once); a line with any other byte is decoded and
 * read as text (splitLine), which is what the ASCII reading does byte for byte. Decoding the whole
 * file first held a string of its size during the parse (and, through names cut out of it, after)
 * and split every line into strings: 400 MB read in 4.7 s in node.
 */
export function parseFolded(bytes: Uint8Array): RawProfile {
  return readFolded(bytes, true);
}

/** parseFolded; `ascii` false reads every line as text (the reference the byte reading is tested against). */
export function readFolded(bytes: Uint8Array, ascii: boolean): RawProfile {
  if (bytes.length === 0) throw new ProfileError('empty file', 'folded', { offset: 0 });
  const strings = new StringInterner();
  const stackLocs = new U32Builder(4096);
  const stackStart = new U32Builder(1024);
  const weight = new F64Builder(1024);
  // The first 65,536 characters (the decoder drops a byte-order mark, as it did for the whole file).
  const pair = isDiffText(new TextDecoder('utf-8').decode(bytes.subarray(0, 3 * 65536)).slice(0, 65536));
  const baseWeight = new F64Builder(pair ? 1024 : 1);
  stackStart.push(0);
  const warnings: ProfileWarning[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder('utf-8');
  const names = new ByteInterner(bytes, view, (b, e) =>
    strings.intern(frameName(decoder.decode(bytes.subarray(b, e)))),
  );
  const line = new AsciiLine(bytes, pair);
  let bad = 0;
  let firstBad = 0;
  let lineNo = 0;
  const size = bytes.length;
  let pos = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (pos <= size) {
    let nl = bytes.indexOf(10, pos);
    if (nl < 0) nl = size;
    const from = pos;
    pos = nl + 1;
    lineNo++;
    const read = ascii ? line.read(from, nl) : NOT_ASCII;
    if (read === SKIP) continue;
    if (read === OK) {
      // Leaf first: the last name of the line is the leaf.
      const { cuts } = line;
      for (let k = line.names - 1; k >= 0; k--) {
        const b = cuts[2 * k];
        const e = cuts[2 * k + 1];
        if (b < e) stackLocs.push(names.get(b, e));
      }
      stackStart.push(stackLocs.length);
      weight.push(line.weight);
      if (pair) baseWeight.push(line.base);
      continue;
    }
    const text = decoder.decode(bytes.subarray(from, nl));
    const t = text.trim();
    if (t === '' || t.startsWith('#')) continue;
    const two = pair ? splitDiffLine(text) : null;
    const parsed = pair ? two && { stack: two.stack, weight: two.comp } : splitLine(text);
    if (read === BAD || !parsed) {
      if (bad++ === 0) firstBad = lineNo;
      if (bad <= MAX_LINE_WARNINGS) {
        const form = pair ? 'frame;frame;… BASE NEW' : 'frame;frame;… COUNT';
        warnings.push({ message: `line ${lineNo} is not \`${form}\`: skipped`, line: lineNo });
      }
      continue;
    }
    const parts = parsed.stack.split(';');
    for (let k = parts.length - 1; k >= 0; k--) {
      // `a;;b` has no frame between a and b; an empty name is written `\e` (text/escape.ts).
      if (parts[k].trim() === '') continue;
      stackLocs.push(strings.intern(frameName(parts[k])));
    }
    stackStart.push(stackLocs.length);
    weight.push(parsed.weight);
    if (two) baseWeight.push(two.base);
  }
  if (bad > MAX_LINE_WARNINGS) {
    warnings.push({ message: `${bad - MAX_LINE_WARNINGS} more lines skipped` });
  }
  if (weight.length === 0) {
    throw bad > 0
      ? new ProfileError('no line is a folded stack (`frame;frame;… COUNT`)', 'folded', { line: firstBad })
      : new ProfileError('no stacks: the file has only blank or comment lines', 'folded', { line: 1 });
  }
  const n = strings.strings.length;
  const locName = new Int32Array(n);
  for (let k = 0; k < n; k++) locName[k] = k;
  const comp = weight.finish();
  const twoColumns: Partial<RawProfile> = pair
    ? {
        sampleTypes: [
          { type: 'baseline', unit: 'count' },
          { type: 'comparison', unit: 'count' },
        ],
        defaultSampleType: 1,
        diffPair: true,
      }
    : {};
  return {
    ...twoColumns,
    format: 'folded',
    meta: { periodUs: 0, mappings: [] },
    locations: nameOnlyLocations(locName),
    strings: strings.strings,
    samples: {
      count: weight.length,
      stackStart: stackStart.finish(),
      stackLocs: stackLocs.finish(),
      weight: comp,
      ...(pair ? { values: [baseWeight.finish(), comp] } : {}),
    },
    adjustCallers: false,
    warnings,
  };
}
