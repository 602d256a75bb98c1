// Search, done once in the worker over the shown profile's stacks: which frames match a pattern,
// the samples whose stack passes through a match (each once, however many frames match), and the
// matched places Enter moves between — the outermost matching node of each stack, as a path of
// frame ids from the root, heaviest first. The page only highlights and follows a path on Enter.

import { frameName } from '../text/frame-text';
import { compilePattern } from '../text/pattern.ts';
import type { FoldedProfile } from '../types';

/** A search of frame names (the view's `search`). */
export interface SearchQuery {
  text: string;
  /** An RE2 regular expression (default) or plain text. Both are case-insensitive. */
  regex: boolean;
}

export type Matcher = { ok: true; test: (name: string) => boolean } | { ok: false; error: string };

export function compileQuery(q: SearchQuery): Matcher | null {
  if (!q.text) return null;
  if (!q.regex) {
    const needle = q.text.toLowerCase();
    return { ok: true, test: (s) => s.toLowerCase().includes(needle) };
  }
  // RE2 (linear time): the text may come from a link someone sent.
  const c = compilePattern(q.text, { ignoreCase: true });
  return c.ok ? { ok: true, test: c.pattern.test } : { ok: false, error: c.error };
}

/** 1 for each frame id whose name matches. */
export function matchFrames(names: readonly string[], test: (name: string) => boolean): Uint8Array {
  const out = new Uint8Array(names.length);
  for (let i = 0; i < names.length; i++) if (test(names[i])) out[i] = 1;
  return out;
}

export interface SearchResult {
  /** A bad regular expression's message; then nothing matches. */
  error?: string;
  /** 1 per frame id whose name matches. */
  match: Uint8Array;
  /** Samples whose stack has at least one matching frame. */
  samples: number;
  /** Matching nodes with no matching ancestor, as frame-id paths from the root, heaviest first. */
  tops: Uint32Array[];
}

/** One pass over the stacks: O(frames of the stacks), no tree needed. */
export function searchProfile(p: FoldedProfile, query: SearchQuery, maxTops = 10_000): SearchResult {
  const m = compileQuery(query);
  if (!m?.ok) return { error: m?.error, match: new Uint8Array(p.frames.count), samples: 0, tops: [] };
  const match = new Uint8Array(p.frames.count);
  for (let f = 0; f < p.frames.count; f++) if (m.test(frameName(p.frames, f))) match[f] = 1;
  const { start, frames, weight } = p.stacks;
  let samples = 0;
  // Outermost match per stack → its path (a prefix of the stack), merged by content.
  const byHash = new Map<number, number[]>();
  const topStack: number[] = [];
  const topLen: number[] = [];
  const topWeight: number[] = [];
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    const e = start[s + 1];
    let h = 0x811c9dc5;
    let i = b;
    for (; i < e; i++) {
      const f = frames[i];
      h = Math.imul(h ^ f, 0x01000193);
      if (match[f] === 1) break;
    }
    if (i === e) continue;
    const w = weight[s];
    samples += w;
    const len = i + 1 - b;
    const same = byHash.get(h);
    let found = -1;
    for (const t of same ?? []) {
      if (topLen[t] !== len) continue;
      const o = start[topStack[t]];
      let k = 0;
      while (k < len && frames[o + k] === frames[b + k]) k++;
      if (k === len) {
        found = t;
        break;
      }
    }
    if (found >= 0) {
      topWeight[found] += w;
      continue;
    }
    const t = topStack.length;
    topStack.push(s);
    topLen.push(len);
    topWeight.push(w);
    if (same) same.push(t);
    else byHash.set(h, [t]);
  }
  const order = topStack.map((_, t) => t).sort((x, y) => topWeight[y] - topWeight[x] || x - y);
  const tops = order.slice(0, maxTops).map((t) => {
    const o = start[topStack[t]];
    return frames.slice(o, o + topLen[t]);
  });
  return { match, samples, tops };
}
