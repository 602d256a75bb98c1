// What is open, as one value: the workspace's inputs, each with its role (core/types.ts InputRole)
// and where its bytes are (a content id in this browser's store, or a link's URL), and the view
// it is shown with. It is kept as a unit (a reload, Back/Forward and Recent profiles restore it
// exactly) and the link names it (`#ws=ID&…view…`). Pure: no storage, no DOM.

import type { InputNote, InputRole } from '../types';

export interface WorkspaceInput {
  role: InputRole;
  /** The name it was given under: a file's name, its path in a folder, or a link's file name. */
  name: string;
  /** Where its bytes are kept in this browser (contentId of them); absent for a link's input. */
  content?: string;
  /** A link's input (`profileURL`, `baseURL`, `bin=`): fetched again to restore it. */
  url?: string;
  /** Bytes (0 for a link's input, whose size is not known until fetched). */
  size: number;
  /** For a file a dropped folder gave: the folder's name. */
  folder?: string;
}

export interface Workspace {
  id: string;
  inputs: WorkspaceInput[];
  /** The view it was last shown with (a URL hash, core/view/schema.ts encodeView). */
  view: string;
  /** Last shown (ms since the epoch). */
  when: number;
}

/** The roles that name frames or add text: they serve whichever profile is open. */
const SUPPORTING: ReadonlySet<InputRole> = new Set<InputRole>([
  'binary',
  'debug',
  'symbols',
  'source',
  'folder',
]);

/** The title a workspace is listed under: its profile (and baseline) file names. */
export function workspaceTitle(w: Pick<Workspace, 'inputs'>): string {
  const main = w.inputs.find((i) => i.role === 'profile' || i.role === 'bundle');
  const base = w.inputs.find((i) => i.role === 'baseline');
  const name = main?.name ?? '(no profile)';
  return base ? `${name} compared with ${base.name}` : name;
}

/** The total size of a workspace's kept inputs. */
export function workspaceSize(w: Pick<Workspace, 'inputs'>): number {
  return w.inputs.reduce((t, i) => t + i.size, 0);
}

/**
 * The inputs after files were added and the worker said what each was (`notes`, by the name each
 * was given under; files it could not use are not listed and not kept). A new profile starts the
 * workspace over (its supporting files given with it stay); a new baseline replaces the previous
 * one; a file given again under the same name and role replaces the earlier one.
 */
export function withInputs(
  inputs: readonly WorkspaceInput[],
  given: readonly Omit<WorkspaceInput, 'role'>[],
  notes: readonly InputNote[],
): WorkspaceInput[] {
  const roleOf = new Map(notes.map((n) => [n.name, n.role]));
  const added: WorkspaceInput[] = [];
  for (const g of given) {
    const role = roleOf.get(g.name);
    if (role !== undefined) added.push({ ...g, role });
  }
  const opensProfile = added.some((a) => a.role === 'profile' || a.role === 'bundle');
  const newBase = added.some((a) => a.role === 'baseline');
  const kept = opensProfile
    ? []
    : inputs.filter(
        (i) =>
          !(newBase && i.role === 'baseline') && !added.some((a) => a.name === i.name && a.role === i.role),
      );
  return [...kept, ...added];
}

/** The comparison swapped: the profile becomes the baseline and the baseline the profile. */
export function swappedInputs(inputs: readonly WorkspaceInput[]): WorkspaceInput[] {
  return inputs.map((i) =>
    i.role === 'profile' ? { ...i, role: 'baseline' } : i.role === 'baseline' ? { ...i, role: 'profile' } : i,
  );
}

/**
 * How to open a workspace again: first its profile (or bundle) with every supporting file, as one
 * drop; then its baseline, if it has one, to compare with.
 */
export function restorePlan<T extends WorkspaceInput>(inputs: readonly T[]): { main: T[]; base: T | null } {
  const profile = inputs.filter((i) => i.role === 'profile' || i.role === 'bundle');
  const rest = inputs.filter((i) => SUPPORTING.has(i.role));
  return { main: [...profile, ...rest], base: inputs.find((i) => i.role === 'baseline') ?? null };
}

/**
 * A content id for a file's bytes: its size and a 64-bit FNV-1a hash of its first and last
 * `edge` bytes (the whole of a small file), as 20 base-36 digits at most. Files of one name,
 * size and edges are taken as the same (a profile's header and trailer, an ELF file's headers and
 * section table, differ between any two builds or recordings).
 */
export function contentId(size: number, head: Uint8Array, tail: Uint8Array): string {
  // Two 32-bit FNV-1a lanes with different offsets: 64 bits without BigInt in the loop.
  let a = 0x811c9dc5;
  let b = 0xcbf29ce4;
  const mix = (x: number) => {
    a = Math.imul(a ^ x, 0x01000193);
    b = Math.imul(b ^ x, 0x01000193) ^ (a >>> 7);
  };
  for (let s = size; s > 0; s = Math.floor(s / 256)) mix(s & 255);
  for (let i = 0; i < head.length; i++) mix(head[i]);
  mix(0x1f);
  for (let i = 0; i < tail.length; i++) mix(tail[i]);
  return `${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`;
}

/** How many bytes of each end of a file contentId reads. */
export const CONTENT_EDGE = 64 << 10;
