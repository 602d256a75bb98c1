// /proc/kallsyms, dropped beside a perf.data recording: the running kernel's symbols at their
// run-time addresses (`ADDR TYPE NAME`, and `\t[MODULE]` after a module's), so kernel frames get
// names in the kernel's mapping (`[kernel.kallsyms]`) and in its modules'. Read as perf reads it
// (tools/perf/util/symbol.c): only code symbols (t T w W), each up to the next one, and of the
// symbols at one address the last one listed. (perf ends each symbol at the next one's start before
// it chooses among those at one address, so only the last has a size and wins: `__x64_sys_getppid`
// over `__ia32_sys_getppid`.) The result plugs into createSymbolizer like an ELF file; it serves the
// kernel's mappings only, at their own addresses.

import { emptyColumns, STB_GLOBAL, STB_LOCAL, STB_WEAK, SymbolTable } from './elf.ts';

export interface KallsymsFile {
  kind: 'kallsyms';
  fileName: string;
  symbols: SymbolTable;
  /** The modules named by `[MODULE]` suffixes. */
  modules: string[];
  /** Code symbols read. */
  functions: number;
  warnings: string[];
}

/** A kallsyms text with no usable symbol (its message says why). */
export class KallsymsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KallsymsError';
  }
}

/** `ADDR TYPE NAME[\t[MODULE]]`: a kallsyms line (addresses of 8 or 16 hex digits). */
const LINE = /^([0-9a-f]{16}|[0-9a-f]{8}) ([A-Za-z]) (\S+)(?:\t\[(\S+)\])?$/;
/** Symbols every kernel's kallsyms lists, at the start of its text. */
const HALLMARK = /^[0-9a-f]{8,16} [Tt] (_stext|_text|startup_64|startup_32|_sinittext)$/m;
/** How much of the file the sniff reads: real files list `_stext` within their first lines. */
const SNIFF = 1 << 16;
const ascii = new TextDecoder('latin1');

/**
 * Whether kallsyms describes a mapping: the kernel's (`[kernel.kallsyms]`) or a kernel module's, as
 * perf.data names them (the module's file, `…/ext4.ko[.xz|.gz|.zst]`, or `[ext4]` for a kernel
 * mapping, whose addresses are its own).
 */
export function isKernelMapping(m: { path: string; linkTimeAddresses?: boolean }): boolean {
  const p = m.path;
  if (p.startsWith('[kernel.kallsyms]') || p.startsWith('[guest.kernel.kallsyms')) return true;
  if (/\.ko(\.(xz|gz|zst))?$/.test(p)) return true;
  return m.linkTimeAddresses === true && /^\[[^\]]+\]$/.test(p);
}

/**
 * True for /proc/kallsyms text (or `nm -n vmlinux`, its equal): most of the first lines are
 * `ADDR TYPE NAME` with a 16 (or 8) digit address, and it lists the kernel's `_stext` (or
 * `_text`, `startup_64`) near its start.
 */
export function looksLikeKallsyms(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SNIFF);
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === 0 || c >= 0x80) return false;
  }
  // ASCII: one char per byte (a char at a time would build the 64k string a char at a time)
  const head = ascii.decode(bytes.subarray(0, n));
  const lines = head.split('\n');
  if (bytes.length > n) lines.pop(); // maybe cut
  let seen = 0;
  let good = 0;
  for (const line of lines) {
    if (line === '') continue;
    seen++;
    if (LINE.test(line)) good++;
    if (seen >= 200) break;
  }
  return good > 0 && good >= seen * 0.9 && HALLMARK.test(head);
}

/**
 * Reads a kallsyms text. Throws a KallsymsError (with the reason) when no code symbol has an
 * address: the file was read by a user not allowed to see them.
 */
export function parseKallsyms(bytes: Uint8Array, fileName: string): KallsymsFile {
  const text = new TextDecoder('utf-8').decode(bytes);
  const warnings: string[] = [];
  const addrHi: number[] = [];
  const addrLo: number[] = [];
  const binds: number[] = [];
  const names: string[] = [];
  const modules = new Set<string>();
  let zero = 0;
  let bad = 0;
  let firstBad = 0;
  const lines = text.split('\n');
  for (let ln = 0; ln < lines.length; ln++) {
    const line = lines[ln].endsWith('\r') ? lines[ln].slice(0, -1) : lines[ln];
    if (line === '') continue;
    const m = LINE.exec(line);
    if (m === null) {
      if (bad++ === 0) firstBad = ln + 1;
      continue;
    }
    const type = m[2];
    if (type !== 't' && type !== 'T' && type !== 'w' && type !== 'W') continue;
    const hex = m[1];
    const hi = hex.length > 8 ? Number.parseInt(hex.slice(0, 8), 16) : 0;
    const lo = Number.parseInt(hex.slice(-8), 16);
    if (hi === 0 && lo === 0) {
      zero++;
      continue;
    }
    if (m[4] !== undefined) modules.add(m[4]);
    addrHi.push(hi);
    addrLo.push(lo);
    binds.push(type === 'T' ? STB_GLOBAL : type === 'w' || type === 'W' ? STB_WEAK : STB_LOCAL);
    names.push(m[3]);
  }
  if (addrHi.length === 0) {
    throw new KallsymsError(
      zero > 0
        ? `every kernel symbol's address is 0: /proc/kallsyms was read by a user not allowed to see them (read it as root, or with kernel.kptr_restrict=0)`
        : `no kernel code symbols (t, T, w, W lines)`,
    );
  }
  if (bad > 0) warnings.push(`${bad} lines are not kallsyms lines (first at line ${firstBad})`);
  if (zero > 0) warnings.push(`${zero} code symbols at address 0 left out`);

  // One symbol per address, the last listed there (as perf chooses), in address order.
  const order = Array.from(addrHi.keys()).sort(
    (a, b) => addrHi[a] - addrHi[b] || addrLo[a] - addrLo[b] || a - b,
  );
  const cols = emptyColumns();
  for (let k = 0; k < order.length; ) {
    let j = k + 1;
    while (j < order.length && addrHi[order[j]] === addrHi[order[k]] && addrLo[order[j]] === addrLo[order[k]])
      j++;
    const best = order[j - 1];
    cols.hi.push(addrHi[best]);
    cols.lo.push(addrLo[best]);
    cols.size.push(0);
    cols.bind.push(binds[best]);
    cols.capHi.push(0xffffffff);
    cols.capLo.push(0xffffffff);
    cols.name.push(names[best]);
    k = j;
  }
  return {
    kind: 'kallsyms',
    fileName,
    symbols: new SymbolTable(cols),
    modules: [...modules],
    functions: cols.hi.length,
    warnings,
  };
}
