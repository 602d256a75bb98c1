// Search: which frames match a pattern, and how many samples pass through a match (each sample
// counted once even when its stack matches several times). Pure, tested without a DOM.

import { type CallTree, firstChildOf, nextSiblingOf, totalOf } from '../core/model/calltree';

export interface SearchQuery {
  text: string;
  /** A regular expression (default) or plain text. Both are case-insensitive. */
  regex: boolean;
}

export type Matcher = { ok: true; test: (name: string) => boolean } | { ok: false; error: string };

export function compileQuery(q: SearchQuery): Matcher | null {
  if (!q.text) return null;
  if (!q.regex) {
    const needle = q.text.toLowerCase();
    return { ok: true, test: (s) => s.toLowerCase().includes(needle) };
  }
  try {
    const re = new RegExp(q.text, 'i');
    return { ok: true, test: (s) => re.test(s) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

/** 1 for each frame id whose name matches. */
export function matchFrames(names: readonly string[], test: (name: string) => boolean): Uint8Array {
  const out = new Uint8Array(names.length);
  for (let i = 0; i < names.length; i++) if (test(names[i])) out[i] = 1;
  return out;
}

export interface SearchResult {
  /** Samples whose stack has at least one matching frame. */
  samples: number;
  /** Matching nodes with no matching ancestor, heaviest first (the places Enter moves between). */
  tops: number[];
}

/**
 * Walks the tree once, iteratively: a matching node contributes its total and its subtree is not
 * entered again, so every sample counts once.
 */
export function searchTree(tree: CallTree, match: Uint8Array, maxTops = 10_000): SearchResult {
  let samples = 0;
  const tops: number[] = [];
  const stack: number[] = [0];
  while (stack.length > 0) {
    const v = stack.pop()!;
    const f = tree.frame[v];
    if (f >= 0 && match[f]) {
      samples += totalOf(tree, v);
      if (tops.length < maxTops) tops.push(v);
      continue;
    }
    for (let c = firstChildOf(tree, v); c !== -1; c = nextSiblingOf(tree, c)) stack.push(c);
  }
  tops.sort((a, b) => totalOf(tree, b) - totalOf(tree, a) || a - b);
  return { samples, tops };
}
