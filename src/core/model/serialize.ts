// FoldedProfile → folded text (`root;…;leaf COUNT`, one line per unique stack, sorted), and the
// differential form of two profiles (`root;…;leaf BASE NEW`, as difffolded.pl writes it).
// The one serializer: used by the CLI and by export.

import type { FoldedProfile } from '../types.ts';

/** Lines of `stack c1 c2 …` for weight columns over the same stacks, sorted; equal texts summed. */
function foldedLines(p: FoldedProfile, columns: readonly Float64Array[]): string {
  const { start, frames } = p.stacks;
  const names = p.frames.name;
  const sums = new Map<string, number[]>();
  for (let s = 0; s < p.stacks.count; s++) {
    const parts: string[] = [];
    for (let k = start[s]; k < start[s + 1]; k++) parts.push(names[frames[k]]);
    const line = parts.join(';');
    let sum = sums.get(line);
    if (!sum) sums.set(line, (sum = columns.map(() => 0)));
    for (let c = 0; c < columns.length; c++) sum[c] += columns[c][s];
  }
  const lines = [...sums.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let out = '';
  for (const line of lines) out += `${line} ${sums.get(line)!.join(' ')}\n`;
  return out;
}

/** Folded-stack lines, sorted, each ending in a newline. Stacks whose text is equal are summed. */
export function toFoldedText(p: FoldedProfile): string {
  return foldedLines(p, [p.stacks.weight]);
}

/**
 * The differential folded text of two sides merged over the same stacks (model/diff.ts
 * mergeSides): `stack BASE NEW` per line. `normalize` scales the baseline's counts to the
 * comparison's total (difffolded.pl -n), rounded to whole samples.
 */
export function toDiffFoldedText(
  merged: { profile: FoldedProfile; base: Float64Array; comp: Float64Array },
  normalize = false,
): string {
  let base = merged.base;
  if (normalize) {
    let b = 0;
    let c = 0;
    for (let s = 0; s < base.length; s++) {
      b += base[s];
      c += merged.comp[s];
    }
    const k = b > 0 ? c / b : 1;
    base = base.map((v) => Math.round(v * k));
  }
  return foldedLines(merged.profile, [base, merged.comp]);
}
