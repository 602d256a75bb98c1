// Frame tables (FoldedProfile.frames, types.ts FrameTable): built row by row by the fold's naming
// and copied by every derivation that makes a table of its own (transforms, sandwich halves, a
// comparison's merged table), so a frame keeps its kind and fields wherever it goes. Columnar:
// typed arrays grown by doubling, function and file names interned in one string table.

import { FrameKind, type FrameTable, Unnamed } from '../types';

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
  private module: Int32Array;
  private kinds: Uint8Array;
  private unnamedWhy: Uint8Array;
  private func: Int32Array;
  private file: Int32Array;
  private line: Uint32Array;
  private addrHi: Uint32Array;
  private addrLo: Uint32Array;
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
    this.module = new Int32Array(cap);
    this.kinds = new Uint8Array(cap);
    this.unnamedWhy = new Uint8Array(cap);
    this.func = new Int32Array(cap);
    this.file = new Int32Array(cap);
    this.line = new Uint32Array(cap);
    this.addrHi = new Uint32Array(cap);
    this.addrLo = new Uint32Array(cap);
  }

  /** Rows added so far (ids below `first + count`). */
  get count(): number {
    return this.n;
  }

  /** The id of the first row added here: `after.count`, or 0. */
  get first(): number {
    return this.after?.count ?? 0;
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
    if (r === this.module.length) this.grow();
    this.names.push(name);
    this.fullNames?.push(fullName);
    this.module[r] = module;
    this.kinds[r] = kind;
    this.unnamedWhy[r] = unnamed;
    this.func[r] = func;
    this.file[r] = file;
    this.line[r] = line;
    this.addrHi[r] = addrHi;
    this.addrLo[r] = addrLo;
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
    return this.kinds[r] as FrameKind;
  }

  setKind(r: number, kind: FrameKind): void {
    this.kinds[r] = kind;
  }

  /** Row `r`'s module (added here). */
  moduleOf(r: number): number {
    return this.module[r];
  }

  /** Row `r`'s function (an index into the strings; −1 for none). */
  funcOf(r: number): number {
    return this.func[r];
  }

  /** The string of index `i` of this table's strings. */
  string(i: number): string {
    return i < this.base.length ? this.base[i] : this.added![i - this.base.length];
  }

  private grow(): void {
    const cap = this.module.length * 2;
    const g = <T extends Int32Array | Uint32Array | Uint8Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      b.set(a);
      return b;
    };
    this.module = g(this.module);
    this.kinds = g(this.kinds);
    this.unnamedWhy = g(this.unnamedWhy);
    this.func = g(this.func);
    this.file = g(this.file);
    this.line = g(this.line);
    this.addrHi = g(this.addrHi);
    this.addrLo = g(this.addrLo);
  }

  /** The table: `after`'s rows (when given), then these. */
  finish(): FrameTable {
    const n = this.n;
    const strings = this.added === null ? (this.base as string[]) : [...this.base, ...this.added];
    const before = this.after;
    const m = before?.count ?? 0;
    const col = <T extends Int32Array | Uint32Array | Uint8Array>(mine: T, theirs: T | undefined): T => {
      if (!before || !theirs) return mine.slice(0, n) as T;
      const out = new (mine.constructor as new (n: number) => T)(m + n);
      out.set(theirs.subarray(0, m));
      out.set(mine.subarray(0, n), m);
      return out;
    };
    const table: FrameTable = {
      count: m + n,
      name: before ? [...before.name, ...this.names] : this.names,
      module: col(this.module, before?.module),
      kind: col(this.kinds, before?.kind),
      unnamed: col(this.unnamedWhy, before?.unnamed),
      func: col(this.func, before?.func),
      file: col(this.file, before?.file),
      line: col(this.line, before?.line),
      addrHi: col(this.addrHi, before?.addrHi),
      addrLo: col(this.addrLo, before?.addrLo),
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
  const pick = <T extends Int32Array | Uint32Array | Uint8Array>(a: T): T => {
    const out = new (a.constructor as new (n: number) => T)(n);
    for (let k = 0; k < n; k++) out[k] = a[ids[k]];
    return out;
  };
  const names = (a: readonly string[]): string[] => {
    const out = new Array<string>(n);
    for (let k = 0; k < n; k++) out[k] = a[ids[k]];
    return out;
  };
  const table: FrameTable = {
    count: n,
    name: names(src.name),
    module: pick(src.module),
    kind: pick(src.kind),
    unnamed: pick(src.unnamed),
    func: pick(src.func),
    file: pick(src.file),
    line: pick(src.line),
    addrHi: pick(src.addrHi),
    addrLo: pick(src.addrLo),
    strings: src.strings,
  };
  if (src.fullName !== undefined) table.fullName = names(src.fullName);
  return table;
}
