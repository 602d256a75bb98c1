// FoldedProfile → folded text (`root;…;leaf COUNT`, one line per unique stack, sorted), and the
// differential form of two profiles (`root;…;leaf BASE NEW`, as difffolded.pl writes it).
// The one serializer: used by the analysis seam (core/analysis) for the CLI and the app's export.
// Also: the stacks through a frame path (a zoomed node's), for exporting what a zoom shows.
// Names are written as `text/escape.ts` escapes them (controls, `;`, what the reader would trim or
// take for a count): a name cannot forge a line or a frame, and the folded reader reads it back.

import { escapeFoldedName } from '../text/escape.ts';
import type { FoldedProfile } from '../types.ts';
import { frameNames } from './frames.ts';

const SEMI = 0x3b;

/**
 * How the texts of two stacks (frame names joined by `;`) compare, as `<` on the joined strings
 * would, without joining them: a profile with DWARF's inline frames can have gigabytes of such text.
 */
function compareStackTexts(p: FoldedProfile, names: readonly string[], a: number, b: number): number {
  const { start, frames } = p.stacks;
  const ia = start[a];
  const ib = start[b];
  const na = start[a + 1] - ia;
  const nb = start[b + 1] - ib;
  for (let i = 0; i < na && i < nb; i++) {
    const fa = frames[ia + i];
    const fb = frames[ib + i];
    if (fa === fb) continue;
    const x = names[fa];
    const y = names[fb];
    if (x === y) continue;
    const m = Math.min(x.length, y.length);
    let k = 0;
    while (k < m && x.charCodeAt(k) === y.charCodeAt(k)) k++;
    if (k < m) return x.charCodeAt(k) - y.charCodeAt(k);
    // One name is a prefix of the other: what follows it is `;` or the end of its text.
    const d =
      x.length < y.length
        ? (i + 1 < na ? SEMI : -1) - y.charCodeAt(k)
        : x.charCodeAt(k) - (i + 1 < nb ? SEMI : -1);
    if (d !== 0) return d;
    // One name is a prefix of the other and both go on: compare the joined texts themselves.
    const ta = stackText(p, names, a);
    const tb = stackText(p, names, b);
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  }
  return na - nb;
}

function stackText(p: FoldedProfile, names: readonly string[], s: number): string {
  const { start, frames } = p.stacks;
  const parts: string[] = [];
  for (let k = start[s]; k < start[s + 1]; k++) parts.push(names[frames[k]]);
  return parts.join(';');
}

/** The frames' names as folded text writes them (the profile's own array when none needs escaping). */
function writtenNames(p: FoldedProfile): readonly string[] {
  const names = frameNames(p.frames);
  let out: string[] | null = null;
  for (let f = 0; f < names.length; f++) {
    const e = escapeFoldedName(names[f]);
    if (e === names[f] && out === null) continue;
    out ??= names.slice(0, f);
    out.push(e);
  }
  return out ?? names;
}

interface ChunkOptions {
  chunk?: number;
  /** Rewrites a line's counts (summed over its equal texts) before it is written. */
  adjust?: (sums: number[]) => void;
}

/**
 * `stack c1 c2 …` lines for weight columns over the same stacks, sorted, stacks with equal texts
 * summed, handed to `emit` about `chunk` characters at a time (never the whole text at once).
 * A stack whose every count is zero has no line (a heap profile's freed allocations in use, a
 * pprof sample with no value of the type chosen): folded text is what was sampled.
 */
export function foldedChunks(
  p: FoldedProfile,
  columns: readonly Float64Array[],
  emit: (text: string) => void,
  opts: ChunkOptions = {},
): void {
  for (const text of foldedChunkTexts(p, columns, opts)) emit(text);
}

/**
 * The same chunks, each made when the one before it has been taken: a reader that stops (a closed
 * pipe) stops the work, and no more than a chunk of the text is held at once.
 */
function* foldedChunkTexts(
  p: FoldedProfile,
  columns: readonly Float64Array[],
  opts: ChunkOptions,
): Generator<string, void, undefined> {
  const chunk = opts.chunk ?? 1 << 20;
  const n = p.stacks.count;
  const names = writtenNames(p);
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (a, b) => compareStackTexts(p, names, a, b) || a - b,
  );
  let out = '';
  const sums = columns.map(() => 0);
  for (let i = 0; i < n; ) {
    const s = order[i];
    for (let c = 0; c < columns.length; c++) sums[c] = 0;
    let j = i;
    for (; j < n && (j === i || compareStackTexts(p, names, s, order[j]) === 0); j++)
      for (let c = 0; c < columns.length; c++) sums[c] += columns[c][order[j]];
    if (sums.some((v) => v !== 0)) {
      opts.adjust?.(sums);
      out += `${stackText(p, names, s)} ${sums.join(' ')}\n`;
    }
    if (out.length >= chunk) {
      yield out;
      out = '';
    }
    i = j;
  }
  if (out !== '') yield out;
}

/** Lines of `stack c1 c2 …` for weight columns over the same stacks, sorted; equal texts summed. */
function foldedLines(p: FoldedProfile, columns: readonly Float64Array[]): string {
  const parts: string[] = [];
  foldedChunks(p, columns, (t) => parts.push(t));
  return parts.join('');
}

/** Folded-stack lines, sorted, each ending in a newline. Stacks whose text is equal are summed. */
export function toFoldedText(p: FoldedProfile): string {
  return foldedLines(p, [p.stacks.weight]);
}

/**
 * difffolded.pl -n over `BASE NEW` lines: when the two sides' totals differ, each line's baseline
 * count becomes `int(BASE × total NEW / total BASE)`, truncated as Perl's int() (so the scaled
 * total can fall short of the comparison's); with equal totals (or an empty baseline), nothing
 * changes. For foldedChunks' `adjust`, over columns [base, comp].
 */
export function difffoldedNormalize(
  base: Float64Array,
  comp: Float64Array,
): ((sums: number[]) => void) | undefined {
  let b = 0;
  let c = 0;
  for (let s = 0; s < base.length; s++) {
    b += base[s];
    c += comp[s];
  }
  if (b === c || b === 0) return undefined;
  return (sums) => {
    sums[0] = Math.trunc((sums[0] * c) / b);
  };
}

/** The ids of the stacks that begin with a root-first frame path. */
export function keptStacks(p: FoldedProfile, path: readonly number[]): number[] {
  const { start, frames } = p.stacks;
  const keep: number[] = [];
  for (let s = 0; s < p.stacks.count; s++) {
    const b = start[s];
    if (start[s + 1] - b < path.length) continue;
    let k = 0;
    while (k < path.length && frames[b + k] === path[k]) k++;
    if (k === path.length) keep.push(s);
  }
  return keep;
}

/** The stacks of a profile that begin with a root-first frame path, as a smaller FoldedProfile. */
export function stacksThrough(
  p: FoldedProfile,
  path: readonly number[],
  keep: readonly number[] = keptStacks(p, path),
): FoldedProfile {
  if (path.length === 0) return p;
  const { start, frames, weight } = p.stacks;
  let frameCount = 0;
  for (const s of keep) frameCount += start[s + 1] - start[s];
  const nStart = new Uint32Array(keep.length + 1);
  const nFrames = new Uint32Array(frameCount);
  const nWeight = new Float64Array(keep.length);
  let at = 0;
  keep.forEach((s, i) => {
    nStart[i] = at;
    nFrames.set(frames.subarray(start[s], start[s + 1]), at);
    at += start[s + 1] - start[s];
    nWeight[i] = weight[s];
  });
  nStart[keep.length] = at;
  return { ...p, stacks: { count: keep.length, start: nStart, frames: nFrames, weight: nWeight } };
}

/**
 * `root;…;leaf COUNT` lines of the whole profile, or of the stacks through a frame-id path, in
 * parts of about a megabyte (a view with DWARF's inline frames can have gigabytes of text: more
 * than one string holds), each made as it is taken (so `fold | head -1` stops at the first part
 * and a gigabyte of text is never held whole). `columns`: other weights over the same stacks (a
 * comparison's two sides).
 */
export function foldedPartsThrough(
  profile: FoldedProfile,
  path: readonly number[],
  columns?: readonly Float64Array[],
): Iterable<string> {
  const keep = path.length > 0 ? keptStacks(profile, path) : null;
  const p = keep ? stacksThrough(profile, path, keep) : profile;
  const cols = columns ?? [profile.stacks.weight];
  return foldedChunkTexts(p, keep ? cols.map((w) => Float64Array.from(keep, (s) => w[s])) : cols, {});
}

/** The same as one string. */
export function foldedTextThrough(profile: FoldedProfile, path: readonly number[]): string {
  return [...foldedPartsThrough(profile, path)].join('');
}
