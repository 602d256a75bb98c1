// The view schema: everything that says what is shown, as one serializable value (Perfetto's and
// Firefox Profiler's model). The URL hash is this value serialized, the page's store holds it, and
// the worker derives every tree and table from its worker part (WorkerView). Pure: no DOM.
//
//   #ws=ID&profileURL=…&baseURL=…&st=cpu&mode=sandwich&fn=parse&gran=lines&view=icicle&inverted=1
//    &zoom=main␟parse&q=re&regex=0&t=[…]&tf=[…]&group=thread&mangled=1&theme=dark&split=0.4
//    &range=0-900000000~200000000-400000000&sel=250000000-300000000&ra=…&rb=…&tracks=process
//
// Functions are named, never numbered (zoom path, transforms, the sandwich's function, the
// selection), so the state survives re-parsing and re-symbolization.

import { CALL_GRAPH_DEFAULTS } from '../model/callgraph';
import type { DiffWidth } from '../model/diff';
import { isLabelFilter } from '../model/labels';
import type { SearchQuery } from '../model/search';
import type { TimeRange, TrackBy } from '../model/timeline';
import type { Transform } from '../model/transforms';
import type { Granularity, LabelFilter } from '../types';

export type { DiffWidth, Granularity, TimeRange, TrackBy };

export type Mode = 'graph' | 'sandwich' | 'diff';
/**
 * What the main area shows of the view: the flame graph, the call tree, pprof's call graph, or the
 * flame chart (stacks in time order).
 */
export type Panel = 'flame' | 'calltree' | 'callgraph' | 'flamechart';
/** The source panel's tab: the function's lines, its addresses, or its instructions. */
export type SourceTab = 'lines' | 'addresses' | 'assembly';
/** pprof's pruning of the call graph (`-nodecount`, `-nodefraction`, `-edgefraction`). */
export interface CallGraphSettings {
  nodeCount: number;
  nodeFraction: number;
  edgeFraction: number;
}
/** pprof's defaults. */
export const CALL_GRAPH_SETTINGS: CallGraphSettings = { ...CALL_GRAPH_DEFAULTS };
export type Orientation = 'flame' | 'icicle';

/**
 * Time, for profiles whose samples have time stamps (ns since the earliest sample). The timeline's
 * committed ranges are its zoom (Firefox Profiler's breadcrumb); the selection, inside the last of
 * them, is what every view shows (without one, the last committed range; without any, everything).
 */
export interface TimeView {
  /** Committed ranges, outermost first (`range=S-E~S-E`). */
  zoom: TimeRange[];
  /** The range selected in the timeline (`sel=S-E`). */
  selection?: TimeRange;
  /** Two ranges set to compare (`ra=`, `rb=`): mode `diff` without a baseline compares B with A. */
  a?: TimeRange;
  b?: TimeRange;
  /** A timeline track per thread (the default) or per process (`tracks=process`). */
  tracks: TrackBy;
}
export type ThemeName = 'light' | 'dark';

/**
 * Where a profile came from: a URL (restorable from a link), or a local file (its name; the
 * workspace it belongs to is kept in this browser: ViewState.workspace).
 */
export type ProfileSource = { kind: 'url'; url: string } | { kind: 'file'; name: string };

export interface ProfileSlot {
  source?: ProfileSource;
  /** URLs of binaries and debug files to symbolize a linked profile with (`bin=`, repeatable). */
  binaries?: string[];
  /** The sample type used as the weight (`cpu`, `inuse_space`…); absent: the profile's default. */
  sampleType?: string;
  /**
   * ELF files placed at load addresses in a profile without mappings (`place=FILE@0xBASE`,
   * repeatable): base is the run-time address of the file's virtual address 0, hex with 0x.
   */
  placements?: { file: string; base: string }[];
}

export interface ViewState {
  /**
   * The workspace shown, as kept in this browser (core/view/workspace.ts): every input it was
   * opened from, a comparison's baseline, binaries and sources added later (`#ws=ID`).
   */
  workspace?: string;
  /** `main` is the profile shown; `base` the baseline it is compared with (mode `diff`). */
  profiles: { main: ProfileSlot; base?: ProfileSlot };
  transforms: Transform[];
  inverted: boolean;
  mode: Mode;
  /**
   * The function whose callers and callees are shown: mode `sandwich`, or a comparison's sandwich
   * in mode `diff`.
   */
  sandwich?: string;
  granularity: Granularity;
  /** Function names from the root to the zoomed frame; empty: not zoomed. */
  zoom: string[];
  search: SearchQuery;
  /** The function selected in the table. */
  fn?: string;
  orientation: Orientation;
  /** Names as stored in the binaries (mangled) rather than demangled. */
  mangled: boolean;
  /** Keep the frames the profile asks to drop (heap profiles' allocator frames, pprof drop_frames). */
  keepDropFrames: boolean;
  /** C++/Rust names whole as demangled, rather than short as pprof shows them (the default). */
  fullNames: boolean;
  /**
   * Functions inlined into others are frames of their own (from DWARF; the default), or their
   * samples stay with the function they were inlined into (pprof's -noinlines).
   */
  inlines: boolean;
  /** A theme the user chose; absent: the system's. */
  theme?: ThemeName;
  /** What the main area shows: the flame graph (default), the call tree, the call graph. */
  panel: Panel;
  /** The call graph's pruning (pprof's defaults unless changed). */
  callGraph: CallGraphSettings;
  /** The source panel's tab (the selected function's lines, addresses or instructions). */
  sourceTab: SourceTab;
  /**
   * The share of the profile's height the main view (the graph) takes above the function table
   * (SPLIT_MIN…SPLIT_MAX), as the user dragged it; absent: the page's default.
   */
  split?: number;
  /**
   * Mode `diff`: bar widths from the comparison, the baseline, or both (vanished paths stay
   * visible); colour by the change in share of each profile (normalized) or in samples.
   */
  diff: { width: DiffWidth; normalized: boolean };
  /** Samples kept or dropped by their labels (pprof's tagfocus/tagignore), applied in order. */
  labelFilters: LabelFilter[];
  /** A label key whose values are the root frames (`key=value`); absent: no grouping. */
  groupBy?: string;
  /** The timeline's ranges: the zoom, the selection, the two compared. */
  time: TimeView;
}

export const DEFAULT_VIEW: ViewState = {
  profiles: { main: {} },
  transforms: [],
  inverted: false,
  mode: 'graph',
  granularity: 'functions',
  zoom: [],
  search: { text: '', regex: true },
  orientation: 'flame',
  mangled: false,
  keepDropFrames: false,
  fullNames: false,
  inlines: true,
  panel: 'flame',
  callGraph: CALL_GRAPH_SETTINGS,
  sourceTab: 'lines',
  diff: { width: 'comparison', normalized: true },
  labelFilters: [],
  time: { zoom: [], tracks: 'thread' },
};

/** The part of the view the worker derives trees and tables from. */
export interface WorkerView {
  transforms: Transform[];
  inverted: boolean;
  mode: Mode;
  sandwich?: string;
  granularity: Granularity;
  mangled: boolean;
  keepDropFrames: boolean;
  fullNames: boolean;
  inlines: boolean;
  /**
   * Code no symbol names as one frame per address (`MODULE+0xOFFSET`) rather than per module, at
   * the functions and lines granularities (the CLI's --addresses).
   */
  unnamedPerAddress?: true;
  sampleType?: string;
  baseSampleType?: string;
  diffWidth: DiffWidth;
  /** The fold's label filters and group-by key (a change re-folds). */
  labelFilters: LabelFilter[];
  groupBy?: string;
  /** The main profile's placed ELF files (a change re-symbolizes). */
  placements?: { file: string; base: string }[];
  /** The call graph's pruning, when the call graph is shown (its derivation runs then only). */
  callGraph?: CallGraphSettings;
  /** Only the samples in this range are shown (TimeView's selection, else its last committed range). */
  range?: TimeRange;
  /** Mode `diff` of two ranges of the one profile: B (the comparison) against A (the baseline). */
  compareRanges?: { a: TimeRange; b: TimeRange };
  /**
   * The timeline: its window (the last committed range; absent: the whole profile) and its tracks.
   * Absent: no timeline is derived (the CLI).
   */
  timeline?: { window?: TimeRange; tracks: TrackBy };
}

/** The range every view shows: the selection, else the last committed range; undefined: all. */
export function shownRange(t: TimeView): TimeRange | undefined {
  return t.selection ?? t.zoom[t.zoom.length - 1];
}

/** Whether the view compares two ranges of its profile (mode `diff`, A and B set, no baseline). */
export function comparesRanges(v: ViewState): boolean {
  return v.mode === 'diff' && !v.profiles.base && v.time.a !== undefined && v.time.b !== undefined;
}

export function workerViewOf(v: ViewState): WorkerView {
  const w: WorkerView = {
    transforms: v.transforms,
    inverted: v.inverted,
    mode: v.mode,
    granularity: v.granularity,
    mangled: v.mangled,
    keepDropFrames: v.keepDropFrames,
    fullNames: v.fullNames,
    inlines: v.inlines,
    diffWidth: v.diff.width,
    labelFilters: v.labelFilters,
  };
  if (v.groupBy !== undefined) w.groupBy = v.groupBy;
  if ((v.mode === 'sandwich' || v.mode === 'diff') && v.sandwich !== undefined) w.sandwich = v.sandwich;
  if (v.profiles.main.sampleType !== undefined) w.sampleType = v.profiles.main.sampleType;
  if (v.profiles.base?.sampleType !== undefined) w.baseSampleType = v.profiles.base.sampleType;
  if (v.profiles.main.placements?.length) w.placements = v.profiles.main.placements;
  if (v.panel === 'callgraph') w.callGraph = v.callGraph;
  const t = v.time;
  if (comparesRanges(v)) w.compareRanges = { a: t.a!, b: t.b! };
  else {
    const range = shownRange(t);
    if (range) w.range = range;
  }
  const window = t.zoom[t.zoom.length - 1];
  w.timeline = window ? { window, tracks: t.tracks } : { tracks: t.tracks };
  return w;
}

const TRANSFORM_KINDS = new Set<Transform['kind']>([
  'focus-function',
  'focus-subtree',
  'hide-function',
  'merge-module',
  'collapse-recursion',
  'collapse-direct-recursion',
]);

function isTransform(x: unknown): x is Transform {
  if (typeof x !== 'object' || x === null) return false;
  const t = x as Record<string, unknown>;
  if (typeof t.kind !== 'string' || !TRANSFORM_KINDS.has(t.kind as Transform['kind'])) return false;
  if (t.kind === 'focus-subtree') return Array.isArray(t.path) && t.path.every((p) => typeof p === 'string');
  if (t.kind === 'merge-module') return typeof t.module === 'string';
  return typeof t.name === 'string';
}

/** A filter read from a link, without anything else the object held. */
function cleanFilter(f: LabelFilter): LabelFilter {
  if ('values' in f) return { key: f.key, op: f.op, values: f.values };
  const out: LabelFilter = { key: f.key, op: f.op };
  if (f.min !== undefined) out.min = f.min;
  if (f.max !== undefined) out.max = f.max;
  return out;
}

/** The split's bounds: the graph and the table each keep some of the height. */
export const SPLIT_MIN = 0.15;
export const SPLIT_MAX = 0.85;

/** A split as kept: within its bounds, to the percent. */
export function clampSplit(split: number): number {
  return Math.round(Math.min(SPLIT_MAX, Math.max(SPLIT_MIN, split)) * 100) / 100;
}

/** Zoom paths are joined with a separator that function names do not contain. */
const SEP = '\u001f';
const GRANULARITIES = new Set<Granularity>(['functions', 'lines', 'addresses']);

/** The hash for a view (`''` for the default view); local-file sources are not written. */
export function encodeView(v: ViewState): string {
  const p = new URLSearchParams();
  const { main, base } = v.profiles;
  if (main.source?.kind === 'url') p.set('profileURL', main.source.url);
  if (v.workspace) p.set('ws', v.workspace);
  if (main.source?.kind === 'url') for (const b of main.binaries ?? []) p.append('bin', b);
  if (base?.source?.kind === 'url') p.set('baseURL', base.source.url);
  if (main.sampleType) p.set('st', main.sampleType);
  for (const pl of main.placements ?? []) p.append('place', `${pl.file}@${pl.base}`);
  if (base?.sampleType) p.set('bst', base.sampleType);
  // A baseline implies the diff: a link with baseURL= opens it; closed, the link says mode=graph.
  const implied = base?.source?.kind === 'url' ? 'diff' : 'graph';
  if (v.mode === 'sandwich' && v.sandwich) {
    p.set('sandwich', v.sandwich);
    if (implied !== 'graph') p.set('mode', 'sandwich');
  } else if (v.mode !== implied) {
    p.set('mode', v.mode);
  }
  if (v.mode === 'diff' && v.sandwich) p.set('sandwich', v.sandwich);
  if (v.granularity !== 'functions') p.set('gran', v.granularity);
  if (v.orientation === 'icicle') p.set('view', 'icicle');
  if (v.inverted) p.set('inverted', '1');
  if (v.zoom.length > 0) p.set('zoom', v.zoom.join(SEP));
  if (v.search.text) p.set('q', v.search.text);
  if (v.search.text && !v.search.regex) p.set('regex', '0');
  if (v.fn) p.set('fn', v.fn);
  if (v.transforms.length > 0) p.set('t', JSON.stringify(v.transforms));
  if (v.labelFilters.length > 0) p.set('tf', JSON.stringify(v.labelFilters));
  if (v.groupBy) p.set('group', v.groupBy);
  if (v.mangled) p.set('mangled', '1');
  if (v.keepDropFrames) p.set('keepframes', '1');
  if (v.fullNames) p.set('names', 'full');
  if (!v.inlines) p.set('inlines', '0');
  if (v.diff.width !== 'comparison') p.set('width', v.diff.width);
  if (!v.diff.normalized) p.set('absolute', '1');
  if (v.theme) p.set('theme', v.theme);
  if (v.panel !== 'flame') p.set('panel', v.panel);
  if (v.sourceTab !== 'lines') p.set('src', v.sourceTab);
  if (v.split !== undefined) p.set('split', String(v.split));
  const cg = v.callGraph;
  if (cg.nodeCount !== CALL_GRAPH_SETTINGS.nodeCount) p.set('nodecount', String(cg.nodeCount));
  if (cg.nodeFraction !== CALL_GRAPH_SETTINGS.nodeFraction) p.set('nodefraction', String(cg.nodeFraction));
  if (cg.edgeFraction !== CALL_GRAPH_SETTINGS.edgeFraction) p.set('edgefraction', String(cg.edgeFraction));
  const t = v.time;
  if (t.zoom.length > 0) p.set('range', t.zoom.map(rangeText).join('~'));
  if (t.selection) p.set('sel', rangeText(t.selection));
  if (t.a) p.set('ra', rangeText(t.a));
  if (t.b) p.set('rb', rangeText(t.b));
  if (t.tracks !== 'thread') p.set('tracks', t.tracks);
  const text = p.toString();
  return text ? `#${text}` : '';
}

/** The most `bin=` a link is followed for (the rest are left out). */
export const MAX_LINK_BINARIES = 16;

/**
 * The origins a link downloads from (`profileURL`, `baseURL`, the `bin=` kept), http(s) only, for
 * the page's `connect-src`: a link cannot make the page fetch from anywhere else.
 */
export function linkOrigins(hash: string): string[] {
  const v = decodeView(hash);
  const urls = [
    v.profiles.main.source?.kind === 'url' ? v.profiles.main.source.url : undefined,
    v.profiles.base?.source?.kind === 'url' ? v.profiles.base.source.url : undefined,
    ...(v.profiles.main.binaries ?? []),
  ];
  const out = new Set<string>();
  for (const u of urls) {
    if (u === undefined) continue;
    try {
      const url = new URL(u);
      if (url.protocol === 'https:' || url.protocol === 'http:') out.add(url.origin);
    } catch {
      // not an absolute URL: relative ones are the page's own origin ('self')
    }
  }
  return [...out];
}

/** Reads what it can; anything malformed is left at its default, never thrown. */
export function decodeView(hash: string): ViewState {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const v: ViewState = {
    ...DEFAULT_VIEW,
    profiles: { main: {} },
    search: { ...DEFAULT_VIEW.search },
    diff: { ...DEFAULT_VIEW.diff },
    labelFilters: [],
    time: { zoom: [], tracks: 'thread' },
  };
  const url = p.get('profileURL')?.trim();
  if (url) v.profiles.main.source = { kind: 'url', url };
  // A link names a few binaries: more would be as many downloads from one click (linkOrigins, and
  // the page's CSP, allow only the origins of what is kept).
  const bins = p
    .getAll('bin')
    .filter((b) => b.trim() !== '')
    .slice(0, MAX_LINK_BINARIES);
  if (url && bins.length > 0) v.profiles.main.binaries = bins;
  // `local=` is what earlier versions called a kept profile: it is a workspace now.
  const ws = (p.get('ws') ?? p.get('local'))?.trim();
  if (ws && /^[0-9a-z]{1,16}$/.test(ws)) v.workspace = ws;
  const baseUrl = p.get('baseURL')?.trim();
  if (baseUrl) v.profiles.base = { source: { kind: 'url', url: baseUrl } };
  const st = p.get('st');
  if (st) v.profiles.main.sampleType = st;
  const places = p
    .getAll('place')
    .map((t) => /^(.+)@(0x[0-9a-f]{1,16})$/i.exec(t.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ file: m[1], base: m[2].toLowerCase() }));
  if (places.length > 0) v.profiles.main.placements = places;
  const bst = p.get('bst');
  if (bst) v.profiles.base = { ...v.profiles.base, sampleType: bst };
  const sandwich = p.get('sandwich');
  const mode = p.get('mode') as Mode | null;
  if (mode === 'diff' || (mode === null && baseUrl)) {
    v.mode = 'diff';
    if (sandwich) v.sandwich = sandwich;
  } else if (sandwich && (mode === null || mode === 'sandwich')) {
    v.mode = 'sandwich';
    v.sandwich = sandwich;
  } else if (mode === 'graph') {
    v.mode = 'graph';
  }
  const gran = p.get('gran') as Granularity | null;
  if (gran && GRANULARITIES.has(gran)) v.granularity = gran;
  if (p.get('view') === 'icicle') v.orientation = 'icicle';
  if (p.get('inverted') === '1') v.inverted = true;
  const zoom = p.get('zoom');
  if (zoom) v.zoom = zoom.split(SEP);
  const q = p.get('q');
  if (q) v.search = { text: q, regex: p.get('regex') !== '0' };
  const fn = p.get('fn');
  if (fn) v.fn = fn;
  const t = p.get('t');
  if (t) {
    try {
      const parsed: unknown = JSON.parse(t);
      if (Array.isArray(parsed)) v.transforms = parsed.filter(isTransform);
    } catch {
      // A damaged link still opens the profile.
    }
  }
  const tf = p.get('tf');
  if (tf) {
    try {
      const parsed: unknown = JSON.parse(tf);
      if (Array.isArray(parsed)) v.labelFilters = parsed.filter(isLabelFilter).map(cleanFilter);
    } catch {
      // A damaged link still opens the profile.
    }
  }
  const group = p.get('group');
  if (group) v.groupBy = group;
  if (p.get('mangled') === '1') v.mangled = true;
  if (p.get('keepframes') === '1') v.keepDropFrames = true;
  if (p.get('names') === 'full') v.fullNames = true;
  if (p.get('inlines') === '0') v.inlines = false;
  const width = p.get('width');
  if (width === 'baseline' || width === 'both') v.diff.width = width;
  if (p.get('absolute') === '1') v.diff.normalized = false;
  const theme = p.get('theme');
  if (theme === 'light' || theme === 'dark') v.theme = theme;
  const panel = p.get('panel');
  if (panel === 'calltree' || panel === 'callgraph' || panel === 'flamechart') v.panel = panel;
  const src = p.get('src');
  if (src === 'addresses' || src === 'assembly') v.sourceTab = src;
  const split = numberIn(p.get('split'), SPLIT_MIN, SPLIT_MAX, false);
  if (split !== undefined) v.split = split;
  v.callGraph = {
    nodeCount: numberIn(p.get('nodecount'), 0, 100_000, true) ?? CALL_GRAPH_SETTINGS.nodeCount,
    nodeFraction: numberIn(p.get('nodefraction'), 0, 1, false) ?? CALL_GRAPH_SETTINGS.nodeFraction,
    edgeFraction: numberIn(p.get('edgefraction'), 0, 1, false) ?? CALL_GRAPH_SETTINGS.edgeFraction,
  };
  v.time.zoom = (p.get('range') ?? '')
    .split('~')
    .map(readRange)
    .filter((r): r is TimeRange => r !== undefined);
  const sel = readRange(p.get('sel'));
  if (sel) v.time.selection = sel;
  const a = readRange(p.get('ra'));
  if (a) v.time.a = a;
  const b = readRange(p.get('rb'));
  if (b) v.time.b = b;
  if (p.get('tracks') === 'process') v.time.tracks = 'process';
  return v;
}

/** A range in a link: whole nanoseconds, `START-END`. */
function rangeText(r: TimeRange): string {
  return `${Math.round(r.start)}-${Math.round(r.end)}`;
}

/** A range read from a link, when it is one (`START-END`, START ≤ END, below 2^53). */
function readRange(t: string | null): TimeRange | undefined {
  const m = t === null ? null : /^(\d{1,16})-(\d{1,16})$/.exec(t.trim());
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return undefined;
  return { start, end };
}

/** A number read from a link, in [min, max] (a whole one when asked), else undefined. */
function numberIn(t: string | null, min: number, max: number, whole: boolean): number | undefined {
  if (t === null || t.trim() === '') return undefined;
  const n = Number(t);
  if (!Number.isFinite(n) || n < min || n > max || (whole && !Number.isInteger(n))) return undefined;
  return n;
}

/** The URL a slot's profile comes from, if it comes from one. */
export function sourceUrl(slot: ProfileSlot | undefined): string | undefined {
  return slot?.source?.kind === 'url' ? slot.source.url : undefined;
}

/**
 * The view after a job that asked for `asked` (made from `shown`, the view when the job began)
 * while the view on screen became `now`: what the job changed, over `now`, except where `now`
 * changed it too (a click made while the job ran stays: its own job, queued behind, answers
 * next). Profile slots are merged one by one: a comparison's baseline added by the job and the
 * main profile's kept name set meanwhile are both kept.
 */
export function mergeViews(shown: ViewState, asked: ViewState, now: ViewState): ViewState {
  if (now === shown) return asked;
  const out: Record<string, unknown> = { ...now };
  const keys = new Set([...Object.keys(asked), ...Object.keys(shown)]) as Set<keyof ViewState>;
  for (const k of keys)
    if (k !== 'profiles' && asked[k] !== shown[k] && now[k] === shown[k]) out[k] = asked[k];
  const profiles = { ...now.profiles };
  for (const slot of ['main', 'base'] as const)
    if (asked.profiles[slot] !== shown.profiles[slot] && now.profiles[slot] === shown.profiles[slot]) {
      if (asked.profiles[slot] === undefined) delete profiles[slot];
      else profiles[slot] = asked.profiles[slot];
    }
  out.profiles = profiles;
  return out as unknown as ViewState;
}
