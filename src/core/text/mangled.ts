// The short name of an Itanium-mangled C++ function, read from the mangled name itself: what
// shortFunctionName(demangle(name)) gives (pprof's short name: the qualified name without template
// arguments, parameters or return type), for the common shapes, without the demangler. A large
// -g binary names ~50k distinct inlined functions; the wasm demangler takes ~13 µs a name, this
// ~1 µs, and the full name is then demangled once per frame shown, not once per function met.
//
// Only the name is read (`_Z` N…E, `St…`, a source name, with template arguments skipped by a
// parse of their grammar); whatever the parse does not know — local names, lambdas, unnamed types,
// substitutions in the name itself, conversion operators, expressions, clone suffixes — gives
// null, and the caller demangles as before. test/mangled.test.ts holds it equal to the demangler
// on every function symbol of the fixture binaries and libraries.

/** Two-letter operator codes and their names as the demangler prints them after `operator`. */
const OPERATORS: Record<string, string> = {
  nw: ' new',
  na: ' new[]',
  dl: ' delete',
  da: ' delete[]',
  ps: '+',
  ng: '-',
  ad: '&',
  de: '*',
  co: '~',
  pl: '+',
  mi: '-',
  ml: '*',
  dv: '/',
  rm: '%',
  an: '&',
  or: '|',
  eo: '^',
  aS: '=',
  pL: '+=',
  mI: '-=',
  mL: '*=',
  dV: '/=',
  rM: '%=',
  aN: '&=',
  oR: '|=',
  eO: '^=',
  ls: '<<',
  rs: '>>',
  lS: '<<=',
  rS: '>>=',
  eq: '==',
  ne: '!=',
  lt: '<',
  gt: '>',
  le: '<=',
  ge: '>=',
  ss: '<=>',
  nt: '!',
  aa: '&&',
  oo: '||',
  pp: '++',
  mm: '--',
  cm: ',',
  pm: '->*',
  pt: '->',
  cl: '()',
  ix: '[]',
};

/** Builtin type codes (one letter). */
const BUILTIN = new Set('vwbcahstijlmxynofdegz');
/** `D` + letter builtin types. */
const D_BUILTIN = new Set('dfehiscunaF');

class Unknown extends Error {}
const unknown = (): never => {
  throw new Unknown();
};

/** A cursor over the mangled name. */
class Cursor {
  i: number;
  constructor(
    readonly s: string,
    i: number,
  ) {
    this.i = i;
  }
  peek(k = 0): string {
    return this.s[this.i + k] ?? '';
  }
  eat(c: string): boolean {
    if (this.s.startsWith(c, this.i)) {
      this.i += c.length;
      return true;
    }
    return false;
  }
  expect(c: string): void {
    if (!this.eat(c)) unknown();
  }
  /** A decimal number (the length of a source name). */
  number(): number {
    const start = this.i;
    while (this.i < this.s.length && this.s.charCodeAt(this.i) >= 48 && this.s.charCodeAt(this.i) <= 57)
      this.i++;
    if (this.i === start) unknown();
    return Number(this.s.slice(start, this.i));
  }
  /** <source-name>: a length and that many characters. */
  sourceName(): string {
    const n = this.number();
    if (n === 0 || this.i + n > this.s.length) unknown();
    const id = this.s.slice(this.i, this.i + n);
    this.i += n;
    return id.startsWith('_GLOBAL__N') ? '(anonymous namespace)' : id;
  }
  /** `_` or a base-36 number then `_` (substitutions, template parameters). */
  seqId(): void {
    while (/[0-9A-Z]/.test(this.peek())) this.i++;
    this.expect('_');
  }
  /** Skips any of these one-letter codes (CV-qualifiers, ref-qualifiers). */
  skipAny(codes: string): void {
    while (this.i < this.s.length && codes.includes(this.s[this.i])) this.i++;
  }
  /**
   * An unqualified name: [`L`] <source-name>, its ABI tags (`B5cxx11`, which shortFunctionName
   * drops) skipped.
   */
  unqualifiedName(): string {
    this.eat('L');
    const name = this.sourceName();
    while (this.eat('B')) this.sourceName();
    return name;
  }
  /** Skips a substitution: `St`, `Sa`, `Sb`, `Ss`, `Si`, `So`, `Sd`, or `S` [<seq-id>] `_`. */
  substitution(): void {
    this.expect('S');
    if ('tabsiod'.includes(this.peek()) && this.peek() !== '') this.i++;
    else this.seqId();
  }
}

/** Skips <template-args>: `I` <arg>+ `E`. */
function skipTemplateArgs(c: Cursor): void {
  c.expect('I');
  while (!c.eat('E')) skipTemplateArg(c);
}

function skipTemplateArg(c: Cursor): void {
  const ch = c.peek();
  if (ch === 'L') skipLiteral(c);
  else if (ch === 'J') {
    c.i++;
    while (!c.eat('E')) skipTemplateArg(c);
  } else skipType(c);
}

/** `L` <builtin type> [n] <digits> `E` (other literals: unknown). */
function skipLiteral(c: Cursor): void {
  c.expect('L');
  if (!BUILTIN.has(c.peek())) unknown();
  c.i++;
  c.eat('n');
  const start = c.i;
  while (/[0-9a-f]/.test(c.peek())) c.i++;
  if (c.i === start) unknown();
  c.expect('E');
}

/** Skips one <type>. */
function skipType(c: Cursor): void {
  const ch = c.peek();
  if (ch === '') unknown();
  if (BUILTIN.has(ch)) {
    c.i++;
    return;
  }
  switch (ch) {
    case 'r':
    case 'V':
    case 'K':
    case 'P':
    case 'R':
    case 'O':
    case 'C':
    case 'G':
      c.i++;
      skipType(c);
      return;
    case 'U':
      c.i++;
      c.sourceName();
      if (c.peek() === 'I') skipTemplateArgs(c);
      skipType(c);
      return;
    case 'u':
      c.i++;
      c.sourceName();
      return;
    case 'D': {
      const d = c.peek(1);
      if (D_BUILTIN.has(d)) {
        c.i += 2;
        if (d === 'F') {
          // DF<N>_: _FloatN
          c.number();
          c.expect('_');
        }
        return;
      }
      if (d === 'p') {
        c.i += 2;
        skipType(c);
        return;
      }
      if (d === 'v') {
        c.i += 2;
        c.number();
        c.expect('_');
        skipType(c);
        return;
      }
      unknown();
      return;
    }
    case 'F':
      c.i++;
      c.eat('Y');
      while (!c.eat('E')) {
        if (c.peek() === 'R' && c.peek(1) === 'E') c.i++;
        else if (c.peek() === 'O' && c.peek(1) === 'E') c.i++;
        else skipType(c);
      }
      return;
    case 'A':
      c.i++;
      if (c.peek() !== '_') c.number();
      c.expect('_');
      skipType(c);
      return;
    case 'M':
      c.i++;
      skipType(c);
      skipType(c);
      return;
    case 'T':
      c.i++;
      c.seqId();
      if (c.peek() === 'I') skipTemplateArgs(c);
      return;
    case 'S': {
      // std::name, or a substitution (itself a type, or a template name before its arguments).
      const std = c.peek(1) === 't';
      c.substitution();
      if (std) c.unqualifiedName();
      if (c.peek() === 'I') skipTemplateArgs(c);
      return;
    }
    case 'N':
      nestedName(c, true);
      if (c.peek() === 'I') skipTemplateArgs(c);
      return;
    default:
      if (ch >= '1' && ch <= '9') {
        c.unqualifiedName();
        if (c.peek() === 'I') skipTemplateArgs(c);
        return;
      }
      unknown();
  }
}

/**
 * <nested-name>: `N` [qualifiers] components `E`, as the components of the short name (template
 * arguments skipped; constructors and destructors named after their class). `inType`: the name of
 * a type being skipped, whose prefix may be a substitution or a template parameter (components
 * then meaningless); a function's own name with those is left to the demangler.
 */
function nestedName(c: Cursor, inType: boolean): string[] {
  c.expect('N');
  c.skipAny('rVKRO');
  const parts: string[] = [];
  while (!c.eat('E')) {
    const ch = c.peek();
    const last = parts.length > 0 ? parts[parts.length - 1] : null;
    if (ch === 'S' && c.peek(1) === 't' && last === null) {
      c.i += 2;
      parts.push('std');
    } else if (inType && (ch === 'S' || ch === 'T')) {
      if (ch === 'S') c.substitution();
      else {
        c.i++;
        c.seqId();
      }
      parts.push('?');
    } else if ((ch >= '1' && ch <= '9') || ch === 'L') {
      parts.push(c.unqualifiedName());
    } else if (last === null) {
      unknown();
    } else if (ch === 'I') {
      skipTemplateArgs(c);
    } else if ((ch === 'C' && /[1-5]/.test(c.peek(1))) || (ch === 'D' && /[0-5]/.test(c.peek(1)))) {
      c.i += 2;
      parts.push(ch === 'C' ? last : `~${last}`);
      while (c.eat('B')) c.sourceName();
    } else if (OPERATORS[c.s.slice(c.i, c.i + 2)] !== undefined) {
      parts.push(`operator${OPERATORS[c.s.slice(c.i, c.i + 2)]}`);
      c.i += 2;
      while (c.eat('B')) c.sourceName();
    } else {
      // Decltype, lambdas, unnamed types, conversions…
      unknown();
    }
  }
  if (parts.length === 0) unknown();
  return parts;
}

/**
 * The short name of an Itanium-mangled function name (`_ZN3foo3barIiEEvT_` → `foo::bar`), or null
 * when the name is not one this reads (then demangle it and shorten that).
 */
export function shortNameOfMangled(name: string): string | null {
  if (!name.startsWith('_Z') || name.includes('.')) return null;
  const c = new Cursor(name, 2);
  try {
    let parts: string[];
    if (c.peek() === 'N') parts = nestedName(c, false);
    else if (c.eat('St')) parts = ['std', c.unqualifiedName()];
    else parts = [c.unqualifiedName()];
    if (c.peek() === 'I') skipTemplateArgs(c);
    // A bare data name (no function type after it) is not a function: leave it to the demangler.
    if (c.i >= name.length) return null;
    return parts.join('::');
  } catch (e) {
    if (e instanceof Unknown) return null;
    throw e;
  }
}

/**
 * For a function whose name is a nested name ending in a constructor or destructor with template
 * arguments (`_ZNSsC1IPKcEET_S2_RKSaIcE`: `std::string::string<char const*>(char const*, char
 * const*, …)`), the index just past the name's `E`, where the parameter types begin; otherwise
 * -1. Such a function has no return type in its mangled name, but the wasm demangler takes the
 * first parameter for one (and hides it), so `demangle.ts` inserts a `v` there first.
 */
export function templateCtorNameEnd(name: string): number {
  if (!name.startsWith('_ZN')) return -1;
  const c = new Cursor(name, 2);
  try {
    c.expect('N');
    c.skipAny('rVKRO');
    let ctor = false;
    let args = false;
    while (!c.eat('E')) {
      const ch = c.peek();
      if (ch === 'I') {
        skipTemplateArgs(c);
        args = true;
        continue;
      }
      ctor = false;
      args = false;
      if (ch === 'S') {
        if (c.peek(1) === 't') c.i += 2;
        else c.substitution();
      } else if (ch === 'T') {
        c.i++;
        c.seqId();
      } else if ((ch >= '1' && ch <= '9') || ch === 'L') {
        c.unqualifiedName();
      } else if ((ch === 'C' && /[1-5]/.test(c.peek(1))) || (ch === 'D' && /[0-5]/.test(c.peek(1)))) {
        c.i += 2;
        while (c.eat('B')) c.sourceName();
        ctor = true;
      } else if (OPERATORS[c.s.slice(c.i, c.i + 2)] !== undefined) {
        c.i += 2;
        while (c.eat('B')) c.sourceName();
      } else {
        unknown();
      }
    }
    return ctor && args && c.i < name.length ? c.i : -1;
  } catch (e) {
    if (e instanceof Unknown) return -1;
    throw e;
  }
}
