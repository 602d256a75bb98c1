// A self-contained SVG flame graph: the same geometry (layout.ts), colours and label truncation
// (paint.ts) as the canvas, with a <title> per frame so viewers show a tooltip on hover.

import { type CallTree, selfOf, totalOf } from '../core/model/calltree';
import { visibleText } from '../core/text/escape';
import { formatCount, formatPercent } from '../core/text/format';
import type { FoldedProfile } from '../core/types';
import { layoutFlameGraph, MERGED, mergedLabel } from '../flamegraph/layout';
import { type ColorMode, fitLabel, frameColor, LIGHT, labelText, type Theme } from '../flamegraph/paint';

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
  // Controls (invalid in XML) and bidi overrides shown as escapes.
  const name = (node: number) => visibleText(profile.frames.name[tree.frame[node]] ?? '');
  const moduleOf = (node: number) =>
    visibleText(profile.modules[profile.frames.module[tree.frame[node]]] ?? '');
  const n = (v: number) => String(Math.round(v * 100) / 100);

  const title =
    `Flame graph of ${visibleText(profile.meta.fileName ?? '')}: ${formatCount(whole)} samples` +
    (layout.focus > 0 ? ` (zoomed to ${name(layout.focus)}: ${formatCount(focusTotal)})` : '');
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
      tip = `${mergedLabel(r)}\n${formatCount(r.value)} samples (${formatPercent(r.value, whole)})`;
    } else {
      label = name(r.node);
      const mod = moduleOf(r.node);
      fill = frameColor(colorMode, label, mod, whole > 0 ? selfOf(tree, r.node) / whole : 0, theme);
      tip =
        `${label}${mod ? `\n${mod}` : ''}\n` +
        `total ${formatCount(totalOf(tree, r.node))} samples (${formatPercent(totalOf(tree, r.node), whole)})\n` +
        `self ${formatCount(selfOf(tree, r.node))} samples (${formatPercent(selfOf(tree, r.node), whole)})`;
    }
    const opacity = r.ancestor ? ` opacity="${theme.ancestorAlpha}"` : '';
    parts.push(`<g${opacity}><title>${xmlEscape(tip)}</title>`);
    parts.push(`<rect x="${n(r.x)}" y="${y}" width="${n(w)}" height="${h}" fill="${fill}"/>`);
    if (label && r.w > charWidth * 3) {
      const text = fitLabel(labelText(label), Math.floor((r.w - 6) / charWidth));
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
