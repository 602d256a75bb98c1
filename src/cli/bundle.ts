// `flamelens bundle`: run where the profile was recorded; packs the profile(s) with every mapped
// ELF object that exists on this machine, and their separate debug files (by build-id under
// /usr/lib/debug/.build-id, or by `.gnu_debuglink` where gdb looks), into one zip
// (core/bundle/bundle.ts says its layout). `root` prefixes every path looked up (tests pack
// against a copy of a system's files); root.ts finds the files and refuses what a crafted maps
// text could name: `..`, /proc, /sys, /dev, links out of the root, anything but a regular ELF file.
// The bundle travels to others: its manifest names no host, and of what was not packed only the
// paths (the profile names them anyway), never why (`/etc/shadow: not an ELF file` would say the
// file exists here).

import { type BundleInput, writeBundle } from '../core/bundle/bundle.ts';
import { parse } from '../core/pipeline.ts';
import { findMappedFiles } from './root.ts';

export interface BundleOptions {
  /** Prefix of every path looked up ('' or '/': this machine's). */
  root: string;
  /** Pack separate debug files (default true). */
  debug: boolean;
  /** Leave out files larger than this many bytes. */
  maxSize?: number;
  /** Look for what `root` lacks on this machine too (root.ts FindOptions.fallback). */
  fallbackToHost?: boolean;
}

export interface BundleResult {
  bytes: Uint8Array;
  /** What the bundle lacks, and why: printed as warnings. */
  missing: { path: string; why: string }[];
  /** The files packed from this machine, the root lacking them (`fallbackToHost`). */
  fromHost: string[];
  files: { path: string; size: number; buildId?: string; debugFor?: string }[];
}

/**
 * Packs the profiles (path and bytes) with the objects their mappings name. Throws a ProfileError
 * when a profile cannot be parsed (its mappings are what the bundle is made of).
 */
export function makeBundle(
  profiles: { path: string; bytes: Uint8Array }[],
  opts: BundleOptions,
): BundleResult {
  const paths: string[] = [];
  const buildIds = new Map<string, string>();
  for (const p of profiles) {
    const { raw } = parse(p.bytes, p.path.split('/').pop()!);
    for (const m of raw.meta.mappings) {
      if (!paths.includes(m.path)) paths.push(m.path);
      if (m.buildId !== undefined) buildIds.set(m.path, m.buildId);
    }
  }
  const found = findMappedFiles(paths, {
    root: opts.root,
    debug: opts.debug,
    ...(opts.maxSize !== undefined && { maxSize: opts.maxSize }),
    ...(opts.fallbackToHost && { fallback: '', buildIds }),
  });
  // The manifest travels: the paths the profile names that are not in it, without the reasons.
  const input: BundleInput = {
    profiles: profiles.map((p) => ({ name: p.path.split('/').pop()!, bytes: p.bytes })),
    files: found.files,
    missing: found.missing.map((m) => ({ path: m.path, why: 'not bundled' })),
  };
  return {
    bytes: writeBundle(input),
    missing: found.missing,
    fromHost: found.fromFallback,
    files: input.files.map((f) => ({
      path: f.path,
      size: f.bytes.length,
      ...(f.buildId !== undefined && { buildId: f.buildId }),
      ...(f.debugFor !== undefined && { debugFor: f.debugFor }),
    })),
  };
}
