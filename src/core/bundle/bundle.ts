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
import { looksLikeZip, readZip, unsafeName, type ZipContents, type ZipMember } from './zip.ts';

export const MANIFEST = 'flamelens-bundle.json';

export interface BundleManifest {
  'flamelens-bundle': 1;
  /** ISO time it was made. */
  created: string;
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
  /**
   * The objects and debug files, named by their recorded paths, unpacked when first read
   * (`DroppedFile.fromBundle`).
   */
  symbols: DroppedFile[];
  /** Members that could not be used, objects the bundle lacks, manifest fields that do not hold. */
  warnings: ProfileWarning[];
  /** The manifest's valid entries (those that do not hold are warnings), or null without one. */
  manifest: BundleManifest | null;
}

const HEX = /^[0-9a-f]+$/i;
const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * The manifest's entries that hold, checked against its schema field by field (a manifest is
 * data from anyone: it is never trusted to have the shape we write), and one warning per field
 * that does not: the entry is left out, and its member is matched by its path instead.
 */
export function checkManifest(value: unknown, say: (message: string) => void): BundleManifest | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    say(`${MANIFEST} is not a JSON object: files are matched by path and name only`);
    return null;
  }
  const m = value as Record<string, unknown>;
  if (m['flamelens-bundle'] !== 1) {
    say(
      `${MANIFEST}: "flamelens-bundle" is ${JSON.stringify(m['flamelens-bundle']) ?? 'missing'}, not 1: files are matched by path and name only`,
    );
    return null;
  }
  const out: BundleManifest = { 'flamelens-bundle': 1, created: '', profiles: [], files: [], missing: [] };
  if (m.created !== undefined && typeof m.created !== 'string')
    say(`${MANIFEST}: "created" is not a string: ignored`);
  else if (typeof m.created === 'string') out.created = m.created;
  const list = (key: 'profiles' | 'files' | 'missing'): unknown[] => {
    const v = m[key];
    if (v === undefined) return [];
    if (Array.isArray(v)) return v;
    say(`${MANIFEST}: "${key}" is not a list: ignored`);
    return [];
  };
  const entry = (
    key: string,
    i: number,
    v: unknown,
    fields: Record<string, (x: unknown) => boolean>,
    optional: string[] = [],
  ) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      say(`${MANIFEST}: ${key}[${i}] is not an object: ignored`);
      return null;
    }
    const o = v as Record<string, unknown>;
    for (const [f, ok] of Object.entries(fields)) {
      if (o[f] === undefined && optional.includes(f)) continue;
      if (!ok(o[f])) {
        say(
          `${MANIFEST}: ${key}[${i}].${f} is ${o[f] === undefined ? 'missing' : `not valid (${JSON.stringify(o[f]).slice(0, 80)})`}: the entry is ignored`,
        );
        return null;
      }
    }
    return o;
  };
  list('profiles').forEach((v, i) => {
    const o = entry('profiles', i, v, { name: isText, member: isText });
    if (o) out.profiles.push({ name: o.name as string, member: o.member as string });
  });
  list('files').forEach((v, i) => {
    const o = entry(
      'files',
      i,
      v,
      {
        path: (x) => isText(x) && x.startsWith('/'),
        member: isText,
        buildId: (x) => typeof x === 'string' && HEX.test(x) && x.length <= 128,
        size: (x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0,
        debugFor: (x) => isText(x) && x.startsWith('/'),
      },
      ['buildId', 'size', 'debugFor'],
    );
    if (!o) return;
    out.files.push({
      path: o.path as string,
      member: o.member as string,
      size: (o.size as number | undefined) ?? 0,
      ...(o.buildId !== undefined && { buildId: o.buildId as string }),
      ...(o.debugFor !== undefined && { debugFor: o.debugFor as string }),
    });
  });
  list('missing').forEach((v, i) => {
    const o = entry('missing', i, v, { path: isText, why: (x) => typeof x === 'string' });
    if (o) out.missing.push({ path: o.path as string, why: o.why as string });
  });
  return out;
}

/** A bundle's object, unpacked when its `bytes` are first read (a damaged member then throws). */
function bundled(
  name: string,
  member: ZipMember,
  bundle: string,
  extra: Partial<DroppedFile> = {},
): DroppedFile {
  const f: DroppedFile = {
    name,
    bytes: new Uint8Array(0),
    ...extra,
    fromBundle: { bundle, ...extra.fromBundle },
  };
  Object.defineProperty(f, 'bytes', { enumerable: true, configurable: true, get: () => member.bytes });
  return f;
}

/** The profiles and symbol files of a bundle. Throws a ProfileError when it is no readable archive. */
export function openBundle(f: DroppedFile): OpenedBundle {
  const { members, errors } = readArchive(f);
  const warnings: ProfileWarning[] = errors.map((e) => ({
    message: `${f.name}: ${e.message}`,
    offset: e.offset,
  }));
  const say = (message: string) => warnings.push({ message: `${f.name}: ${message}` });
  const byName = new Map(members.map((m) => [m.name, m]));
  /** A member's bytes, or null (and a warning) when it is damaged. */
  const read = (m: ZipMember): Uint8Array | null => {
    try {
      return m.bytes;
    } catch (e) {
      if (!(e instanceof ProfileError)) throw e;
      warnings.push({ message: `${f.name}: ${e.message}`, offset: e.offset });
      return null;
    }
  };
  let manifest: BundleManifest | null = null;
  const manifestMember = byName.get(MANIFEST);
  if (manifestMember !== undefined) {
    const bytes = read(manifestMember);
    let json: unknown;
    try {
      json = bytes === null ? undefined : JSON.parse(new TextDecoder().decode(bytes));
      manifest = checkManifest(json, say);
    } catch (e) {
      say(
        `${MANIFEST} is unreadable (${e instanceof Error ? e.message : e}): files are matched by path and name only`,
      );
    }
  }
  const profiles: DroppedFile[] = [];
  const symbols: DroppedFile[] = [];
  const used = new Set<string>([MANIFEST]);
  if (manifest) {
    for (const p of manifest.profiles) {
      const m = byName.get(p.member);
      if (m === undefined || used.has(p.member)) continue;
      used.add(p.member);
      const bytes = read(m);
      if (bytes !== null) profiles.push({ name: p.name, bytes });
    }
    for (const x of manifest.files) {
      const m = byName.get(x.member);
      if (m === undefined || used.has(x.member)) continue; // its member's error is already a warning
      used.add(x.member);
      const extra: Partial<DroppedFile> = {
        fromBundle: { bundle: f.name, ...(x.debugFor && { debugFor: x.debugFor }) },
      };
      if (x.buildId && !x.debugFor) extra.recordedBuildId = x.buildId.toLowerCase();
      symbols.push(bundled(x.path, m, f.name, extra));
    }
    for (const m of manifest.missing)
      warnings.push({ message: `${f.name}: the bundle lacks ${m.path} (${m.why}): its frames stay unnamed` });
  }
  // Members the manifest does not list (or all of them, without one): objects under files/ by
  // their path (unpacked when wanted), profiles under profiles/, anything else by what it holds.
  for (const m of members) {
    if (used.has(m.name)) continue;
    if (m.name.startsWith('files/')) {
      symbols.push(bundled(m.name.slice('files'.length), m, f.name));
      continue;
    }
    const bytes = read(m);
    if (bytes === null) continue;
    if (!m.name.startsWith('profiles/') && isSymbolBytes(bytes)) symbols.push({ name: m.name, bytes });
    else profiles.push({ name: m.name.replace(/^profiles\//, ''), bytes });
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
}

/** A bundle as zip bytes (profiles and files deflated; the manifest first). */
export function writeBundle(input: BundleInput): Uint8Array {
  const manifest: BundleManifest = {
    'flamelens-bundle': 1,
    created: input.created ?? new Date().toISOString(),
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
    // `files/` and the path without empty or `.` parts: a name every reader takes (unsafeName).
    const parts = x.path.split('/').filter((p) => p !== '' && p !== '.');
    const member = unique(`files/${parts.join('/')}`);
    const unsafe = unsafeName(member);
    if (unsafe !== null) throw new Error(`${x.path}: not packed: ${unsafe}`);
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
