// A frame's label cut to fit its bar, keeping the function's own name: a full C++ name (Full names)
// loses its parameter lists first (`(…)`), then its template arguments (`<…>`), then its leading
// return type and qualifiers (`…::name`), before the name itself is cut at its end. A line frame's
// `file:line` stays whole while the name keeps a few characters. Pure: no DOM.

import { closing, operatorAt } from './names';

const ELLIPSIS = '…';
/** A line frame's label ends in ` file:line` (frameLabel). */
const AT_LINE = / [^ ]+:\d+$/;
/** Fewest characters of the name kept beside a line frame's `file:line`. */
const MIN_NAME = 4;

/** `s` with every group opened by `open` (outside others of its kind) emptied to `…`; null if unbalanced. */
function emptyGroups(s: string, open: '(' | '<'): string | null {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === 'o' && operatorAt(s, i)) {
      // `operator()`, `operator<<`…: copied whole, never a group.
      const m = /^operator\s*(?:\(\)|<=>|<<=|<<|<=|<|>>=|>>|>=|>|->\*|->)?/.exec(s.slice(i))!;
      out += m[0];
      i += m[0].length;
      continue;
    }
    if (c === '(' && s.startsWith('(anonymous namespace)', i)) {
      out += '(anonymous namespace)';
      i += '(anonymous namespace)'.length;
      continue;
    }
    if (c === '(' || c === '<') {
      const j = closing(s, i);
      if (j < 0) return null;
      if (c === open) out += j > i + 1 ? `${c}${ELLIPSIS}${s[j]}` : `${c}${s[j]}`;
      else {
        const inner = emptyGroups(s.slice(i + 1, j), open);
        if (inner === null) return null;
        out += `${c}${inner}${s[j]}`;
      }
      i = j + 1;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** Where each qualifier of `s` ends (after its `::`) and a leading return type (its space), outside brackets. */
function cuts(s: string): number[] {
  const out: number[] = [];
  let depth = 0;
  let named = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === 'o' && depth === 0 && operatorAt(s, i)) break; // what follows is the operator's name
    if (depth === 0 && c === '(' && i > 0) named = true;
    if (c === '(' || c === '<' || c === '{') depth++;
    else if (c === ')' || c === '>' || c === '}') depth--;
    else if (depth === 0 && c === ':' && s[i + 1] === ':') {
      out.push(i + 2);
      i++;
    } else if (depth === 0 && c === ' ' && !named) out.push(i + 1);
  }
  return out;
}

/**
 * The shorter forms of `fn`, longest first: parameter lists emptied, template arguments emptied,
 * then each qualifier (and a leading return type) dropped; the last is the bare name.
 */
function formsOf(fn: string): string[] {
  const forms = [fn];
  let s = fn;
  for (const open of ['(', '<'] as const) {
    const t = emptyGroups(s, open);
    if (t === null) break;
    if (t !== s) forms.push(t);
    s = t;
  }
  for (const at of cuts(s)) forms.push(`${ELLIPSIS}${s.slice(at)}`);
  return forms;
}

/** Forms of the names painted lately (a repaint asks for the same names again). */
const FORMS = new Map<string, string[]>();
const FORMS_KEPT = 4096;

/** The name `fn` in at most `max` characters (see the file comment). */
function fitFunction(fn: string, max: number): string {
  if (fn.length <= max) return fn;
  if (max <= 1) return '';
  let forms = FORMS.get(fn);
  if (forms === undefined) {
    if (FORMS.size >= FORMS_KEPT) FORMS.clear();
    forms = formsOf(fn);
    FORMS.set(fn, forms);
  }
  for (const f of forms) if (f.length <= max) return f;
  // The name itself, cut at its end.
  const bare = forms[forms.length - 1].replace(/^…/, '');
  return `${bare.slice(0, max - 1)}${ELLIPSIS}`;
}

/** A comparison's mark of a path only in one side (`+ `, `− `), kept before the name. */
const SIDE_MARK = /^[+\u2212] /;

/**
 * A bar's label in at most `maxChars` characters: whole when it fits; else the function's own
 * name kept (see the file comment), a line frame's ` file:line` after it and a comparison's
 * `+ `/`− ` before it; '' when not even two characters fit.
 */
export function fitName(label: string, maxChars: number): string {
  if (label.length <= maxChars) return label;
  if (maxChars < 2) return '';
  const mark = SIDE_MARK.exec(label)?.[0] ?? '';
  const room = maxChars - mark.length;
  const name = label.slice(mark.length);
  const at = AT_LINE.exec(name);
  if (at && room - at[0].length >= MIN_NAME) {
    return mark + fitFunction(name.slice(0, at.index), room - at[0].length) + at[0];
  }
  if (room < MIN_NAME) return fitFunction(name, maxChars);
  return mark + fitFunction(at ? name.slice(0, at.index) : name, room);
}
