// Text that cannot lie: names come from files anyone can write, and a name is shown or written
// where a control character would do something else than be read. C0 and C1 controls and DEL
// (an ESC retitles or clears a terminal; a newline forges a line of folded text or of a message)
// and the bidirectional controls (a right-to-left override makes one name read as another) are
// written as escapes: `\u001b`, `\u202e` (`\x1b` in folded text). Three uses:
//   - folded text (escapeFoldedName / unescapeFoldedName): also `;`, what the reader trims or
//     takes for a count, a comment or google-pprof's address tag, and the empty name (`\e`); the
//     reader undoes it, so what we write reads back to the same names;
//   - a line of a message (oneLine): every control, newlines too;
//   - text shown to a person (visibleText: names in the views and exports; terminalText: what the
//     CLI writes, its own newlines and tabs kept).

/** Bidirectional formatting characters: ALM, LRM, RLM, LRE…RLO, LRI…PDI. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';
const CONTROLS = '\\u0000-\\u001f\\u007f-\\u009f';

const UNSAFE = new RegExp(`[${CONTROLS}${BIDI}]`);
const UNSAFE_ALL = new RegExp(`[${CONTROLS}${BIDI}]`, 'g');
/** In terminal text, newline and tab are the writer's own. */
const UNSAFE_TERMINAL = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI}]`, 'g');

/** `\xHH` below U+0100, else `\uHHHH` (folded text). */
function escapeChar(c: string): string {
  const n = c.charCodeAt(0);
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : uEscape(c);
}

/** `\uHHHH`: what JSON and JavaScript read as the character itself (the CLI's JSON stays JSON). */
function uEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Whether the text has a control or bidirectional character (what the functions here escape). */
export function hasUnsafeChars(text: string): boolean {
  return UNSAFE.test(text);
}

/** The text with its control and bidirectional characters shown as escapes (`\u001b`, `\u202e`). */
export function visibleText(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, uEscape) : text;
}

/** A message part (a name, a path, a warning) on one line: every control escaped, newlines too. */
export const oneLine = visibleText;

/** What a terminal is given: the writer's newlines and tabs, every other control escaped. */
export function terminalText(text: string): string {
  UNSAFE_TERMINAL.lastIndex = 0;
  return UNSAFE_TERMINAL.test(text) ? text.replace(UNSAFE_TERMINAL, uEscape) : text;
}

// ─── folded text ────────────────────────────────────────────────────────────────────────────

/**
 * What the folded reader would not read back as written: controls, bidi characters and `;`
 * anywhere; a `\` that begins an escape; whitespace at either end (trimmed); `#` first (a
 * comment); whitespace before a trailing number (a count); `<` of a trailing `<HEX8>`/`<HEX16>`
 * (google-pprof's address tag, dropped).
 */
const FOLDED_SPECIAL = new RegExp(
  `[${CONTROLS}${BIDI};]|\\\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})|^\\s|\\s$|^#|\\s(?=\\d+(?:\\.\\d+)?$)|<(?=[0-9a-f]{8}(?:[0-9a-f]{8})?>$)`,
);
const FOLDED_SPECIAL_ALL = new RegExp(FOLDED_SPECIAL.source, 'g');

/** An empty name: `;;` is read as no frame at all, so it has a token of its own. */
const EMPTY_NAME = '\\e';

/** A frame name as folded text writes it: read back by unescapeFoldedName to the same name. */
export function escapeFoldedName(name: string): string {
  if (name === '') return EMPTY_NAME;
  if (name === EMPTY_NAME) return '\\x5ce';
  if (!FOLDED_SPECIAL.test(name)) return name;
  return name.replace(FOLDED_SPECIAL_ALL, (m) => (m.length === 1 ? escapeChar(m) : `\\x5c${m.slice(1)}`));
}

const FOLDED_ESCAPE = /\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4}))/g;

/** A frame name as read from folded text: `\xHH` and `\uHHHH` are the characters they name. */
export function unescapeFoldedName(text: string): string {
  if (!text.includes('\\')) return text;
  if (text === EMPTY_NAME) return '';
  return text.replace(FOLDED_ESCAPE, (_m, x: string | undefined, u: string | undefined) =>
    String.fromCharCode(Number.parseInt(x ?? u ?? '0', 16)),
  );
}
