// Frame tables (FoldedProfile.frames, types.ts FrameTable): built row by row by the fold's naming
// and copied by every derivation that makes a table of its own (transforms, sandwich halves, a
// comparison's merged table), so a frame keeps its kind and fields wherever it goes. Columnar:
// typed arrays grown by doubling, function and file names interned in one string table. A frame's
// name is read through frameName (text/frame-text.ts): an address frame of unnamed code stores
// none (its `ownName` is null) and is named from its module and offset when asked (a DCPI profile
// has millions of them).

import { hexOf } from '../address';
import { frameName } from '../text/frame-text';
import { FrameKind, type FrameTable, Unnamed } from '../types';

/** Every frame's name, by frame id (made: for a whole-table pass, a test, a writer). */
export function frameNames(t: FrameTable): string[] {
  const out = new Array<string>(t.count);
  for (let f = 0; f < t.count; f++) out[f] = frameName(t, f);
  return out;
}

/** Every frame's stored name or null (`ownName` ends at its last named frame). */
export function ownNames(t: FrameTable): (string | null)[] {
  const own = t.ownName;
  if (own.length === t.count) return own;
  const out = own.slice();
  while (out.length < t.count) out.push(null);
  return out;
}

/** A name an address frame stored without one could have: `…+0xHEX` or `0xHEX`. */
const ADDRESS_NAME = /(?:^|\+)0x([0-9a-f]{1,16})$/;

/**
 * Whether frame f is named `name`, without making the names of frames stored without one (only an
 * address frame at the offset the name ends with can have it: compared by number first).
 */
export function isNamed(t: FrameTable, name: string): (f: number) => boolean {
  const own = t.ownName;
  const hex = t.moduleNames === undefined ? null : ADDRESS_NAME.exec(name);
  if (hex === null) return (f) => own[f] === name;
  const digits = hex[1];
  const lo = Number.parseInt(digits.slice(-8), 16);
  const hi = digits.length > 8 ? Number.parseInt(digits.slice(0, -8), 16) : 0;
  const { addrHi, addrLo } = t;
  return (f) => {
    const o = own[f] ?? null;
    if (o !== null) return o === name;
    return (addrLo?.[f] ?? 0) === lo && (addrHi?.[f] ?? 0) === hi && frameName(t, f) === name;
  };
}

/** The first frame named `name`, or −1 (Array.indexOf over the names, without making them all). */
export function findFrame(t: FrameTable, name: string): number {
  const own = t.ownName;
  const stored = own.indexOf(name);
  if (t.moduleNames === undefined) return stored;
  const is = isNamed(t, name);
  const end = stored < 0 ? t.count : stored;
  for (let f = 0; f < end; f++) if ((own[f] ?? null) === null && is(f)) return f;
  return stored;
}

/** 1 for every frame named `name`. */
export function framesNamed(t: FrameTable, name: string): Uint8Array {
  const out = new Uint8Array(t.count);
  const is = isNamed(t, name);
  for (let f = 0; f < t.count; f++) if (is(f)) out[f] = 1;
  return out;
}

/**
 * 1 for every frame of the function `name`: the frames named so and, at Frames = lines or
 * addresses, the line and address frames in it (`func`). A transform of a function (focus, hide,
 * collapse recursion) names the function as Frames = functions names it, and keeps its frames at
 * any granularity: a transform made on functions and then lines asked matched no frame.
 */
export function framesOfFunction(t: FrameTable, name: string): Uint8Array {
  const out = framesNamed(t, name);
  const func = t.func;
  if (func === undefined) return out;
  // (every index of the name: a table copied into another may hold a string twice)
  const named = new Uint8Array(t.strings.length);
  let any = false;
  for (let i = 0; i < t.strings.length; i++)
    if (t.strings[i] === name) {
      named[i] = 1;
      any = true;
    }
  if (!any) return out;
  const kind = t.kind;
  for (let f = 0; f < t.count; f++) {
    const fn = func[f];
    if (fn >= 0 && named[fn] === 1 && (kind[f] === FrameKind.Line || kind[f] === FrameKind.Address))
      out[f] = 1;
  }
  return out;
}

/**
 * The typed columns of a frame table: their element types and, for the optional ones (left out of
 * a table where every frame has the default: a table of functions carries no line, file or
 * address), their default.
 */
const COLUMNS = {
  module: { Ctor: Int32Array, empty: null },
  kind: { Ctor: Uint8Array, empty: null },
  unnamed: { Ctor: Uint8Array, empty: 0 },
  func: { Ctor: Int32Array, empty: -1 },
  file: { Ctor: Int32Array, empty: -1 },
  line: { Ctor: Uint32Array, empty: 0 },
  addrHi: { Ctor: Uint32Array, empty: 0 },
  addrLo: { Ctor: Uint32Array, empty: 0 },
} as const;
type ColumnName = keyof typeof COLUMNS;
type Columns = Required<Pick<FrameTable, ColumnName>>;
type Column = Columns[ColumnName];
type Ctor = new (n: number) => Column;
const COLUMN_NAMES = Object.keys(COLUMNS) as ColumnName[];

/** Each column made by `make`; an optional one left out where `make` gives undefined. */
function eachColumn(make: (Ctor: Ctor, name: ColumnName) => Column | undefined): Columns {
  const out: Partial<Record<ColumnName, Column>> = {};
  for (const name of COLUMN_NAMES) {
    const c = make(COLUMNS[name].Ctor, name);
    if (c !== undefined) out[name] = c;
  }
  return out as Columns;
}

/** A column of `n` values, each its default. */
function emptyColumn(name: ColumnName, n: number): Column {
  const c = new COLUMNS[name].Ctor(n);
  const empty = COLUMNS[name].empty;
  if (empty !== null && empty !== 0) c.fill(empty);
  return c;
}

/** The column, or undefined when it is optional and holds only its default. */
function kept(name: ColumnName, c: Column): Column | undefined {
  const empty = COLUMNS[name].empty;
  if (empty === null) return c;
  for (let i = 0; i < c.length; i++) if (c[i] !== empty) return c;
  return undefined;
}

/** Frame f's value in column `name` of a table, its default where the table leaves the column out. */
function fieldOf(t: FrameTable, name: ColumnName, f: number): number {
  return t[name]?.[f] ?? (COLUMNS[name].empty as number);
}

/**
 * Rows of a frame table, added one by one (new frames, or copies of another table's). With
 * `after`, the rows follow that table's (ids from `after.count` on) and `finish` gives the whole:
 * its rows, then these. An optional column is made when a row first has a value in it other
 * than its default (a fold of unsymbolized code never makes the function, file and line columns).
 */
export class FrameRows {
  private n = 0;
  private cap: number;
  private readonly names: (string | null)[] = [];
  /** Full names where short names cut something, when the table has them (short names). */
  readonly fullNames: (string | undefined)[] | null;
  private readonly cols: Partial<Record<ColumnName, Column>>;
  /** The string table: `base`'s strings, then those interned here (`added`, copied on the first). */
  private readonly base: readonly string[];
  private added: string[] | null = null;
  private ids: Map<string, number> | null = null;
  private readonly after: FrameTable | null;
  /** Per module, its file's base name: how a row added without a name is named (FrameTable.moduleNames). */
  private readonly moduleNames: string[] | undefined;
  /** Whether a row was added without a name. */
  private unnamedRows = false;

  constructor(
    opts: {
      after?: FrameTable;
      strings?: readonly string[];
      fullNames?: boolean;
      capacity?: number;
      moduleNames?: string[];
    } = {},
  ) {
    this.after = opts.after ?? null;
    this.moduleNames = opts.after?.moduleNames ?? opts.moduleNames;
    this.base = opts.after?.strings ?? opts.strings ?? [];
    this.fullNames =
      (opts.fullNames ?? (opts.after !== undefined && opts.after.fullName !== undefined)) ? [] : null;
    this.cap = Math.max(16, opts.capacity ?? 256);
    this.cols = { module: new Int32Array(this.cap), kind: new Uint8Array(this.cap) };
  }

  /** Rows added so far (ids below `first + count`). */
  get count(): number {
    return this.n;
  }

  /** Row `r`'s name (added here): as frameName names it. */
  rowName(r: number): string {
    const own = this.names[r] ?? null;
    if (own !== null) return own;
    const m = this.cols.module![r];
    const hex = hexOf(this.cols.addrHi?.[r] ?? 0, this.cols.addrLo?.[r] ?? 0);
    return m < 0 ? `0x${hex}` : `${this.moduleNames![m]}+0x${hex}`;
  }

  /** The string's index in the table's strings (added if new). */
  intern(s: string): number {
    if (this.ids === null) {
      this.ids = new Map();
      for (let i = 0; i < this.base.length; i++)
        if (!this.ids.has(this.base[i])) this.ids.set(this.base[i], i);
    }
    let id = this.ids.get(s);
    if (id === undefined) {
      this.added ??= [];
      id = this.base.length + this.added.length;
      this.added.push(s);
      this.ids.set(s, id);
    }
    return id;
  }

  /**
   * Adds a frame; returns its row (from 0: add `first` for its id). `func` and `file` are indices
   * into the strings (intern), −1 for none. `name` null: an Address frame named from its module and
   * address when asked (frameName), in a table made with `moduleNames`.
   */
  add(
    name: string | null,
    module: number,
    kind: FrameKind,
    unnamed: Unnamed = Unnamed.Named,
    func = -1,
    file = -1,
    line = 0,
    addrHi = 0,
    addrLo = 0,
    fullName?: string,
  ): number {
    const r = this.n;
    if (r === this.cap) this.grow();
    if (name === null) {
      if (this.moduleNames === undefined || kind !== FrameKind.Address)
        throw new Error('A frame without a name must be an address frame of a table with module names.');
      this.unnamedRows = true;
    } else {
      // Only up to the last named row: an unnamed table (a flat profile's 8.75M address frames)
      // sends the page no array of nulls (structured-cloning 8.75M of them took 0.24–0.47 s).
      while (this.names.length < r) this.names.push(null);
      this.names.push(name);
    }
    this.fullNames?.push(fullName);
    this.cols.module![r] = module;
    this.cols.kind![r] = kind;
    if (unnamed !== Unnamed.Named) this.column('unnamed')[r] = unnamed;
    if (func !== -1) this.column('func')[r] = func;
    if (file !== -1) this.column('file')[r] = file;
    if (line !== 0) this.column('line')[r] = line;
    if (addrHi !== 0) this.column('addrHi')[r] = addrHi;
    if (addrLo !== 0) this.column('addrLo')[r] = addrLo;
    this.n = r + 1;
    return r;
  }

  /** The column (made, every value its default, if it was not yet). */
  private column(name: ColumnName): Column {
    let c = this.cols[name];
    if (c === undefined) this.cols[name] = c = emptyColumn(name, this.cap);
    return c;
  }

  /**
   * Adds a copy of frame `f` of `src` (its module given as an index into this table's modules),
   * named (a frame `src` names when asked gets its name here: the modules may be numbered otherwise).
   */
  copy(src: FrameTable, f: number, module = src.module[f]): number {
    const same = src.strings === this.base;
    const str = (i: number) => (i < 0 || same ? i : this.intern(src.strings[i]));
    return this.add(
      frameName(src, f),
      module,
      src.kind[f] as FrameKind,
      fieldOf(src, 'unnamed', f) as Unnamed,
      str(fieldOf(src, 'func', f)),
      str(fieldOf(src, 'file', f)),
      fieldOf(src, 'line', f),
      fieldOf(src, 'addrHi', f),
      fieldOf(src, 'addrLo', f),
      src.fullName?.[f],
    );
  }

  /** Whether row `r` (added here) stores its name (else frameName makes it). */
  named(r: number): boolean {
    return (this.names[r] ?? null) !== null;
  }

  /** Room for `n` rows in all, made at once rather than by doublings (each a copy of every column). */
  reserve(n: number): void {
    if (n > this.cap) this.resize(n);
  }

  /** Row `r`'s kind (added here). */
  kindOf(r: number): FrameKind {
    return this.cols.kind![r] as FrameKind;
  }

  setKind(r: number, kind: FrameKind): void {
    this.cols.kind![r] = kind;
  }

  /** Row `r`'s module (added here). */
  moduleOf(r: number): number {
    return this.cols.module![r];
  }

  /** Row `r`'s function (an index into the strings; −1 for none). */
  funcOf(r: number): number {
    return this.cols.func?.[r] ?? -1;
  }

  /** The string of index `i` of this table's strings. */
  string(i: number): string {
    return i < this.base.length ? this.base[i] : this.added![i - this.base.length];
  }

  private grow(): void {
    this.resize(this.cap * 2);
  }

  private resize(cap: number): void {
    for (const name of COLUMN_NAMES) {
      const old = this.cols[name];
      if (old === undefined) continue;
      const c = emptyColumn(name, cap);
      c.set(old);
      this.cols[name] = c;
    }
    this.cap = cap;
  }

  /** The table: `after`'s rows (when given), then these. */
  finish(): FrameTable {
    const n = this.n;
    const strings = this.added === null ? (this.base as string[]) : [...this.base, ...this.added];
    const before = this.after;
    const m = before?.count ?? 0;
    const table: FrameTable = {
      count: m + n,
      ownName: before ? [...ownNames(before), ...this.names] : this.names,
      ...eachColumn((_, name) => {
        const mine = this.cols[name];
        const theirs = before?.[name];
        if (!before) return mine?.slice(0, n);
        if (theirs === undefined && mine === undefined) return undefined;
        const out = emptyColumn(name, m + n);
        if (theirs !== undefined) out.set(theirs.subarray(0, m));
        if (mine !== undefined) out.set(mine.subarray(0, n), m);
        return out;
      }),
      strings,
    };
    if (before?.moduleNames !== undefined || this.unnamedRows) table.moduleNames = this.moduleNames;
    const full = this.fullNames;
    if (full !== null && (full.some((x) => x !== undefined) || before?.fullName !== undefined))
      table.fullName = before ? [...(before.fullName ?? new Array<undefined>(m)), ...full] : full;
    return table;
  }
}

/** A table of function frames named `names` (modules −1 unless given): text notation, tests, tools. */
export function functionFrames(names: readonly string[], module?: ArrayLike<number>): FrameTable {
  const rows = new FrameRows({ capacity: names.length });
  for (let i = 0; i < names.length; i++) rows.add(names[i], module ? module[i] : -1, FrameKind.Function);
  return rows.finish();
}

/** The rows `ids` of `src`, in that order (frame `ids[k]` becomes frame k), column by column. */
export function pickFrames(src: FrameTable, ids: ArrayLike<number>): FrameTable {
  const n = ids.length;
  const names = <T>(a: readonly T[]): T[] => {
    const out = new Array<T>(n);
    for (let k = 0; k < n; k++) out[k] = a[ids[k]];
    return out;
  };
  const table: FrameTable = {
    count: n,
    ownName: Array.from(ids, (f) => src.ownName[f] ?? null),
    ...eachColumn((Ctor, name) => {
      const from = src[name];
      if (from === undefined) return undefined;
      const out = new Ctor(n);
      for (let k = 0; k < n; k++) out[k] = from[ids[k]];
      return kept(name, out);
    }),
    strings: src.strings,
  };
  if (src.moduleNames !== undefined) table.moduleNames = src.moduleNames;
  const full = src.fullName === undefined ? [] : names(src.fullName);
  if (full.some((x) => x !== undefined)) table.fullName = full;
  return table;
}
