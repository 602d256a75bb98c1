// The objects a profile maps, found on this machine or under a root (a copy of the recording
// machine's files), with their separate debug files (by build-id under /usr/lib/debug/.build-id,
// or by `.gnu_debuglink` where gdb looks). `flamelens bundle` packs them; `--root` symbolizes with
// them; `--fallback-to-host` takes this machine's files for what the root lacks.

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
    for (let from = 0; from < roots.length; from++) {
      const host = `${roots[from]}${path}`;
      let size: number;
      try {
        const st = statSync(host);
        if (!st.isFile()) return 'not a regular file';
        size = st.size;
      } catch {
        continue;
      }
      if (opts.maxSize !== undefined && size > opts.maxSize)
        return `${size} bytes, over --max-size ${opts.maxSize}`;
      try {
        const b = readFileSync(host);
        return { bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength), from };
      } catch (e) {
        return `cannot be read (${(e as { code?: string }).code ?? e})`;
      }
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
    if (!looksLikeElf(got.bytes)) {
      out.missing.push({ path, why: 'not an ELF file' });
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
