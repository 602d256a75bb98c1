// Folded stacks (Brendan Gregg's `stackcollapse` output): `root;…;leaf WEIGHT` per line.
// The weight is the last space-separated token; blank lines and lines starting with # are skipped.

import { F64Builder, StringInterner, U32Builder } from '../address.ts';
import { unescapeFoldedName } from '../text/escape.ts';
import type { ProfileWarning, RawProfile } from '../types.ts';
import { ProfileError } from '../types.ts';

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

/**
 * Parses folded stacks into name-only locations, stacks stored leaf first. Two counts per line
 * (difffolded.pl's `stack BASE NEW`) give a profile of two sample types, `baseline` and
 * `comparison` (the default), marked `diffPair`: it opens as a comparison of the two.
 */
export function parseFolded(bytes: Uint8Array): RawProfile {
  if (bytes.length === 0) throw new ProfileError('empty file', 'folded', { offset: 0 });
  const text = new TextDecoder('utf-8').decode(bytes);
  const strings = new StringInterner();
  const stackLocs = new U32Builder(4096);
  const stackStart = new U32Builder(1024);
  const weight = new F64Builder(1024);
  const pair = isDiffText(text.slice(0, 65536));
  const baseWeight = new F64Builder(pair ? 1024 : 1);
  stackStart.push(0);
  const warnings: ProfileWarning[] = [];
  let bad = 0;
  let firstBad = 0;
  let lineNo = 0;
  let pos = 0;
  while (pos <= text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = text.length;
    const line = text.slice(pos, nl);
    pos = nl + 1;
    lineNo++;
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    const two = pair ? splitDiffLine(line) : null;
    const parsed = pair ? two && { stack: two.stack, weight: two.comp } : splitLine(line);
    if (!parsed) {
      if (bad++ === 0) firstBad = lineNo;
      if (bad <= MAX_LINE_WARNINGS) {
        const form = pair ? 'frame;frame;… BASE NEW' : 'frame;frame;… COUNT';
        warnings.push({ message: `line ${lineNo} is not \`${form}\`: skipped`, line: lineNo });
      }
      continue;
    }
    const names = parsed.stack.split(';');
    // Leaf first: the last name of the line is the leaf.
    for (let k = names.length - 1; k >= 0; k--) {
      // `a;;b` has no frame between a and b; an empty name is written `\e` (text/escape.ts).
      if (names[k].trim() === '') continue;
      stackLocs.push(strings.intern(frameName(names[k])));
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
    locations: {
      count: n,
      addrHi: new Uint32Array(n),
      addrLo: new Uint32Array(n),
      hasAddr: new Uint8Array(n),
      locName,
    },
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
