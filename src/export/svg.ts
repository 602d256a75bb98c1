// A self-contained SVG flame graph: the same geometry (layout.ts), colours, labels (from each
// frame's kind and fields) and label truncation (paint.ts) as the canvas, with a <title> per frame
// so viewers show a tooltip on hover, saying what the canvas tooltip says in the same units
// (tooltip-text.ts, core/text/units.ts).

import { type CallTree, selfOf, totalOf } from '../core/model/calltree';
import { visibleText } from '../core/text/escape';
import { fitName } from '../core/text/fit-name';
import { describeFrame, describeFrameLines, frameLabel, frameName, shownText } from '../core/text/frame-text';
import { formatWeight, weightUnit } from '../core/text/units';
import type { FoldedProfile } from '../core/types';
import { layoutFlameGraph, MERGED, mergedLabel } from '../flamegraph/layout';
import { type ColorMode, frameColor, LIGHT, type Theme } from '../flamegraph/paint';
import { mergedRow, weightRows } from '../flamegraph/tooltip-text';

/** Replaces what XML 1.0 forbids (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) by U+FFFD. */
export function xmlSafeChars(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += s[i] + s[i + 1];
        i++;
      } else out += '\uFFFD';
    } else if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0xdc00 && c <= 0xdfff)) {
      out += '\uFFFD';
    } else if (c === 0xfffe || c === 0xffff) out += '\uFFFD';
    else out += s[i];
  }
  return out;
}

/** Text safe in XML content and in double- or single-quoted attributes. */
export function xmlEscape(s: string): string {
  return xmlSafeChars(s)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export interface SvgOptions {
  profile: Pick<FoldedProfile, 'frames' | 'modules' | 'meta'>;
  tree: CallTree;
  focus: number;
  width: number;
  colorMode?: ColorMode;
  theme?: Theme;
  rowHeight?: number;
  /** Advance of one character of the label font, as the canvas measures it. */
  charWidth?: number;
}

const FONT_FAMILY = '"DejaVu Sans Mono", Menlo, Consolas, monospace';
const HEADER = 24;

export function flameGraphSvg(o: SvgOptions): string {
  const { profile, tree } = o;
  const width = Math.max(100, Math.round(o.width));
  const rowHeight = o.rowHeight ?? 18;
  const charWidth = o.charWidth ?? 7.22;
  const theme = o.theme ?? LIGHT;
  const colorMode = o.colorMode ?? 'module';
  const layout = layoutFlameGraph(tree, { focus: o.focus, width });
  const graphHeight = layout.rowCount * rowHeight;
  const height = graphHeight + HEADER;
  const whole = totalOf(tree, 0);
  const focusTotal = totalOf(tree, layout.focus);
  const unit = weightUnit(profile.meta);
  const zoomed = layout.focus > 0 ? focusTotal : undefined;
  const name = (node: number) => frameName(profile.frames, tree.frame[node]) ?? '';
  const moduleOf = (node: number) => profile.modules[profile.frames.module[tree.frame[node]]] ?? '';
  const n = (v: number) => String(Math.round(v * 100) / 100);

  const title =
    `Flame graph of ${visibleText(profile.meta.fileName ?? '')}: ${formatWeight(whole, unit)}` +
    (layout.focus > 0
      ? ` (zoomed to ${shownText(name(layout.focus))}: ${formatWeight(focusTotal, unit)})`
      : '');
  const parts: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" `,
    `viewBox="0 0 ${width} ${height}" font-family='${FONT_FAMILY}' font-size="12">\n`,
    `<title>${xmlEscape(title)}</title>\n`,
    `<rect width="100%" height="100%" fill="${theme.background}"/>\n`,
    `<text x="4" y="16" fill="${theme.text}">${xmlEscape(title)}</text>\n`,
  ];
  for (const r of layout.rects) {
    const y = HEADER + graphHeight - (r.depth + 1) * rowHeight; // flame: root at the bottom
    const w = Math.max(r.w - 0.5, 0.5);
    const h = rowHeight - 1;
    let fill: string;
    let label = '';
    let tip: string;
    if (r.node === MERGED) {
      fill = theme.mergedFill;
      tip = `${mergedLabel(r)}\n${mergedRow(r.value, whole, unit)}`;
    } else {
      const f = tree.frame[r.node];
      label = frameLabel(profile.frames, f);
      const self = selfOf(tree, r.node);
      fill = frameColor(colorMode, name(r.node), moduleOf(r.node), whole > 0 ? self / whole : 0, theme);
      const weights = weightRows({ total: totalOf(tree, r.node), self, whole, zoomed }, unit);
      tip = [
        ...describeFrameLines(describeFrame(profile.frames, profile.modules, f)),
        ...weights.map((w) => `${w.th} ${w.td}`),
      ].join('\n');
    }
    const opacity = r.ancestor ? ` opacity="${theme.ancestorAlpha}"` : '';
    parts.push(`<g${opacity}><title>${xmlEscape(tip)}</title>`);
    parts.push(`<rect x="${n(r.x)}" y="${y}" width="${n(w)}" height="${h}" fill="${fill}"/>`);
    if (label && r.w > charWidth * 3) {
      const text = fitName(label, Math.floor((r.w - 6) / charWidth));
      if (text) {
        const color = theme.dark ? '#f5f5f5' : '#111111';
        parts.push(
          `<text x="${n(r.x + 3)}" y="${n(y + h / 2 + 4)}" fill="${color}">${xmlEscape(text)}</text>`,
        );
      }
    }
    parts.push('</g>\n');
  }
  parts.push('</svg>\n');
  return parts.join('');
}
