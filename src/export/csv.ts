// The function table as CSV (RFC 4180), safe to open in a spreadsheet; names' controls and bidi
// overrides written as escapes (text/escape.ts).

import { type CallTree, type FunctionTable, totalOf } from '../core/model/calltree';
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

const pct = (part: number, whole: number): number =>
  whole > 0 ? Number(((100 * part) / whole).toFixed(2)) : 0;

/**
 * Columns Function, Module, Self (UNIT), Self %, Total (UNIT), Total % (percent of all samples, as
 * numbers; UNIT the weights' as units.ts names it: `samples`, `bytes`, `nanoseconds`…), one row per
 * function with samples, in `order` (frame ids; default: by self time).
 */
export function functionTableCsv(
  a: {
    profile: Pick<FoldedProfile, 'frames' | 'modules' | 'meta'>;
    tree: CallTree;
    functions: FunctionTable;
  },
  order?: ArrayLike<number>,
): string {
  const { profile, functions, tree } = a;
  const whole = totalOf(tree, 0);
  let ids: ArrayLike<number>;
  if (order) ids = order;
  else {
    const all: number[] = [];
    for (let f = 0; f < functions.count; f++) if (functions.total[f] > 0) all.push(f);
    all.sort((x, y) => functions.self[y] - functions.self[x] || functions.total[y] - functions.total[x]);
    ids = all;
  }
  const unit = unitName(weightUnit(profile.meta));
  let out = csvRow(['Function', 'Module', `Self (${unit})`, 'Self %', `Total (${unit})`, 'Total %']);
  for (let i = 0; i < ids.length; i++) {
    const f = ids[i];
    const mod = profile.modules[profile.frames.module[f]] ?? '';
    const self = functions.self[f];
    const total = functions.total[f];
    out += csvRow([
      visibleText(frameName(profile.frames, f)),
      visibleText(mod),
      self,
      pct(self, whole),
      total,
      pct(total, whole),
    ]);
  }
  return out;
}
