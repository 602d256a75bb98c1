// Path and name helpers shared by the core, the CLI and the views: one basename, one shortener.

/** The last component of a path (`/lib/x86_64-linux-gnu/libc.so.6` → `libc.so.6`; `\` too). */
export function basename(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i >= 0 && i < path.length - 1 ? path.slice(i + 1) : path;
}

/** `name` cut to at most `max` characters, ending in `…` when cut. */
export function shortName(name: string, max: number): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

const ANONYMOUS_NAMESPACE = '(anonymous namespace)';
/** Operator names that begin with a bracket, longest first: copied whole after `operator`. */
const BRACKET_OPERATORS = ['()', '<=>', '<<=', '<<', '<=', '<', '>>=', '>>', '>=', '>', '->*', '->'];
/** Qualifiers that follow a parameter list (`f() const &&`), dropped with it. */
const AFTER_PARAMS = /^\s*(?:const|volatile|&&|&|noexcept|throw\(\))(?![\w])/;

function isIdent(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
}

/**
 * The index of the bracket that closes the one at `i` (`(`/`<`; the other kind nests inside), or
 * -1 when unbalanced. `operator<`/`operator()`… inside do not count as brackets.
 */
export function closing(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 111 /* o */ && operatorAt(s, j)) {
      j += 'operator'.length - 1;
      const op = BRACKET_OPERATORS.find((o) => s.startsWith(o, j + 1));
      if (op !== undefined) j += op.length;
      continue;
    }
    if (c === 40 || c === 60) depth++;
    else if (c === 41 || c === 62) {
      // `->` inside a group (a trailing return type) is not a closing bracket.
      if (c === 62 && s.charCodeAt(j - 1) === 45) continue;
      depth--;
      if (depth === 0) return j;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** True when `operator` starts at i as a whole word (`A::operator<`, not `my_operator`). */
export function operatorAt(s: string, i: number): boolean {
  return (
    s.startsWith('operator', i) &&
    (i === 0 || !isIdent(s.charCodeAt(i - 1))) &&
    !isIdent(s.charCodeAt(i + 8) || 32)
  );
}

/** The index of the `}` closing the `{` at i (nested braces allowed), or -1. */
function closingBrace(s: string, i: number): number {
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 123) depth++;
    else if (c === 125 && --depth === 0) return j;
  }
  return -1;
}

/** Characters shortenCxx looks at: ( { o < space (any other is copied as it is). */
const SPECIAL = new Uint8Array(128);
for (const c of '({o< ') SPECIAL[c.charCodeAt(0)] = 1;

/**
 * shortFunctionName's scan of a C++/Rust name; null when its brackets do not balance. `inPath`: the
 * inside of a qualified path `<T as Trait>`, whose spaces are not return types.
 */
function shortenCxx(s: string, inPath = false): string | null {
  let out = '';
  /** Where the name starts in `out`: after the last top-level space before any `operator`. */
  let nameStart = 0;
  let afterOperator = false;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 40 /* ( */ && s.startsWith(ANONYMOUS_NAMESPACE, i)) {
      out += ANONYMOUS_NAMESPACE;
      i += ANONYMOUS_NAMESPACE.length;
    } else if (c === 123 /* { */) {
      // `{lambda(int)#1}`, `{unnamed type#1}`, Rust's `{{closure}}`: kept whole, as pprof does.
      const j = closingBrace(s, i);
      if (j < 0) return null;
      out += s.slice(i, j + 1);
      i = j + 1;
    } else if (c === 111 /* o */ && operatorAt(s, i)) {
      out += 'operator';
      i += 8;
      afterOperator = true;
      const op = BRACKET_OPERATORS.find((o) => s.startsWith(o, i));
      if (op !== undefined) {
        out += op;
        i += op.length;
      }
    } else if (c === 60 /* < */) {
      const j = closing(s, i);
      if (j < 0) return null;
      if (out === '' || out.endsWith('::')) {
        // A qualified path (Rust `<T as Trait>::f`), not template arguments: kept, shortened.
        // Anything else that begins with `<` (`<module>`, markup) is not a C++ name.
        if (!s.startsWith('::', j + 1)) return null;
        const inner = shortenCxx(s.slice(i + 1, j), true);
        if (inner === null) return null;
        out += `<${inner}>`;
      }
      i = j + 1;
    } else if (c === 40 /* ( */) {
      // Parameters (and the qualifiers after them), or a cast/decltype in a return type.
      const j = closing(s, i);
      if (j < 0) return null;
      i = j + 1;
      for (let m = AFTER_PARAMS.exec(s.slice(i)); m !== null; m = AFTER_PARAMS.exec(s.slice(i)))
        i += m[0].length;
      // Parameters end the name, or a local name goes on (`f(int)::x`); else this is no C++ name.
      if (i < s.length && !s.startsWith('::', i) && !s.startsWith(' [clone ', i) && !inPath) return null;
    } else if (c === 32 && s.startsWith(' [clone ', i)) {
      // GCC's clone suffix (`f(int) [clone .cold]`): separate code, kept.
      const j = s.indexOf(']', i);
      if (j < 0) return null;
      out += s.slice(i, j + 1);
      i = j + 1;
    } else if (c === 32 && !afterOperator && !inPath) {
      // A space outside brackets ends a return type (`void f<int>(int)`).
      out += ' ';
      nameStart = out.length;
      i++;
    } else {
      // A run of ordinary characters, copied at once (a character at a time was most of the cost).
      let j = i + 1;
      while (j < s.length && !SPECIAL[s.charCodeAt(j)]) j++;
      out += s.slice(i, j);
      i = j;
    }
  }
  const name = out.slice(nameStart).trim();
  return name === '' ? null : name;
}

/** The demangler's (and c++filt's) prefix of a thunk's name. */
const THUNK = /^(?:non-virtual thunk to |virtual thunk to |covariant return thunk to )/;

/** Go (`pkg.(*T).M`) and Java (`a.B.<init>`) names, which have brackets but are not C++. */
const NOT_CXX = /\.[(<]/;
/**
 * Names worth shortening: they begin as C++ names do (an identifier, `~`, `(anonymous namespace)`,
 * `{lambda…}`, Rust's `<T as Trait>`), hold no quote, and are qualified (`::`) or have a parameter
 * or template list right after a name.
 */
const CXX_LIKE = /^[A-Za-z_~(<{][^"']*(?:::|[\w>\]]\(|[\w]<)/;

/**
 * A demangled C++ or Rust function name as pprof and the Firefox Profiler show it: template
 * arguments, parameter lists (with the `const`/`&&` after them) and a leading return type dropped;
 * `operator()`, `operator<`, `operator<<`, `operator->`…, `(anonymous namespace)` and lambdas
 * (`{lambda(int)#1}`) kept whole; ABI tags (`[abi:cxx11]`) and a Rust hash (`::h0123…`, 16 hex
 * digits) removed; `[clone .cold]` and a thunk's `non-virtual thunk to ` kept (separate code).
 * `std::__detail::_Executor<…, false>::_M_dfs(std::__detail::_Executor<…>::_Match_mode, long)`
 * → `std::__detail::_Executor::_M_dfs`.
 * Names that are not C++-like (C, Go, Java, `[module]`, `0x…`) and names whose brackets do not
 * balance are returned as they are.
 */
export function shortFunctionName(demangled: string): string {
  // A thunk is code of its own: its kind stays in front of the method's short name, as Go pprof
  // keeps it (`non-virtual thunk to Derived::~Derived()`), rather than merging with the method.
  const thunk = THUNK.exec(demangled);
  if (thunk !== null) return thunk[0] + shortFunctionName(demangled.slice(thunk[0].length));
  let s = demangled;
  if (s.includes('[abi:')) s = s.replace(/\[abi:[\w.]+\]/g, '');
  if (s.includes('::h')) s = s.replace(/::h[0-9a-f]{16}$/, '');
  if (NOT_CXX.test(s) || !CXX_LIKE.test(s)) return s;
  return shortenCxx(s) ?? s;
}
