// The DOT text of a call graph as `pprof -dot` writes it (internal/graph/dotgraph.go ComposeDot and
// internal/report/report.go's legend): labels `name\nflat (share)\nof cum (share)`, font size
// 8–24 by flat, edge weight and penwidth by share, colours by share, residual edges dotted and
// inlined calls labelled ` (inline)` (and dashed when asked: pprof does not dash them). Values in pprof's units (`684ms`, `18`, `1.50MB`).

import { basename } from '../text/names';
import { pprofLabel, pprofPercentage, pprofScale, pprofScaledLabel } from '../text/pprof-measure';
import type { FoldedMeta, LabelFilter } from '../types';
import type { CallGraph } from './callgraph';
import { isRangeFilter } from './labels';

/** escapeForDot: backslashes and quotes escaped, newlines as left-justified breaks. */
export function escapeForDot(s: string): string {
  return s.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\l');
}

const CPP_ANONYMOUS = /^\(anonymous namespace\)::/;
const GO_VERSION = /^(.*?)\/v(?:[2-9]|[1-9][0-9]+)([./].*)$/;
const GO_NAME = /^(?:[\w\-.]+\/)+(.+)/;
const JAVA_NAME = /^(?:[a-z]\w*\.)*([A-Z][\w$]*\.(?:<init>|[a-z][\w$]*(?:\$\d+)?))(?:\(|$)/;
const CPP_NAME = /^(?:[_a-zA-Z]\w*::)+(_*[A-Z]\w*::~?[_a-zA-Z]\w*(?:<.*>)?)/;

/** graph.ShortenFunctionName: package paths, Java packages and C++ namespaces off. */
export function pprofShortName(name: string): string {
  const f = name.replace(CPP_ANONYMOUS, '').replace(GO_VERSION, '$1$2');
  for (const re of [GO_NAME, JAVA_NAME, CPP_NAME]) {
    const m = re.exec(f);
    if (m && m.length >= 2) return m.slice(1).join('');
  }
  return f;
}

/** multilinePrintableName: the short name broken at `::` and `.`, ending in a break. */
function nodeLabel(name: string, named: boolean): string {
  if (!named) return `${escapeForDot(name)}\\n`;
  const s = escapeForDot(pprofShortName(name))
    .replaceAll('::', '\\n')
    .replaceAll('[...]', '[…]')
    .replaceAll('.', '\\n');
  return `${s}\\n`;
}

/** dotColor: grey near 0, red towards 1 (green towards -1); light for backgrounds. */
export function dotColor(score: number, background: boolean): string {
  const shift = 0.7;
  let saturation = background ? 0.1 : 1.0;
  const value = background ? 0.93 : 0.7;
  let s = Math.max(-1, Math.min(1, score));
  if (Math.abs(s) < 0.2) saturation *= Math.abs(s) / 0.2;
  if (s > 0) s = s ** (1 - shift);
  if (s < 0) s = -((-s) ** (1 - shift));
  let r: number;
  let g: number;
  if (s < 0) {
    g = value;
    r = value * (1 + saturation * s);
  } else {
    r = value;
    g = value * (1 - saturation * s);
  }
  const b = value * (1 - saturation);
  const hex = (x: number) => (Math.trunc(x * 255) & 0xff).toString(16).padStart(2, '0');
  return `#${hex(r)}${hex(g)}${hex(b)}`;
}

/** report.selectOutputUnit ("minimum"): the unit of the smallest value, unless 100× it reads better. */
function outputUnit(g: CallGraph, sampleUnit: string): string {
  if (g.nodes.count === 0) return 'minimum';
  let minValue = 0;
  for (let i = 0; i < g.nodes.count; i++) {
    let m = Math.abs(g.nodes.flat[i]);
    if (m === 0) m = Math.abs(g.nodes.cum[i]);
    if (m > 0 && (minValue === 0 || m < minValue)) minValue = m;
  }
  const maxValue = g.total;
  if (minValue === 0) minValue = maxValue;
  const [, minUnit] = pprofScale(minValue, sampleUnit, 'minimum');
  const [, maxUnit] = pprofScale(maxValue, sampleUnit, 'minimum');
  let unit = minUnit;
  if (minUnit !== maxUnit && minValue * 100 < maxValue)
    [, unit] = pprofScale(100 * minValue, sampleUnit, 'minimum');
  return unit !== '' ? unit : sampleUnit;
}

/** UTC, in Go's layout "Jan 2, 2006 at 3:04pm (MST)". */
function timeLabel(ns: number): string {
  const d = new Date(ns / 1e6);
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const h = d.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const min = String(d.getUTCMinutes()).padStart(2, '0');
  return `${months[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} at ${h12}:${min}${h < 12 ? 'am' : 'pm'} (UTC)`;
}

/**
 * The profile's main file, pprof's Mapping[0]: the first mapping that is a file. A pseudo mapping
 * (`[kernel.kallsyms]`, `[vdso]`) is none: perf.data's first mapping is the kernel's, which perf
 * describes before the program it runs.
 */
function mainMapping(meta: FoldedMeta): FoldedMeta['mappings'][number] | undefined {
  return meta.mappings.find((m) => !m.path.startsWith('[')) ?? meta.mappings[0];
}

/** report.ProfileLabels: file, build id, comments, type, time, duration. */
function profileLabels(meta: FoldedMeta, total: number, format: (v: number) => string): string[] {
  const out: string[] = [];
  const m0 = mainMapping(meta);
  if (m0 !== undefined) {
    if (m0.path !== '') out.push(`File: ${basename(m0.path)}`);
    if (m0.buildId) out.push(`Build ID: ${m0.buildId}`);
  }
  for (const c of meta.comments ?? []) if (!c.startsWith('#')) out.push(c);
  out.push(`Type: ${meta.sampleType.type}`);
  if (meta.timeNs) out.push(`Time: ${timeLabel(meta.timeNs)}`);
  if (meta.durationNs) {
    const unit = meta.sampleType.unit.toLowerCase();
    const [totalNanos, totalUnit] = pprofScale(total, unit, 'nanoseconds');
    const ratio =
      totalUnit === 'ns' && totalNanos !== 0
        ? `(${pprofPercentage(Math.trunc(totalNanos), meta.durationNs)})`
        : '';
    out.push(
      `Duration: ${pprofLabel(meta.durationNs, 'nanoseconds')}, Total samples = ${format(total)} ${ratio}`,
    );
  }
  return out;
}

export interface DotOptions {
  /**
   * Filters in effect, listed in the legend as pprof's "Active filters:" (`tagfocus=worker=alpha`:
   * the CLI gives its options as typed, as pprof prints its flags). Default: the profile's label
   * filters (FoldedMeta.labelFilters) as `pprofFilterLines` writes them.
   */
  activeFilters?: string[];
  /**
   * Draw inlined calls dashed (`style="dashed"`, the look for the app). pprof itself only
   * labels them ` (inline)`: off by default, so the text is pprof's.
   */
  dashedInline?: boolean;
}

/**
 * Label filters as pprof's driver lists its flags among the active filters (reportOptions:
 * `tagfocus=…` before `tagignore=…`), each as `parseLabelFilter` reads it back: `key=v1,v2`, or a
 * range `key=min:max` in the label's base unit (bytes, not `4kb`).
 */
export function pprofFilterLines(filters: readonly LabelFilter[]): string[] {
  const out: string[] = [];
  for (const op of ['focus', 'ignore'] as const)
    for (const f of filters) {
      if (f.op !== op) continue;
      const value = isRangeFilter(f) ? `${f.min ?? ''}:${f.max ?? ''}` : f.values.join(',');
      out.push(`tag${op}=${f.key}=${value}`);
    }
  return out;
}

/** `s` cut after `max` UTF-8 bytes and followed by `…` when longer (Go's `s[:80] + "…"`). */
function cutBytes(s: string, max: number): string {
  const bytes = new TextEncoder().encode(s);
  if (bytes.length <= max) return s;
  return `${new TextDecoder().decode(bytes.subarray(0, max))}…`;
}

/** The DOT text `pprof -dot` writes for this graph of a profile with `meta`. */
export function callGraphDot(g: CallGraph, meta: FoldedMeta, opts: DotOptions = {}): string {
  const sampleUnit = meta.sampleType.unit.toLowerCase();
  const unit = outputUnit(g, sampleUnit);
  const format = (v: number) => pprofScaledLabel(v, sampleUnit, unit);
  const total = g.total;
  const { nodes, edges } = g;
  const out: string[] = [];
  const m0 = mainMapping(meta);
  const title = m0 !== undefined && m0.path !== '' ? basename(m0.path) : '';
  out.push(`digraph "${title || 'unnamed'}" {`);
  out.push('node [style=filled fillcolor="#f8f8f8"]');

  // Legend (report.reportLabels with full headers).
  const labels = profileLabels(meta, total, format);
  const filters = opts.activeFilters ?? pprofFilterLines(meta.labelFilters ?? []);
  if (filters.length > 0) {
    labels.push('Active filters:');
    // legendActiveFilters: cut at 80 bytes (Go slices the UTF-8 string)
    for (const f of filters) labels.push(`   ${cutBytes(f, 80)}`);
  }
  let flatSum = 0;
  for (let i = 0; i < nodes.count; i++) flatSum += nodes.flat[i];
  labels.push(
    `Showing nodes accounting for ${format(flatSum)}, ${pprofPercentage(flatSum, total).trim()} of ${format(total)} total`,
  );
  if (total !== 0) {
    const dropped = (d: number, what: string, by: string, fraction: number) =>
      `Dropped ${d} ${what}${d > 1 ? 's' : ''} (${by} <= ${format(Math.abs(Math.trunc(total * fraction)))})`;
    if (g.droppedNodes > 0) labels.push(dropped(g.droppedNodes, 'node', 'cum', g.options.nodeFraction));
    if (g.droppedEdges > 0) labels.push(dropped(g.droppedEdges, 'edge', 'freq', g.options.edgeFraction));
    if (nodes.count > 0 && nodes.count < g.origCount)
      labels.push(`Showing top ${nodes.count} nodes out of ${g.origCount}`);
  }
  labels.push('\nSee https://git.io/JfYMW for how to read the graph');
  const legend = [`subgraph cluster_L { "${escapeForDot(labels[0])}" [shape=box fontsize=16`];
  legend.push(` label="${labels.map(escapeForDot).join('\\l')}\\l"`);
  if (title !== '') legend.push(` tooltip="${title}"`);
  legend.push('] }');
  out.push(legend.join(''));

  let maxFlat = nodes.count > 0 ? Math.abs(nodes.flat[0]) : 0;
  for (let i = 0; i < nodes.count; i++) maxFlat = Math.max(maxFlat, Math.abs(nodes.flat[i]));
  for (let i = 0; i < nodes.count; i++) {
    const flat = nodes.flat[i];
    const cum = nodes.cum[i];
    const named = nodes.named[i] === 1;
    let label = nodeLabel(nodes.name[i], named);
    const flatValue = format(flat);
    label += flat !== 0 ? `${flatValue} (${pprofPercentage(flat, total).trim()})` : '0';
    let cumValue = flatValue;
    if (cum !== flat) {
      label += flat !== 0 ? '\\n' : ' ';
      cumValue = format(cum);
      label += `of ${cumValue} (${pprofPercentage(cum, total).trim()})`;
    }
    let fontSize = 8;
    if (maxFlat !== 0 && flat !== 0 && Math.abs(flat) <= maxFlat)
      fontSize += Math.ceil(16 * Math.sqrt(Math.abs(flat) / maxFlat));
    const share = cum / Math.abs(total);
    out.push(
      `N${i + 1} [label="${label}" id="node${i + 1}" fontsize=${fontSize} shape=box tooltip="${escapeForDot(nodes.name[i])} (${cumValue})" color="${dotColor(share, false)}" fillcolor="${dotColor(share, true)}"]`,
    );
  }
  for (let e = 0; e < edges.count; e++) {
    const w = edges.weight[e];
    const wText = format(w);
    let attr = `label=" ${wText}${edges.inline[e] === 1 ? '\\n (inline)' : ''}"`;
    if (total !== 0) {
      const weight = 1 + Math.min(Math.abs(Math.trunc((w * 100) / total)), 100);
      if (weight > 1) attr += ` weight=${weight}`;
      const width = 1 + Math.min(Math.abs(Math.trunc((w * 5) / total)), 5);
      if (width > 1) attr += ` penwidth=${width}`;
      attr += ` color="${dotColor(w / Math.abs(total), false)}"`;
    }
    const residual = edges.residual[e] === 1;
    const tooltip = `"${escapeForDot(nodes.name[edges.src[e]])} ${residual ? '...' : '->'} ${escapeForDot(nodes.name[edges.dst[e]])} (${wText})"`;
    attr += ` tooltip=${tooltip} labeltooltip=${tooltip}`;
    if (residual) attr += ' style="dotted"';
    else if (opts.dashedInline && edges.inline[e] === 1) attr += ' style="dashed"';
    out.push(`N${edges.src[e] + 1} -> N${edges.dst[e] + 1} [${attr}]`);
  }
  out.push('}');
  return `${out.join('\n')}\n`;
}
