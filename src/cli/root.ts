// The objects a profile maps, found on this machine or under a root (a copy of the recording
// machine's files), with their separate debug files (by build-id under /usr/lib/debug/.build-id,
// or by `.gnu_debuglink` where gdb looks). `flamelens bundle` packs them; `--root` symbolizes with
// them.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { looksLikeElf, readElf } from '../core/symbols/elf.ts';
import { crc32 } from '../core/symbols/symbolize.ts';

export interface FindOptions {
  /** Prefix of every path looked up ('' or '/': this machine's). */
  root: string;
  /** Look for separate debug files too. */
  debug: boolean;
  /** Leave out files larger than this many bytes. */
  maxSize?: number;
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
}

/** Mapped paths worth looking for: absolute, not `[vdso]`-like, not deleted files. */
export function findable(path: string): boolean {
  return path.startsWith('/') && !path.endsWith(' (deleted)');
}

/** The mapped objects at `paths` (absolute, on the recording machine) and their debug files. */
export function findMappedFiles(paths: readonly string[], opts: FindOptions): Found {
  const root = opts.root === '/' ? '' : opts.root.replace(/\/+$/, '');
  const onHost = (p: string) => `${root}${p}`;
  const where = root === '' ? 'on this machine' : `under ${root}`;
  const out: Found = { files: [], missing: [] };
  const taken = new Set<string>();
  /** Reads a file, or says why not. */
  const take = (path: string): Uint8Array | string => {
    const host = onHost(path);
    let size: number;
    try {
      const st = statSync(host);
      if (!st.isFile()) return 'not a regular file';
      size = st.size;
    } catch {
      return `not found ${where}`;
    }
    if (opts.maxSize !== undefined && size > opts.maxSize)
      return `${size} bytes, over --max-size ${opts.maxSize}`;
    try {
      const b = readFileSync(host);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    } catch (e) {
      return `cannot be read (${(e as { code?: string }).code ?? e})`;
    }
  };
  for (const path of paths) {
    if (!findable(path) || taken.has(path)) continue;
    const got = take(path);
    if (typeof got === 'string') {
      out.missing.push({ path, why: got });
      continue;
    }
    if (!looksLikeElf(got)) {
      out.missing.push({ path, why: 'not an ELF file' });
      continue;
    }
    let elf: ReturnType<typeof readElf>;
    try {
      elf = readElf(got, path);
    } catch (e) {
      out.missing.push({ path, why: e instanceof Error ? e.message : String(e) });
      continue;
    }
    out.files.push({ path, bytes: got, ...(elf.buildId !== undefined && { buildId: elf.buildId }) });
    taken.add(path);
    if (opts.debug) findDebugFile(path, elf, take, onHost, taken, out);
  }
  return out;
}

/** The separate debug file of `elf` (at `path`): by build-id, then by debug link where gdb looks. */
function findDebugFile(
  path: string,
  elf: ReturnType<typeof readElf>,
  take: (path: string) => Uint8Array | string,
  onHost: (path: string) => string,
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
    if (taken.has(c) || c === path || !existsSync(onHost(c))) continue;
    const d = take(c);
    if (typeof d === 'string') {
      out.missing.push({ path: c, why: d });
      continue;
    }
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
    taken.add(c);
    return;
  }
}
