// The objects a profile maps, found on this machine or under a root (a copy of the recording
// machine's files), with their separate debug files (by build-id under /usr/lib/debug/.build-id,
// or by `.gnu_debuglink` where gdb looks). `flamelens bundle` packs them; `--root` symbolizes with
// them; `--fallback-to-host` takes this machine's files for what the root lacks.

import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { looksLikeElf, readElf } from '../core/symbols/elf.ts';
import { crc32 } from '../core/symbols/symbolize.ts';

export interface FindOptions {
  /** Prefix of every path looked up ('' or '/': this machine's). */
  root: string;
  /** Look for separate debug files too. */
  debug: boolean;
  /** Leave out files larger than this many bytes. */
  maxSize?: number;
  /**
   * Where to look for what `root` lacks ('' or '/': this machine's files), after it; absent:
   * nowhere else.
   */
  fallback?: string;
  /**
   * The build-ids the profile records, by mapped path: a file found in `fallback` of another
   * build is not taken (the root is the recording machine's copy; the fallback may not be).
   */
  buildIds?: ReadonlyMap<string, string>;
}

export interface FoundFile {
  /** The path on the recording machine (what the profile maps). */
  path: string;
  bytes: Uint8Array;
  buildId?: string;
  /** For a separate debug file: the object it describes. */
  debugFor?: string;
}

export interface Found {
  files: FoundFile[];
  /** What could not be found or used, and why (`ROOT` in `why` when a root was given). */
  missing: { path: string; why: string }[];
  /** The paths of `files` found in the fallback, not under the root. */
  fromFallback: string[];
}

/** Mapped paths worth looking for: absolute, not `[vdso]`-like, not deleted files. */
export function findable(path: string): boolean {
  return path.startsWith('/') && !path.endsWith(' (deleted)');
}

/** Where no object is packed from, whatever a profile's maps text says: processes, the kernel, devices. */
const SYSTEM = /^\/(?:proc|sys|dev)(?:\/|$)/;

/**
 * Why a mapped path is not looked up at all, or null: a profile is a file anyone can write, and its
 * maps text may name `/proc/self/exe`, a device or `../../etc/shadow`.
 */
export function refusedPath(path: string): string | null {
  if (path.includes('\0')) return 'a path with a NUL byte';
  if (path.split('/').includes('..')) return 'a path that climbs (`..`)';
  if (SYSTEM.test(posix.normalize(path))) return 'under /proc, /sys or /dev: not an object file';
  return null;
}

/** A root as a prefix of absolute paths ('' for this machine's files). */
const prefix = (root: string) => (root === '/' ? '' : root.replace(/\/+$/, ''));

/** The mapped objects at `paths` (absolute, on the recording machine) and their debug files. */
export function findMappedFiles(paths: readonly string[], opts: FindOptions): Found {
  const roots = [prefix(opts.root), ...(opts.fallback === undefined ? [] : [prefix(opts.fallback)])];
  const where = roots.map((r) => (r === '' ? 'on this machine' : `under ${r}`)).join(' or ');
  const out: Found = { files: [], missing: [], fromFallback: [] };
  const taken = new Set<string>();
  /** Reads a file from the first root that has it (its index in `roots`), or says why not. */
  const take = (path: string): { bytes: Uint8Array; from: number } | string => {
    const refused = refusedPath(path);
    if (refused !== null) return refused;
    const clean = posix.normalize(path);
    for (let from = 0; from < roots.length; from++) {
      const got = readObject(roots[from], clean, opts.maxSize);
      if (got === null) continue;
      return typeof got === 'string' ? got : { bytes: got, from };
    }
    return `not found ${where}`;
  };
  const exists = (path: string) => roots.some((r) => existsSync(`${r}${path}`));
  for (const path of paths) {
    if (!findable(path) || taken.has(path)) continue;
    const got = take(path);
    if (typeof got === 'string') {
      out.missing.push({ path, why: got });
      continue;
    }
    let elf: ReturnType<typeof readElf>;
    try {
      elf = readElf(got.bytes, path);
    } catch (e) {
      out.missing.push({ path, why: e instanceof Error ? e.message : String(e) });
      continue;
    }
    const recorded = opts.buildIds?.get(path);
    if (got.from > 0 && recorded !== undefined && elf.buildId !== recorded) {
      out.missing.push({
        path,
        why: `not found under ${roots[0] || '/'}; ${roots[got.from] === '' ? "this machine's" : `the one under ${roots[got.from]}`} is another build (build-id ${elf.buildId ?? 'none'}, the profile's ${recorded})`,
      });
      continue;
    }
    out.files.push({ path, bytes: got.bytes, ...(elf.buildId !== undefined && { buildId: elf.buildId }) });
    if (got.from > 0) out.fromFallback.push(path);
    taken.add(path);
    if (opts.debug) findDebugFile(path, elf, take, exists, taken, out);
  }
  return out;
}

/** The separate debug file of `elf` (at `path`): by build-id, then by debug link where gdb looks. */
function findDebugFile(
  path: string,
  elf: ReturnType<typeof readElf>,
  take: (path: string) => { bytes: Uint8Array; from: number } | string,
  exists: (path: string) => boolean,
  taken: Set<string>,
  out: Found,
): void {
  const candidates: string[] = [];
  if (elf.buildId !== undefined)
    candidates.push(`/usr/lib/debug/.build-id/${elf.buildId.slice(0, 2)}/${elf.buildId.slice(2)}.debug`);
  if (elf.debugLink !== undefined) {
    const dir = dirname(path);
    const f = elf.debugLink.file;
    candidates.push(join(dir, f), join(dir, '.debug', f), join('/usr/lib/debug', dir, f));
  }
  for (const c of candidates) {
    if (taken.has(c) || c === path || !exists(c)) continue;
    const got = take(c);
    if (got === 'not an ELF file') continue;
    if (typeof got === 'string') {
      out.missing.push({ path: c, why: got });
      continue;
    }
    const d = got.bytes;
    if (!looksLikeElf(d)) continue;
    let id: string | undefined;
    try {
      id = readElf(d, c).buildId;
    } catch {
      continue;
    }
    // A debug link's file must be the one the link's CRC names, a build-id's the same build.
    if (elf.buildId !== undefined && id !== undefined && id !== elf.buildId) continue;
    if (elf.buildId === undefined && elf.debugLink !== undefined && crc32(d) !== elf.debugLink.crc) continue;
    out.files.push({ path: c, bytes: d, ...(id !== undefined && { buildId: id }), debugFor: path });
    if (got.from > 0) out.fromFallback.push(c);
    taken.add(c);
    return;
  }
}

/**
 * The ELF object at `path` under `root`, null when there is none, or why it is not taken: a link
 * into /proc, /sys or /dev, anything but a regular file (a device or a FIFO would block or never
 * end), over `maxSize`, or no ELF magic in its first bytes (checked before the file is read
 * whole). The path cannot climb out of the root (refusedPath: no `..`); links in the root are its
 * owner's (a copy of a machine made of links, as the tests' is), followed.
 */
function readObject(root: string, path: string, maxSize: number | undefined): Uint8Array | string | null {
  const host = `${root}${path}`;
  let real: string;
  try {
    real = realpathSync(host);
  } catch {
    return null;
  }
  if (SYSTEM.test(real)) return 'a link into /proc, /sys or /dev';
  let fd: number;
  try {
    // Not opened unless a regular file: opening a FIFO blocks until someone writes to it. And
    // non-blocking all the same, should it turn into one between the two calls.
    if (!statSync(real).isFile()) return 'not a regular file';
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return `cannot be read (${(e as { code?: string }).code ?? e})`;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return 'not a regular file';
    if (maxSize !== undefined && st.size > maxSize) return `${st.size} bytes, over --max-size ${maxSize}`;
    const head = new Uint8Array(64);
    const n = readSync(fd, head, 0, head.length, 0);
    if (!looksLikeElf(head.subarray(0, n))) return 'not an ELF file';
    const bytes = new Uint8Array(st.size);
    let at = 0;
    while (at < bytes.length) {
      const k = readSync(fd, bytes, at, bytes.length - at, at);
      if (k === 0) break;
      at += k;
    }
    return at === bytes.length ? bytes : 'changed while it was read';
  } catch (e) {
    return `cannot be read (${(e as { code?: string }).code ?? e})`;
  } finally {
    closeSync(fd);
  }
}
