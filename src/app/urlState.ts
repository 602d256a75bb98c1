// The view lives in the URL hash, so a copied link reproduces what the sender saw. Pure encoding
// and decoding here (tested in node); the sync with the store is in useUrlState.
//
//   #profileURL=…&view=icicle&inverted=1&zoom=main;parse&q=re&regex=0&fn=parse&t=[…]&theme=dark
//
// The zoomed frame is a path of function names from the root, so it survives re-parsing and
// re-symbolization; transforms name functions, not ids, for the same reason.

import { type CallTree, firstChildOf, nextSiblingOf } from '../core/model/calltree';
import type { Transform } from '../core/model/transforms';

export interface UrlState {
  profileURL?: string;
  orientation?: 'flame' | 'icicle';
  inverted?: boolean;
  sandwich?: string;
  /** Function names from the root to the zoomed frame. */
  zoom?: string[];
  search?: string;
  regex?: boolean;
  /** The function selected in the table. */
  fn?: string;
  transforms?: Transform[];
  theme?: 'light' | 'dark';
}

const KINDS = new Set([
  'focus-function',
  'focus-subtree',
  'hide-function',
  'merge-module',
  'collapse-recursion',
  'collapse-direct-recursion',
]);

function isTransform(x: unknown): x is Transform {
  if (typeof x !== 'object' || x === null) return false;
  const t = x as Record<string, unknown>;
  if (typeof t.kind !== 'string' || !KINDS.has(t.kind)) return false;
  if (t.kind === 'focus-subtree') return Array.isArray(t.path) && t.path.every((p) => typeof p === 'string');
  if (t.kind === 'merge-module') return typeof t.module === 'string';
  return typeof t.name === 'string';
}

/** Zoom paths are joined with a separator that function names do not contain. */
const SEP = '\u001f';

export function encodeUrlState(s: UrlState): string {
  const p = new URLSearchParams();
  if (s.profileURL) p.set('profileURL', s.profileURL);
  if (s.sandwich) p.set('sandwich', s.sandwich);
  if (s.orientation === 'icicle') p.set('view', 'icicle');
  if (s.inverted) p.set('inverted', '1');
  if (s.zoom && s.zoom.length > 0) p.set('zoom', s.zoom.join(SEP));
  if (s.search) p.set('q', s.search);
  if (s.search && s.regex === false) p.set('regex', '0');
  if (s.fn) p.set('fn', s.fn);
  if (s.transforms && s.transforms.length > 0) p.set('t', JSON.stringify(s.transforms));
  if (s.theme) p.set('theme', s.theme);
  const text = p.toString();
  return text ? `#${text}` : '';
}

/** Reads what it can; anything malformed is left out, never thrown. */
export function decodeUrlState(hash: string): UrlState {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const s: UrlState = {};
  const url = p.get('profileURL');
  if (url) s.profileURL = url;
  const view = p.get('view');
  if (view === 'icicle' || view === 'flame') s.orientation = view;
  if (p.get('inverted') === '1') s.inverted = true;
  const sandwich = p.get('sandwich');
  if (sandwich) s.sandwich = sandwich;
  const zoom = p.get('zoom');
  if (zoom) s.zoom = zoom.split(SEP);
  const q = p.get('q');
  if (q) {
    s.search = q;
    s.regex = p.get('regex') !== '0';
  }
  const fn = p.get('fn');
  if (fn) s.fn = fn;
  const t = p.get('t');
  if (t) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (Array.isArray(parsed)) s.transforms = parsed.filter(isTransform);
    } catch {
      // A damaged link still opens the profile.
    }
  }
  const theme = p.get('theme');
  if (theme === 'light' || theme === 'dark') s.theme = theme;
  return s;
}

/** The node reached by following function names from the root, or the deepest one found. */
export function nodeForPath(
  tree: CallTree,
  names: readonly string[],
  nameOfFrame: (frame: number) => string,
): number {
  let v = 0;
  for (const name of names) {
    let c = firstChildOf(tree, v);
    while (c !== -1 && nameOfFrame(tree.frame[c]) !== name) c = nextSiblingOf(tree, c);
    if (c === -1) break;
    v = c;
  }
  return v;
}
