// Workspaces kept in this browser (IndexedDB, never uploaded): each what was open, its inputs'
// roles and the view (core/view/workspace.ts), and the inputs' bytes, kept once however many
// workspaces share them (by content id). A reload, a `#ws=ID` link and Recent profiles open them
// again. Capped by count and size, oldest out. Records are checked as they are read: a damaged
// one is left out (and forgotten), never shown.

import { formatBytes } from '../core/text/units';
import type { InputRole } from '../core/types';
import {
  CONTENT_EDGE,
  contentId,
  type Workspace,
  type WorkspaceInput,
  workspaceSize,
} from '../core/view/workspace';
import { DATABASES, database, objectStore, request, storageProblem } from './idb';

/** At most this many workspaces and this many bytes of their inputs are kept. */
export const MAX_WORKSPACES = 8;
export const MAX_BYTES = 512 << 20;

const run = database(DATABASES[1], 1, [
  { name: 'workspaces', keyPath: 'id' },
  { name: 'contents', keyPath: 'id' },
]);

/**
 * Writes one after another: a keep's eviction must see the workspaces every earlier keep wrote
 * (else it would take the bytes another keep just stored for a workspace it has not seen).
 */
let writing: Promise<unknown> = Promise.resolve();
function exclusive<T>(f: () => Promise<T>): Promise<T> {
  const next = writing.then(f, f);
  writing = next.catch(() => {});
  return next;
}

interface ContentRecord {
  id: string;
  blob: Blob;
}

const ROLES = new Set<InputRole>([
  'profile',
  'baseline',
  'binary',
  'debug',
  'symbols',
  'source',
  'bundle',
  'folder',
]);

function isInput(x: unknown): x is WorkspaceInput {
  if (typeof x !== 'object' || x === null) return false;
  const i = x as Record<string, unknown>;
  return (
    ROLES.has(i.role as InputRole) &&
    typeof i.name === 'string' &&
    typeof i.size === 'number' &&
    (i.content === undefined || typeof i.content === 'string') &&
    (i.url === undefined || typeof i.url === 'string') &&
    (i.content !== undefined || i.url !== undefined)
  );
}

/** A record as read: a workspace, or null when it is not one (damaged, or from another version). */
export function asWorkspace(x: unknown): Workspace | null {
  if (typeof x !== 'object' || x === null) return null;
  const w = x as Record<string, unknown>;
  if (typeof w.id !== 'string' || typeof w.view !== 'string' || typeof w.when !== 'number') return null;
  if (!Array.isArray(w.inputs) || !w.inputs.every(isInput)) return null;
  return { id: w.id, view: w.view, when: w.when, inputs: w.inputs };
}

/** The content id of a file (its size and the bytes at both ends). */
export async function contentOf(blob: Blob): Promise<string> {
  const head = new Uint8Array(await blob.slice(0, CONTENT_EDGE).arrayBuffer());
  const tail =
    blob.size > CONTENT_EDGE
      ? new Uint8Array(await blob.slice(Math.max(CONTENT_EDGE, blob.size - CONTENT_EDGE)).arrayBuffer())
      : new Uint8Array(0);
  return contentId(blob.size, head, tail);
}

/** A short id for a new workspace. */
export function newWorkspaceId(): string {
  const r = new Uint32Array(2);
  crypto.getRandomValues(r);
  return `${r[0].toString(36)}${r[1].toString(36)}`.slice(0, 12);
}

/** Every kept workspace, newest first; damaged records are left out (and forgotten). */
export async function listWorkspaces(): Promise<Workspace[]> {
  await migrateRecent();
  return readAll();
}

async function readAll(): Promise<Workspace[]> {
  try {
    const raw = await run('readonly', ['workspaces'], (s) => request(s.workspaces.getAll()));
    const good = raw.map(asWorkspace).filter((w): w is Workspace => w !== null);
    if (good.length < raw.length) await forgetDamaged(raw);
    return good.sort((a, b) => b.when - a.when);
  } catch {
    return [];
  }
}

async function forgetDamaged(raw: unknown[]): Promise<void> {
  const bad = raw.filter((r) => asWorkspace(r) === null);
  try {
    await run('readwrite', ['workspaces'], async (s) => {
      for (const r of bad) {
        const id = (r as { id?: unknown })?.id;
        if (typeof id === 'string') await request(s.workspaces.delete(id));
      }
    });
  } catch {
    // Left as it is: it is never shown.
  }
}

/**
 * A kept workspace with its inputs' bytes (by content id); null when it is not kept. Inputs
 * whose bytes are gone are named in `lost`.
 */
export async function loadWorkspace(
  id: string,
): Promise<{ workspace: Workspace; blobs: Map<string, Blob>; lost: string[] } | null> {
  await migrateRecent();
  try {
    return await run('readonly', ['workspaces', 'contents'], async (s) => {
      const workspace = asWorkspace(await request(s.workspaces.get(id)));
      if (!workspace) return null;
      const blobs = new Map<string, Blob>();
      const lost: string[] = [];
      for (const i of workspace.inputs) {
        if (i.content === undefined || blobs.has(i.content)) continue;
        const rec = (await request(s.contents.get(i.content))) as ContentRecord | undefined;
        if (rec && rec.blob instanceof Blob) blobs.set(i.content, rec.blob);
        else lost.push(i.name);
      }
      return { workspace, blobs, lost };
    });
  } catch {
    return null;
  }
}

/**
 * Keeps a workspace (a new one, or a new state of one: its id), with the bytes of its inputs
 * (`blobs`, by content id; those kept already need not be given), then drops the oldest ones past
 * the caps and the bytes no workspace uses any more. Null when it was kept, else why it was not.
 */
export async function keepWorkspace(
  workspace: Workspace,
  blobs: ReadonlyMap<string, Blob>,
): Promise<string | null> {
  const size = workspaceSize(workspace);
  if (size > MAX_BYTES)
    return `its files (${formatBytes(size)}) are more than this page keeps (${formatBytes(MAX_BYTES)})`;
  try {
    await run('readwrite', ['workspaces', 'contents'], async (s) => {
      for (const i of workspace.inputs) {
        const blob = i.content === undefined ? undefined : blobs.get(i.content);
        if (blob === undefined) continue;
        const have = await request(s.contents.getKey(i.content!));
        if (have === undefined)
          await request(s.contents.put({ id: i.content!, blob } satisfies ContentRecord));
      }
      await request(s.workspaces.put(workspace));
    });
  } catch (e) {
    return storageProblem(e);
  }
  try {
    await evict();
  } catch {
    // Kept; what is past the caps goes at the next keep.
  }
  return null;
}

/** The view a kept workspace was last shown with (a URL hash), and when. */
export function rememberView(id: string, view: string): Promise<void> {
  return exclusive(async () => {
    try {
      await run('readwrite', ['workspaces'], async (s) => {
        const w = asWorkspace(await request(s.workspaces.get(id)));
        if (w && w.view !== view) await request(s.workspaces.put({ ...w, view, when: Date.now() }));
      });
    } catch {
      // The next keep writes it.
    }
  });
}

/** Past the caps, the oldest workspaces go; then the bytes no workspace uses. */
async function evict(): Promise<void> {
  const all = await readAll();
  let total = 0;
  const gone: string[] = [];
  const used = new Set<string>();
  for (const [i, w] of all.entries()) {
    total += workspaceSize(w);
    if (i >= MAX_WORKSPACES || total > MAX_BYTES) gone.push(w.id);
    else for (const input of w.inputs) if (input.content) used.add(input.content);
  }
  await run('readwrite', ['workspaces', 'contents'], async (s) => {
    for (const id of gone) await request(s.workspaces.delete(id));
    const keys = (await request(s.contents.getAllKeys())) as string[];
    for (const k of keys) if (!used.has(k)) await request(s.contents.delete(k));
  });
}

/** Forgets a workspace (or all of them), and the bytes no other one uses. */
export function forgetWorkspace(id?: string): Promise<void> {
  return exclusive(() => forgetNow(id));
}

async function forgetNow(id?: string): Promise<void> {
  try {
    if (id === undefined) {
      await run('readwrite', ['workspaces', 'contents'], async (s) => {
        await request(s.workspaces.clear());
        await request(s.contents.clear());
      });
      return;
    }
    await run('readwrite', ['workspaces'], (s) => request(s.workspaces.delete(id)));
    await evict();
  } catch {
    // Nothing kept, nothing to forget.
  }
}

/**
 * Removes these files (by name, or a path's last part, and size) from every workspace, where they
 * only support its profile (symbol files forgotten in this browser are not kept elsewhere).
 */
export function forgetWorkspaceFiles(files: readonly { name: string; size: number }[]): Promise<void> {
  return exclusive(() => forgetFilesNow(files));
}

async function forgetFilesNow(files: readonly { name: string; size: number }[]): Promise<void> {
  const gone = (i: WorkspaceInput) =>
    (i.role === 'binary' || i.role === 'debug' || i.role === 'symbols') &&
    files.some((g) => g.size === i.size && (g.name === i.name || g.name.endsWith(`/${i.name}`)));
  const changed = (await readAll())
    .filter((w) => w.inputs.some(gone))
    .map((w) => ({ ...w, inputs: w.inputs.filter((i) => !gone(i)) }));
  if (changed.length === 0) return;
  try {
    await run('readwrite', ['workspaces'], async (s) => {
      for (const w of changed) await request(s.workspaces.put(w));
    });
    await evict();
  } catch {
    // Left as they were.
  }
}

/**
 * Profiles kept by earlier versions (database `flamelens`, store `recent`: a profile and the files
 * dropped with it) become workspaces under the same ids, so `#local=ID` links still open them.
 */
let migrated: Promise<void> | null = null;
function migrateRecent(): Promise<void> {
  migrated ??= (async () => {
    if (typeof indexedDB === 'undefined' || typeof indexedDB.databases !== 'function') return;
    const names = (await indexedDB.databases()).map((d) => d.name);
    if (!names.includes(DATABASES[0])) return;
    const old = objectStore(DATABASES[0], 'recent', 'id');
    let entries: unknown[] = [];
    try {
      entries = await old<unknown[]>('readonly', (s) => s.getAll() as IDBRequest<unknown[]>);
    } catch {
      entries = [];
    }
    for (const e of entries) {
      const r = e as { id?: unknown; name?: unknown; when?: unknown; files?: unknown };
      if (typeof r.id !== 'string' || typeof r.name !== 'string' || !Array.isArray(r.files)) continue;
      const inputs: WorkspaceInput[] = [];
      const blobs = new Map<string, Blob>();
      for (const f of r.files as { name?: unknown; blob?: unknown }[]) {
        if (typeof f.name !== 'string' || !(f.blob instanceof Blob)) continue;
        const content = await contentOf(f.blob);
        blobs.set(content, f.blob);
        inputs.push({
          role: f.name === r.name ? 'profile' : 'binary',
          name: f.name,
          content,
          size: f.blob.size,
        });
      }
      const when = typeof r.when === 'number' ? r.when : Date.now();
      if (inputs.some((i) => i.role === 'profile'))
        await keepWorkspace({ id: r.id, inputs, view: `#ws=${r.id}`, when }, blobs);
    }
    await new Promise<void>((resolve) => {
      const req = indexedDB.deleteDatabase(DATABASES[0]);
      req.onsuccess = req.onerror = req.onblocked = () => resolve();
    });
  })().catch(() => {});
  return migrated;
}
