// `flamelens bundle`: run where the profile was recorded; packs the profile(s) with every mapped
// object that exists on this machine, and their separate debug files (by build-id under
// /usr/lib/debug/.build-id, or by `.gnu_debuglink` where gdb looks), into one zip
// (core/bundle/bundle.ts says its layout). `root` prefixes every path looked up (tests pack
// against a copy of a system's files).

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type BundleInput, writeBundle } from '../core/bundle/bundle.ts';
import { parse } from '../core/pipeline.ts';
import { looksLikeElf, readElf } from '../core/symbols/elf.ts';
import { crc32 } from '../core/symbols/symbolize.ts';

export interface BundleOptions {
  /** Prefix of every path looked up ('' or '/': this machine's). */
  root: string;
  /** Pack separate debug files (default true). */
  debug: boolean;
  /** Leave out files larger than this many bytes. */
  maxSize?: number;
  host?: string;
}

export interface BundleResult {
  bytes: Uint8Array;
  /** What the bundle lacks, and why: printed as warnings. */
  missing: { path: string; why: string }[];
  files: { path: string; size: number; buildId?: string; debugFor?: string }[];
}

/** Mapped paths worth packing: absolute, not `[vdso]`-like, not deleted files. */
function packable(path: string): boolean {
  return path.startsWith('/') && !path.endsWith(' (deleted)');
}

/**
 * Packs the profiles (path and bytes) with the objects their mappings name. Throws a ProfileError
 * when a profile cannot be parsed (its mappings are what the bundle is made of).
 */
export function makeBundle(
  profiles: { path: string; bytes: Uint8Array }[],
  opts: BundleOptions,
): BundleResult {
  const root = opts.root === '/' ? '' : opts.root.replace(/\/+$/, '');
  const onHost = (p: string) => `${root}${p}`;
  const paths: string[] = [];
  for (const p of profiles) {
    const { raw } = parse(p.bytes, p.path.split('/').pop()!);
    for (const m of raw.meta.mappings) if (packable(m.path) && !paths.includes(m.path)) paths.push(m.path);
  }
  const input: BundleInput = {
    profiles: profiles.map((p) => ({ name: p.path.split('/').pop()!, bytes: p.bytes })),
    files: [],
    missing: [],
    ...(opts.host !== undefined && { host: opts.host }),
  };
  const packed = new Set<string>();
  /** Reads a file to pack, or says why not. */
  const take = (path: string): Uint8Array | string => {
    const host = onHost(path);
    let size: number;
    try {
      const st = statSync(host);
      if (!st.isFile()) return 'not a regular file';
      size = st.size;
    } catch {
      return 'not found on this machine';
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
    const got = take(path);
    if (typeof got === 'string') {
      input.missing.push({ path, why: got });
      continue;
    }
    if (!looksLikeElf(got)) {
      input.missing.push({ path, why: 'not an ELF file' });
      continue;
    }
    let elf: ReturnType<typeof readElf>;
    try {
      elf = readElf(got, path);
    } catch (e) {
      input.missing.push({ path, why: e instanceof Error ? e.message : String(e) });
      continue;
    }
    input.files.push({ path, bytes: got, ...(elf.buildId !== undefined && { buildId: elf.buildId }) });
    packed.add(path);
    if (!opts.debug) continue;
    // The separate debug file: by build-id, then by debug link where gdb looks for it.
    const candidates: string[] = [];
    if (elf.buildId !== undefined)
      candidates.push(`/usr/lib/debug/.build-id/${elf.buildId.slice(0, 2)}/${elf.buildId.slice(2)}.debug`);
    if (elf.debugLink !== undefined) {
      const dir = dirname(path);
      const f = elf.debugLink.file;
      candidates.push(join(dir, f), join(dir, '.debug', f), join('/usr/lib/debug', dir, f));
    }
    for (const c of candidates) {
      if (packed.has(c) || c === path || !existsSync(onHost(c))) continue;
      const d = take(c);
      if (typeof d === 'string') {
        input.missing.push({ path: c, why: d });
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
      if (elf.buildId === undefined && elf.debugLink !== undefined && crc32(d) !== elf.debugLink.crc)
        continue;
      input.files.push({ path: c, bytes: d, ...(id !== undefined && { buildId: id }), debugFor: path });
      packed.add(c);
      break;
    }
  }
  return {
    bytes: writeBundle(input),
    missing: input.missing,
    files: input.files.map((f) => ({
      path: f.path,
      size: f.bytes.length,
      ...(f.buildId !== undefined && { buildId: f.buildId }),
      ...(f.debugFor !== undefined && { debugFor: f.debugFor }),
    })),
  };
}
