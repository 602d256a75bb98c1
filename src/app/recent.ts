// Recently opened local profiles, kept in this browser (IndexedDB, never uploaded) with the symbol
// files dropped for them, so that a reload or a link to `#local=ID` opens them again. Capped by
// count and size; the start page lists them with a "forget" control.

import { objectStore } from './idb';

const DB = 'flamelens';
const STORE = 'recent';
/** At most this many profiles and this many bytes (profiles and their binaries) are kept. */
export const MAX_ENTRIES = 8;
export const MAX_BYTES = 512 << 20;

export interface RecentFile {
  name: string;
  blob: Blob;
}

export interface RecentEntry {
  id: string;
  /** The profile's file name. */
  name: string;
  when: number;
  size: number;
  files: RecentFile[];
}

const tx = objectStore(DB, STORE, 'id');

/** Every kept profile, newest first. */
export async function listRecent(): Promise<RecentEntry[]> {
  try {
    const all = await tx<RecentEntry[]>('readonly', (s) => s.getAll() as IDBRequest<RecentEntry[]>);
    return all.sort((a, b) => b.when - a.when);
  } catch {
    return [];
  }
}

export async function loadRecent(id: string): Promise<RecentEntry | null> {
  try {
    return (await tx<RecentEntry | undefined>('readonly', (s) => s.get(id))) ?? null;
  } catch {
    return null;
  }
}

/**
 * Keeps (or updates: symbol files dropped later join their profile's entry) an entry, then drops
 * the oldest ones past the caps. Returns its id, or null when nothing could be kept.
 */
export async function keepRecent(id: string, name: string, files: RecentFile[]): Promise<string | null> {
  try {
    const old = await loadRecent(id);
    const byName = new Map((old?.files ?? []).map((f) => [f.name, f]));
    for (const f of files) byName.set(f.name, f);
    const kept = [...byName.values()];
    const size = kept.reduce((t, f) => t + f.blob.size, 0);
    if (size > MAX_BYTES) return null;
    await tx('readwrite', (s) =>
      s.put({ id, name, when: Date.now(), size, files: kept } satisfies RecentEntry),
    );
    const all = await listRecent();
    let total = 0;
    for (const [i, e] of all.entries()) {
      total += e.size;
      if (i >= MAX_ENTRIES || total > MAX_BYTES) await forgetRecent(e.id);
    }
    return id;
  } catch {
    return null;
  }
}

export async function forgetRecent(id?: string): Promise<void> {
  try {
    await tx('readwrite', (s) => (id === undefined ? s.clear() : s.delete(id)));
  } catch {
    // Nothing kept, nothing to forget.
  }
}

/** A short id for a profile: its name, size and time, hashed (stable across reloads). */
export function recentId(f: File): string {
  let h = 0x811c9dc5;
  for (const c of `${f.name}\0${f.size}\0${f.lastModified}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (h >>> 0).toString(36);
}

/** Removes these files (by name, or path's last part, and size) from every kept profile's entry. */
export async function forgetRecentFiles(files: readonly { name: string; size: number }[]): Promise<void> {
  const gone = (f: RecentFile) =>
    files.some((g) => g.size === f.blob.size && (g.name === f.name || g.name.endsWith(`/${f.name}`)));
  for (const e of await listRecent()) {
    // The profile itself stays.
    const kept = e.files.filter((f) => f.name === e.name || !gone(f));
    if (kept.length === e.files.length) continue;
    const size = kept.reduce((t, f) => t + f.blob.size, 0);
    try {
      await tx('readwrite', (s) => s.put({ ...e, files: kept, size } satisfies RecentEntry));
    } catch {
      // Left as it was.
    }
  }
}
