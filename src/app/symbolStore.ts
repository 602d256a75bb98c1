// Symbol files remembered between visits: every ELF binary, library, debug file or nm listing
// dropped (or taken from a folder) is kept in this browser's IndexedDB, keyed by its build-id and
// kind (a library and its separate debug file share a build-id: both are kept), or, without a
// build-id, by its name and size; never uploaded. A profile opened later, even another profile of
// the same program, takes the remembered files its mapped files want (by build-id, else by name),
// so after a reload dropping the profile alone symbolizes it. Capped in bytes, least recently used
// first out; listed with Forget buttons in the Symbols panel and on the start page.

import { buildIdFromHead, looksLikeElf } from '../core/symbols/elf';
import { sonameOf } from '../core/symbols/match';
import { looksLikeNm } from '../core/symbols/nm';
import { HEAD_BYTES } from '../core/symbols/pick';
import { basename } from '../core/text/names';
import type { MappingInfo } from '../core/types';
import { DATABASES, objectStore, storageProblem } from './idb';

const DB = DATABASES[2];
const STORE = 'files';
/** At most this many bytes are kept in all; a single file over the cap is not kept. */
export const MAX_SYMBOL_BYTES = 1 << 30;
const ENABLED = 'flamelens:remember-symbols';

/** What a remembered file is: an object, a separate debug file, or an nm listing. */
export type SymbolKind = 'binary' | 'debug' | 'symbols';

export interface RememberedMeta {
  /** `BUILDID:KIND` (the build-id in lowercase hex), or `name:size` for files without one. */
  key: string;
  kind?: SymbolKind;
  /** The file's name (or its path in a folder). */
  name: string;
  buildId?: string;
  size: number;
  /** Last kept or used (ms since the epoch). */
  when: number;
}

export interface Remembered extends RememberedMeta {
  blob: Blob;
}

/** Whether dropped symbol files are remembered (on unless turned off in this browser). */
export function rememberingOn(): boolean {
  try {
    return localStorage.getItem(ENABLED) !== 'off';
  } catch {
    return false;
  }
}

export function setRemembering(on: boolean): void {
  try {
    localStorage.setItem(ENABLED, on ? 'on' : 'off');
  } catch {
    // No storage: nothing is remembered either way.
  }
}

const tx = objectStore(DB, STORE, 'key');

const KINDS = new Set<unknown>(['binary', 'debug', 'symbols']);

/** A record as read: a remembered file, or null when it is not one (damaged, another version's). */
export function asRemembered(x: unknown): Remembered | null {
  if (typeof x !== 'object' || x === null) return null;
  const r = x as Record<string, unknown>;
  const ok =
    typeof r.key === 'string' &&
    typeof r.name === 'string' &&
    typeof r.size === 'number' &&
    typeof r.when === 'number' &&
    Number.isFinite(r.when) &&
    r.blob instanceof Blob &&
    (r.kind === undefined || KINDS.has(r.kind)) &&
    (r.buildId === undefined || (typeof r.buildId === 'string' && /^[0-9a-f]+$/.test(r.buildId)));
  if (!ok) return null;
  const { key, name, size, when, blob, kind, buildId } = r as unknown as Remembered;
  return { key, name, size, when, blob, ...(kind && { kind }), ...(buildId && { buildId }) };
}

/**
 * Every remembered file with its blob, most recently used first; [] without IndexedDB. Damaged
 * records are left out and forgotten.
 */
async function all(): Promise<Remembered[]> {
  let raw: unknown[];
  try {
    raw = await tx<unknown[]>('readonly', (s) => s.getAll() as IDBRequest<unknown[]>);
  } catch {
    return [];
  }
  const good: Remembered[] = [];
  for (const r of raw) {
    const f = asRemembered(r);
    if (f) good.push(f);
    else {
      const key = (r as { key?: unknown } | null)?.key;
      if (typeof key === 'string') await forgetRemembered(key);
    }
  }
  return good.sort((a, b) => b.when - a.when);
}

/** What is remembered (no blobs), most recently used first. */
export async function listRemembered(): Promise<RememberedMeta[]> {
  return (await all()).map(({ blob: _blob, ...meta }) => meta);
}

/**
 * The key and build-id of a symbol file of `kind` (the worker says which: core/analysis/inputs.ts),
 * or null when it is no ELF file or nm listing.
 */
export async function identify(
  file: Blob,
  name: string,
  kind: SymbolKind,
): Promise<{ key: string; buildId?: string } | null> {
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  if (looksLikeElf(head)) {
    const buildId = buildIdFromHead(head);
    return buildId ? { key: `${buildId}:${kind}`, buildId } : { key: `${basename(name)}:${file.size}` };
  }
  return looksLikeNm(head) ? { key: `${basename(name)}:${file.size}` } : null;
}

/**
 * Keeps the symbol files among `files` (others are skipped), then drops the least recently used
 * past the cap. Does nothing when remembering is off. Null, or why they could not be kept.
 */
export async function remember(
  files: readonly { name: string; blob: Blob; kind: SymbolKind }[],
): Promise<string | null> {
  if (!rememberingOn()) return null;
  try {
    for (const f of files) {
      if (f.blob.size > MAX_SYMBOL_BYTES) continue;
      const id = await identify(f.blob, f.name, f.kind);
      if (!id) continue;
      const entry: Remembered = {
        ...id,
        kind: f.kind,
        name: f.name,
        size: f.blob.size,
        when: Date.now(),
        blob: f.blob,
      };
      await tx('readwrite', (s) => s.put(entry));
    }
  } catch (e) {
    // The files still work for this visit.
    return storageProblem(e);
  }
  let total = 0;
  for (const e of await listRemembered()) {
    total += e.size;
    if (total > MAX_SYMBOL_BYTES) await forgetRemembered(e.key);
  }
  return null;
}

/** Forgets a remembered file (by key), or all of them. */
export async function forgetRemembered(key?: string): Promise<void> {
  try {
    await tx('readwrite', (s) => (key === undefined ? s.clear() : s.delete(key)));
  } catch {
    // Nothing kept, nothing to forget.
  }
}

/**
 * The remembered files a profile's mapped files want: for each mapped file, the one with its
 * build-id, else the most recently used one with its name (or `NAME.debug`) — of its build-id, or
 * an nm listing, when the mapping names one; then the debug files sharing a chosen file's
 * build-id. `files` most recently used first.
 */
export function rememberedFor(
  mappings: readonly Pick<MappingInfo, 'path' | 'buildId'>[],
  files: readonly RememberedMeta[],
): RememberedMeta[] {
  const chosen = new Set<RememberedMeta>();
  for (const m of mappings) {
    if (m.path === '' || m.path.startsWith('[')) continue;
    const id = m.buildId?.toLowerCase();
    const base = basename(m.path);
    const named = (f: RememberedMeta) => {
      const b = basename(f.name);
      return b === base || b === `${base}.debug` || sonameOf(b, base);
    };
    // A mapping with a build-id takes that build: an ELF file without one is another build; an nm
    // listing (which has none) is taken by its name.
    const pick =
      (id !== undefined ? files.find((f) => f.buildId === id) : undefined) ??
      files.find(
        (f) =>
          named(f) &&
          (id === undefined || f.buildId === id || (f.buildId === undefined && f.kind === 'symbols')),
      );
    if (pick) chosen.add(pick);
  }
  for (const c of [...chosen])
    if (c.buildId) for (const f of files) if (f.buildId === c.buildId) chosen.add(f);
  return [...chosen];
}

/** The files rememberedFor chooses, as Files named as they were dropped, marked used now. */
export async function recall(
  mappings: readonly Pick<MappingInfo, 'path' | 'buildId'>[],
  skip: ReadonlySet<string>,
): Promise<File[]> {
  if (!rememberingOn()) return [];
  const kept = await all();
  const want = rememberedFor(
    mappings.filter((m) => !skip.has(m.path)),
    kept,
  );
  const out: File[] = [];
  for (const meta of want) {
    const r = kept.find((k) => k.key === meta.key)!;
    out.push(new File([r.blob], r.name));
    try {
      await tx('readwrite', (s) => s.put({ ...r, when: Date.now() }));
    } catch {
      // Order of eviction only.
    }
  }
  return out;
}
