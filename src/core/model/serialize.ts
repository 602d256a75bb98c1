// FoldedProfile → folded text (`root;…;leaf COUNT`, one line per unique stack, sorted).
// The one serializer: used by the CLI and by export.

import type { FoldedProfile } from '../types.ts';

/** Folded-stack lines, sorted, each ending in a newline. Stacks whose text is equal are summed. */
export function toFoldedText(p: FoldedProfile): string {
  const { start, frames, weight } = p.stacks;
  const names = p.frames.name;
  const sums = new Map<string, number>();
  for (let s = 0; s < p.stacks.count; s++) {
    const parts: string[] = [];
    for (let k = start[s]; k < start[s + 1]; k++) parts.push(names[frames[k]]);
    const line = parts.join(';');
    sums.set(line, (sums.get(line) ?? 0) + weight[s]);
  }
  const lines = [...sums.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let out = '';
  for (const line of lines) out += `${line} ${sums.get(line)}\n`;
  return out;
}
