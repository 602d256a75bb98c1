// Choosing, from a dropped folder (a sysroot copy, a `.build-id` tree, a build directory), the few
// files that can symbolize a profile, without reading the rest: by build-id (a `.build-id/ab/cdef…`
// path names it; a mapping may carry one), then by path suffix, then by file name. Only the first
// bytes of name candidates are read (their build-id: buildIdFromHead), to confirm a build and to
// find a debug file under `.build-id/`. The kernel's mappings (perf.data) take a `kallsyms` file.

import { basename } from '../text/names.ts';
import type { Mapping } from '../types.ts';
import { buildIdFromHead } from './elf.ts';
import { isKernelMapping } from './kallsyms.ts';
import { sharedTail } from './match.ts';

/** How many bytes of a candidate are read for its build-id. */
export const HEAD_BYTES = 64 << 10;

export interface FolderPick {
  /** Indexes of the files to read whole, each once. */
  chosen: number[];
  /** Per mapped file: which candidate was taken and how, or why none. */
  mappings: { path: string; file?: string; by?: 'build-id' | 'path' | 'name'; why?: string }[];
  /** Candidates whose first bytes were read. */
  headsRead: number;
}

/** The build-id a `.build-id/ab/cdef….debug` (or without `.debug`) path names, lowercase. */
export function buildIdOfPath(path: string): string | undefined {
  const m = /(?:^|\/)\.build-id\/([0-9a-f]{2})\/([0-9a-f]{6,})(?:\.debug)?$/i.exec(path);
  return m ? (m[1] + m[2]).toLowerCase() : undefined;
}

/**
 * The files of `paths` (relative paths in a folder) to read for these mappings. `readHead(i)` gives
 * the first HEAD_BYTES of file i.
 */
export async function pickFromFolder(
  mappings: readonly Mapping[],
  paths: readonly string[],
  readHead: (i: number) => Promise<Uint8Array>,
): Promise<FolderPick> {
  const byBase = new Map<string, number[]>();
  const byId = new Map<string, number>();
  paths.forEach((p, i) => {
    const id = buildIdOfPath(p);
    if (id !== undefined) byId.set(id, i);
    const b = basename(p);
    const list = byBase.get(b);
    if (list) list.push(i);
    else byBase.set(b, [i]);
  });
  const chosen = new Set<number>();
  const heads = new Map<number, string | undefined>();
  const idOf = async (i: number) => {
    if (!heads.has(i)) heads.set(i, buildIdFromHead(await readHead(i)));
    return heads.get(i);
  };
  const out: FolderPick = { chosen: [], mappings: [], headsRead: 0 };
  const seen = new Set<string>();
  // a copy of /proc/kallsyms, for the kernel's mappings (perf.data): by its usual names
  const kallsyms = paths.findIndex((p) => /^(proc[._-])?kallsyms(\.txt)?$/i.test(basename(p)));
  for (const m of mappings) {
    if (kallsyms >= 0 && isKernelMapping(m) && !seen.has(m.path)) {
      seen.add(m.path);
      out.mappings.push({ path: m.path, file: paths[kallsyms], by: 'name' });
      chosen.add(kallsyms);
      continue;
    }
    if (m.path === '' || m.path.startsWith('[') || seen.has(m.path)) continue;
    seen.add(m.path);
    const want = m.buildId?.toLowerCase();
    const entry: FolderPick['mappings'][number] = { path: m.path };
    out.mappings.push(entry);
    const base = basename(m.path);
    // Objects named like the mapping, closest path first; debug files `NAME.debug` beside them.
    const named = [...(byBase.get(base) ?? []), ...(byBase.get(`${base}.debug`) ?? [])]
      .map((i) => ({ i, tail: sharedTail(paths[i], m.path) }))
      .sort((a, b) => b.tail - a.tail);
    let found: number | undefined;
    for (const { i, tail } of named) {
      const id = await idOf(i);
      if (want !== undefined && id !== undefined && id !== want) {
        entry.why ??= `${paths[i]} has build-id ${id}, the mapping ${want}`;
        continue;
      }
      found = i;
      entry.file = paths[i];
      entry.by = want !== undefined && id === want ? 'build-id' : tail > 1 ? 'path' : 'name';
      break;
    }
    if (found === undefined && want !== undefined && byId.has(want)) {
      // Only the debug file is there (a `.build-id` tree): its symbols, at file offsets.
      found = byId.get(want)!;
      entry.file = paths[found];
      entry.by = 'build-id';
    }
    if (found === undefined) {
      entry.why ??= `no file named ${base} in the folder`;
      continue;
    }
    delete entry.why;
    chosen.add(found);
    // Its separate debug file, by build-id.
    const id = want ?? (await idOf(found));
    const debug = id === undefined ? undefined : byId.get(id);
    if (debug !== undefined) chosen.add(debug);
  }
  out.chosen = [...chosen];
  out.headsRead = heads.size;
  return out;
}
