// The stages of an analysis and the part of the view each one reads. What must run again when the
// view changes is derived from these declarations, never from a hand-kept list of view fields:
// a stage runs again when the part of the view it declares changed, or a stage it comes after ran.
//
//   symbols ─► fold ─┬─► range ─┬─► graph ─► each derived view (derivations.ts: the call graph…)
//                    │          │            (transforms, inversion, the comparison's widths)
//                    │          └─► sandwich   (a function's callers and callees)
//                    ├─► labels     (the label picker's keys and values)
//                    └─► the derived views of the whole fold (the timeline)
//
// `range` keeps the samples of the view's time range (or makes the two sides of a comparison of
// two ranges): the folded stacks reweighed by the samples in it, not a fold again.

import type { WorkerView } from '../view/schema';
import { DERIVATIONS } from './derivations';

/** The pipeline's stages, and each derived view's (`derived:KEY`, derivations.ts). */
export type StageName = 'symbols' | 'fold' | 'range' | 'graph' | 'sandwich' | 'labels' | `derived:${string}`;

interface StageSpec {
  /** The stages whose results this one reads. */
  after: readonly StageName[];
  /** The part of the view this stage reads (compared as JSON). */
  reads: (v: WorkerView) => unknown;
}

/**
 * Whether the symbolizer reads DWARF: for inlined functions, and for source lines. Without both
 * (pprof's -noinlines at functions or addresses), names are the symbol tables', as pprof's are.
 */
export const readsDwarf = (v: WorkerView): boolean => v.inlines || v.granularity === 'lines';

/** Whether the view shows a comparison: its graph and sandwich are both sides'. */
const comparing = (v: WorkerView) => v.mode === 'diff';

const PIPELINE_STAGES: Record<'symbols' | 'fold' | 'range' | 'graph' | 'sandwich' | 'labels', StageSpec> = {
  // The symbolizer: demangled or not, short or full names, placed files, DWARF's inline frames.
  symbols: {
    after: [],
    reads: (v) => [v.mangled, v.fullNames, v.placements ?? [], v.inlines, readsDwarf(v)],
  },
  // The folded profile(s): which value, which labels, what a frame is.
  fold: {
    after: ['symbols'],
    reads: (v) => [
      v.sampleType,
      v.baseSampleType,
      v.keepDropFrames,
      v.granularity,
      v.unnamedPerAddress === true,
      v.labelFilters,
      v.groupBy,
    ],
  },
  // The samples shown: a time range's, or the two ranges a comparison of ranges compares.
  range: {
    after: ['fold'],
    reads: (v) => [v.range ?? null, comparing(v) ? (v.compareRanges ?? null) : null],
  },
  graph: {
    after: ['range'],
    reads: (v) => [v.transforms, v.inverted, comparing(v) && v.diffWidth],
  },
  sandwich: {
    after: ['range'],
    reads: (v) =>
      v.sandwich === undefined || (v.mode !== 'sandwich' && !comparing(v))
        ? null
        : [v.sandwich, v.transforms, comparing(v) && v.diffWidth],
  },
  labels: { after: ['fold'], reads: () => null },
};

/** Every stage: the pipeline's, then each derived view's, which reads what the graph shows. */
export const STAGES: Record<StageName, StageSpec> = {
  ...PIPELINE_STAGES,
  ...Object.fromEntries(
    DERIVATIONS.map((d): [StageName, StageSpec] => [
      `derived:${d.key}`,
      { after: [d.after ?? 'graph'], reads: d.reads },
    ]),
  ),
};

/** Stages in an order where each comes after those it reads. */
export const STAGE_ORDER: readonly StageName[] = [
  'symbols',
  'fold',
  'range',
  'graph',
  'sandwich',
  'labels',
  ...DERIVATIONS.map((d) => `derived:${d.key}` as const),
];

/**
 * What each stage last ran with. `stale` says which stages a view needs run; `ran` records that a
 * stage ran for it. Inputs that change (a new profile, symbol files) make a stage and all after it
 * stale through `invalidate`.
 */
export class StageCache {
  private readonly seen = new Map<StageName, string>();

  /** The stages that must run to show `view`, in order. */
  stale(view: WorkerView): StageName[] {
    const out: StageName[] = [];
    for (const name of STAGE_ORDER) {
      const spec = STAGES[name];
      const key = JSON.stringify(spec.reads(view));
      if (this.seen.get(name) !== key || spec.after.some((a) => out.includes(a))) out.push(name);
    }
    return out;
  }

  ran(name: StageName, view: WorkerView): void {
    this.seen.set(name, JSON.stringify(STAGES[name].reads(view)));
  }

  /** Forgets `name` and the stages after it: they run again whatever the view. */
  invalidate(name: StageName): void {
    const gone = new Set<StageName>([name]);
    for (const s of STAGE_ORDER) if (STAGES[s].after.some((a) => gone.has(a))) gone.add(s);
    for (const s of gone) this.seen.delete(s);
  }
}
