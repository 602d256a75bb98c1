// Bundles: one file that carries profile(s) and the mapped objects they name, made where the
// profile was recorded (`flamelens bundle`, a zip; or the README's shell script, a tar.gz), and
// opened anywhere by dropping it. Layout, both kinds:
//
//   flamelens-bundle.json          the manifest (zip only): profiles, files with path and build-id
//   profiles/NAME                  each profile
//   files/ABSOLUTE/PATH            each object at the path the profile maps it from, and debug
//                                  files (files/usr/lib/debug/.build-id/ab/cdef….debug)
//
// Opening a bundle gives DroppedFiles: the profile, and its objects named by their recorded paths
// with the build-id each had (withRecordedBuildIds makes it the mapping's), so the core matches
// them exactly, and reports a file of another build (dropped beside it, or damaged) as a mismatch.

import { Inflate, zipSync } from 'fflate';
import { isGzip, maybeGunzip } from '../formats/detect.ts';
import type { DroppedFile } from '../formats/importer.ts';
import { looksLikeElf } from '../symbols/elf.ts';
import { looksLikeNm } from '../symbols/nm.ts';
import { ProfileError, type ProfileWarning } from '../types.ts';
import { looksLikeTar, readTar } from './tar.ts';
import { looksLikeZip, readZip, type ZipContents } from './zip.ts';

export const MANIFEST = 'flamelens-bundle.json';

export interface BundleManifest {
  'flamelens-bundle': 1;
  /** ISO time it was made. */
  created: string;
  host?: string;
  profiles: { name: string; member: string }[];
  files: {
    /** Where the file was on the recording machine (the path the profile maps). */
    path: string;
    member: string;
    buildId?: string;
    size: number;
    /** For a separate debug file: the object it describes. */
    debugFor?: string;
  }[];
  /** Mapped objects the bundle could not pack, and why. */
  missing: { path: string; why: string }[];
}

/** The first bytes of a gzip member's data (at most `n`), without inflating all of it. */
export function gunzipHead(b: Uint8Array, n: number): Uint8Array {
  let head = new Uint8Array(0);
  try {
    const flags = b[3];
    let start = 10;
    if (flags & 4) start += (b[10] | (b[11] << 8)) + 2;
    for (const flag of [8, 16]) {
      if (!(flags & flag)) continue;
      while (start < b.length && b[start] !== 0) start++;
      start++;
    }
    if (flags & 2) start += 2;
    const inf = new Inflate((chunk) => {
      if (head.length < n) {
        const next = new Uint8Array(head.length + chunk.length);
        next.set(head);
        next.set(chunk, head.length);
        head = next;
      }
    });
    for (let o = start; o < b.length && head.length < n; o += 16384)
      inf.push(b.subarray(o, Math.min(b.length, o + 16384)), false);
  } catch {
    // Damaged gzip: not a bundle (the profile parsers say what is wrong with it).
  }
  return head.subarray(0, n);
}

/** A zip archive, a tar archive, or a gzipped tar. */
export function looksLikeBundle(b: Uint8Array): boolean {
  return looksLikeZip(b) || looksLikeTar(b) || (isGzip(b) && looksLikeTar(gunzipHead(b, 512)));
}

function readArchive(f: DroppedFile): ZipContents {
  if (looksLikeZip(f.bytes)) return readZip(f.bytes, f.name);
  const data = isGzip(f.bytes) ? maybeGunzip(f.bytes) : f.bytes;
  return readTar(data, f.name);
}

const isSymbolBytes = (b: Uint8Array) => looksLikeElf(b) || looksLikeNm(b);

export interface OpenedBundle {
  /** The profiles, in the manifest's order (else the archive's). */
  profiles: DroppedFile[];
  /** The objects and debug files, named by their recorded paths. */
  symbols: DroppedFile[];
  /** Members that could not be used, objects the bundle lacks, a manifest that does not hold. */
  warnings: ProfileWarning[];
  manifest: BundleManifest | null;
}

/** The profiles and symbol files of a bundle. Throws a ProfileError when it is no readable archive. */
export function openBundle(f: DroppedFile): OpenedBundle {
  const { members, errors } = readArchive(f);
  const warnings: ProfileWarning[] = errors.map((e) => ({
    message: `${f.name}: ${e.message}`,
    offset: e.offset,
  }));
  const byName = new Map(members.map((m) => [m.name, m.bytes]));
  let manifest: BundleManifest | null = null;
  const manifestBytes = byName.get(MANIFEST);
  if (manifestBytes !== undefined) {
    try {
      const m = JSON.parse(new TextDecoder().decode(manifestBytes)) as BundleManifest;
      if (m['flamelens-bundle'] !== 1 || !Array.isArray(m.profiles) || !Array.isArray(m.files))
        throw new Error('not a flamelens bundle manifest of version 1');
      manifest = m;
    } catch (e) {
      warnings.push({
        message: `${f.name}: ${MANIFEST} is unreadable (${e instanceof Error ? e.message : e}): files are matched by path and name only`,
      });
    }
  }
  const profiles: DroppedFile[] = [];
  const symbols: DroppedFile[] = [];
  const used = new Set<string>([MANIFEST]);
  if (manifest) {
    for (const p of manifest.profiles) {
      const bytes = byName.get(p.member);
      used.add(p.member);
      if (bytes !== undefined) profiles.push({ name: p.name, bytes });
    }
    for (const x of manifest.files) {
      const bytes = byName.get(x.member);
      used.add(x.member);
      if (bytes === undefined) continue; // its member's error is already a warning
      const file: DroppedFile = { name: x.path, bytes };
      if (x.buildId && !x.debugFor) file.recordedBuildId = x.buildId.toLowerCase();
      symbols.push(file);
    }
    for (const m of manifest.missing ?? [])
      warnings.push({ message: `${f.name}: the bundle lacks ${m.path} (${m.why}): its frames stay unnamed` });
  }
  // Members the manifest does not list (or all of them, without one): objects under files/ by
  // their path, profiles under profiles/ or anything that is no symbol file.
  for (const m of members) {
    if (used.has(m.name)) continue;
    if (m.name.startsWith('files/') && isSymbolBytes(m.bytes))
      symbols.push({ name: m.name.slice('files'.length), bytes: m.bytes });
    else if (isSymbolBytes(m.bytes)) symbols.push({ name: m.name, bytes: m.bytes });
    else profiles.push({ name: m.name.replace(/^profiles\//, ''), bytes: m.bytes });
  }
  return { profiles, symbols, warnings, manifest };
}

/**
 * The dropped files with each bundle among them replaced by its contents: one profile (the one
 * named `profile`, else the first) carrying the bundle's warnings, and its symbol files. Other
 * profiles of the bundle are named in a warning.
 */
export function expandBundles(files: readonly DroppedFile[], opts: { profile?: string } = {}): DroppedFile[] {
  const out: DroppedFile[] = [];
  for (const f of files) {
    if (!looksLikeBundle(f.bytes)) {
      out.push(f);
      continue;
    }
    const b = openBundle(f);
    const warnings = [...(f.warnings ?? []), ...b.warnings];
    let pick = b.profiles[0];
    if (opts.profile !== undefined) {
      pick = b.profiles.find((p) => p.name === opts.profile) as DroppedFile;
      if (pick === undefined)
        throw new ProfileError(
          `${f.name}: the bundle holds no profile named ${opts.profile} (it holds: ${b.profiles.map((p) => p.name).join(', ') || 'none'})`,
          'unknown',
        );
    }
    if (b.profiles.length > 1)
      warnings.unshift({
        message: `${f.name} holds ${b.profiles.length} profiles; showing ${pick.name} (the others: ${b.profiles
          .filter((p) => p !== pick)
          .map((p) => p.name)
          .join(', ')})`,
      });
    if (pick !== undefined) out.push({ ...pick, name: pick.name, warnings });
    out.push(...b.symbols);
  }
  return out;
}

export interface BundleInput {
  profiles: { name: string; bytes: Uint8Array }[];
  files: { path: string; bytes: Uint8Array; buildId?: string; debugFor?: string }[];
  missing: { path: string; why: string }[];
  created?: string;
  host?: string;
}

/** A bundle as zip bytes (profiles and files deflated; the manifest first). */
export function writeBundle(input: BundleInput): Uint8Array {
  const manifest: BundleManifest = {
    'flamelens-bundle': 1,
    created: input.created ?? new Date().toISOString(),
    ...(input.host !== undefined && { host: input.host }),
    profiles: [],
    files: [],
    missing: input.missing,
  };
  const entries: Record<string, Uint8Array> = {};
  const taken = new Set<string>();
  const unique = (name: string) => {
    let n = name;
    for (let i = 2; taken.has(n); i++) n = name.replace(/(\.[^./]*)?$/, (ext) => `-${i}${ext}`);
    taken.add(n);
    return n;
  };
  for (const p of input.profiles) {
    const member = unique(`profiles/${p.name.split('/').pop()}`);
    manifest.profiles.push({ name: member.slice('profiles/'.length), member });
    entries[member] = p.bytes;
  }
  for (const x of input.files) {
    const member = unique(`files/${x.path.replace(/^\/+/, '')}`);
    manifest.files.push({
      path: x.path,
      member,
      ...(x.buildId !== undefined && { buildId: x.buildId }),
      size: x.bytes.length,
      ...(x.debugFor !== undefined && { debugFor: x.debugFor }),
    });
    entries[member] = x.bytes;
  }
  const json = new TextEncoder().encode(`${JSON.stringify(manifest, null, 1)}\n`);
  return zipSync({ [MANIFEST]: json, ...entries }, { level: 6 });
}
