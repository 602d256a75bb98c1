// Frame tables (FoldedProfile.frames, types.ts FrameTable): built row by row by the fold's naming
// and copied by every derivation that makes a table of its own (transforms, sandwich halves, a
// comparison's merged table), so a frame keeps its kind and fields wherever it goes. Columnar:
// typed arrays grown by doubling, function and file names interned in one string table.

import { FrameKind, type FrameTable, Unnamed } from '../types';

/** The typed columns of a frame table, with their element types. */
const COLUMNS = {
  module: Int32Array,
  kind: Uint8Array,
  unnamed: Uint8Array,
  func: Int32Array,
  file: Int32Array,
  line: Uint32Array,
  addrHi: Uint32Array,
  addrLo: Uint32Array,
} as const;
type ColumnName = keyof typeof COLUMNS;
type Columns = Pick<FrameTable, ColumnName>;
type Column = Columns[ColumnName];
const COLUMN_NAMES = Object.keys(COLUMNS) as ColumnName[];

/** Each column made by `make` from its constructor and the source's column (if any). */
function eachColumn(make: (Ctor: new (n: number) => Column, name: ColumnName) => Column): Columns {
  const out: Partial<Record<ColumnName, Column>> = {};
  for (const name of COLUMN_NAMES) out[name] = make(COLUMNS[name], name);
  return out as Columns;
}

/**
 * Rows of a frame table, added one by one (new frames, or copies of another table's). With
 * `after`, the rows follow that table's (ids from `after.count` on) and `finish` gives the whole:
 * its rows, then these.
 */
export class FrameRows {
  private n = 0;
  private readonly names: string[] = [];
  /** Full names, when the table has them (short names). */
  readonly fullNames: string[] | null;
  private cols: Columns;
  /** The string table: `base`'s strings, then those interned here (`added`, copied on the first). */
  private readonly base: readonly string[];
  private added: string[] | null = null;
  private ids: Map<string, number> | null = null;
  private readonly after: FrameTable | null;

  constructor(
    opts: { after?: FrameTable; strings?: readonly string[]; fullNames?: boolean; capacity?: number } = {},
  ) {
    this.after = opts.after ?? null;
    this.base = opts.after?.strings ?? opts.strings ?? [];
    this.fullNames =
      (opts.fullNames ?? (opts.after !== undefined && opts.after.fullName !== undefined)) ? [] : null;
    const cap = Math.max(16, opts.capacity ?? 256);
    this.cols = eachColumn((Ctor) => new Ctor(cap));
  }

  /** Rows added so far (ids below `first + count`). */
  get count(): number {
    return this.n;
  }

  /** The names of the rows added so far, by row (the live array: do not modify). */
  rowNames(): string[] {
    return this.names;
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
   * into the strings (intern), −1 for none.
   */
  add(
    name: string,
    module: number,
    kind: FrameKind,
    unnamed: Unnamed = Unnamed.Named,
    func = -1,
    file = -1,
    line = 0,
    addrHi = 0,
    addrLo = 0,
    fullName = name,
  ): number {
    const r = this.n;
    if (r === this.cols.module.length) this.grow();
    const c = this.cols;
    this.names.push(name);
    this.fullNames?.push(fullName);
    c.module[r] = module;
    c.kind[r] = kind;
    c.unnamed[r] = unnamed;
    c.func[r] = func;
    c.file[r] = file;
    c.line[r] = line;
    c.addrHi[r] = addrHi;
    c.addrLo[r] = addrLo;
    this.n = r + 1;
    return r;
  }

  /** Adds a copy of frame `f` of `src` (its module given as an index into this table's modules). */
  copy(src: FrameTable, f: number, module = src.module[f]): number {
    const same = src.strings === this.base;
    const str = (i: number) => (i < 0 || same ? i : this.intern(src.strings[i]));
    return this.add(
      src.name[f],
      module,
      src.kind[f] as FrameKind,
      src.unnamed[f] as Unnamed,
      str(src.func[f]),
      str(src.file[f]),
      src.line[f],
      src.addrHi[f],
      src.addrLo[f],
      src.fullName?.[f] ?? src.name[f],
    );
  }

  /** Row `r`'s kind (added here). */
  kindOf(r: number): FrameKind {
    return this.cols.kind[r] as FrameKind;
  }

  setKind(r: number, kind: FrameKind): void {
    this.cols.kind[r] = kind;
  }

  /** Row `r`'s module (added here). */
  moduleOf(r: number): number {
    return this.cols.module[r];
  }

  /** Row `r`'s function (an index into the strings; −1 for none). */
  funcOf(r: number): number {
    return this.cols.func[r];
  }

  /** The string of index `i` of this table's strings. */
  string(i: number): string {
    return i < this.base.length ? this.base[i] : this.added![i - this.base.length];
  }

  private grow(): void {
    const cap = this.cols.module.length * 2;
    const old = this.cols;
    this.cols = eachColumn((Ctor, name) => {
      const a = new Ctor(cap);
      a.set(old[name]);
      return a;
    });
  }

  /** The table: `after`'s rows (when given), then these. */
  finish(): FrameTable {
    const n = this.n;
    const strings = this.added === null ? (this.base as string[]) : [...this.base, ...this.added];
    const before = this.after;
    const m = before?.count ?? 0;
    const table: FrameTable = {
      count: m + n,
      name: before ? [...before.name, ...this.names] : this.names,
      ...eachColumn((Ctor, name) => {
        const mine = this.cols[name];
        if (!before) return mine.slice(0, n);
        const out = new Ctor(m + n);
        out.set(before[name].subarray(0, m));
        out.set(mine.subarray(0, n), m);
        return out;
      }),
      strings,
    };
    if (this.fullNames !== null)
      table.fullName = before ? [...(before.fullName ?? before.name), ...this.fullNames] : this.fullNames;
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
  const names = (a: readonly string[]): string[] => {
    const out = new Array<string>(n);
    for (let k = 0; k < n; k++) out[k] = a[ids[k]];
    return out;
  };
  const table: FrameTable = {
    count: n,
    name: names(src.name),
    ...eachColumn((Ctor, name) => {
      const from = src[name];
      const out = new Ctor(n);
      for (let k = 0; k < n; k++) out[k] = from[ids[k]];
      return out;
    }),
    strings: src.strings,
  };
  if (src.fullName !== undefined) table.fullName = names(src.fullName);
  return table;
}
