// The function table as CSV (RFC 4180), safe to open in a spreadsheet; names' controls and bidi
// overrides written as escapes (text/escape.ts).

import { type CallTree, type FunctionTable, totalOf } from '../core/model/calltree';
import { sortFunctions } from '../core/model/table-order';
import { visibleText } from '../core/text/escape';
import { frameName } from '../core/text/frame-text';
import { unitName, weightUnit } from '../core/text/units';
import type { FoldedProfile } from '../core/types';

/**
 * One CSV field. Text that a spreadsheet would run as a formula (= + - @, or a leading tab or
 * carriage return) gets a leading single quote; fields with a quote, comma or line break are
 * quoted, with quotes doubled.
 */
export function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  let s = value;
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(fields: readonly (string | number)[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

/**
 * A share in percent, as a number: two decimals, or two significant digits below 0.01 % (a row of
 * a flat profile's millions has a share of a few thousandths of a percent, not 0).
 */
export function pct(part: number, whole: number): number {
  if (!(whole > 0)) return 0;
  const p = (100 * part) / whole;
  return Number(Math.abs(p) >= 0.01 || p === 0 ? p.toFixed(2) : p.toPrecision(2));
}

/** Rows in each part `functionTableCsvParts` gives: a few milliseconds of work. */
export const CSV_PART_ROWS = 1024;

/**
 * Columns Function, Module, Self (UNIT), Self %, Total (UNIT), Total % (percent of all samples, as
 * numbers; UNIT the weights' as units.ts names it: `samples`, `bytes`, `nanoseconds`…), one row per
 * function with samples, in `order` (frame ids; default: the table's, by self, then total, heaviest first).
 * The text comes in parts (the header, then CSV_PART_ROWS rows each), so a table of millions of
 * rows is written a part at a time between the page's other work, and given to a Blob as parts: as
 * one string it would pass V8's limit on a string's length (~512M characters) at ~5M rows.
 */
export function* functionTableCsvParts(
  a: {
    profile: Pick<FoldedProfile, 'frames' | 'modules' | 'meta'>;
    tree: CallTree;
    functions: FunctionTable;
  },
  order?: ArrayLike<number>,
): Generator<string, void, undefined> {
  const { profile, functions, tree } = a;
  const whole = totalOf(tree, 0);
  const ids = order ?? sortFunctions(a, { key: 'self', desc: true, filter: '' });
  const unit = unitName(weightUnit(profile.meta));
  yield csvRow(['Function', 'Module', `Self (${unit})`, 'Self %', `Total (${unit})`, 'Total %']);
  // A module's column written once per module, not once per row.
  const modules = new Map<number, string>();
  for (let start = 0; start < ids.length; start += CSV_PART_ROWS) {
    const end = Math.min(ids.length, start + CSV_PART_ROWS);
    let out = '';
    for (let i = start; i < end; i++) {
      const f = ids[i];
      const m = profile.frames.module[f];
      let mod = modules.get(m);
      if (mod === undefined) {
        mod = csvField(visibleText(profile.modules[m] ?? ''));
        modules.set(m, mod);
      }
      const self = functions.self[f];
      const total = functions.total[f];
      out += `${csvField(visibleText(frameName(profile.frames, f)))},${mod},${self},${pct(self, whole)},${total},${pct(total, whole)}\r\n`;
    }
    yield out;
  }
}

/** `functionTableCsvParts` as one string. */
export function functionTableCsv(
  a: Parameters<typeof functionTableCsvParts>[0],
  order?: ArrayLike<number>,
): string {
  let out = '';
  for (const part of functionTableCsvParts(a, order)) out += part;
  return out;
}
