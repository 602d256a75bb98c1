// Saving a Blob as a file: an object URL and a click on a temporary <a download>.

export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke later: the download may not have read the blob yet.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** `out.prof` → `out`; `trace.folded.txt` → `trace.folded`; names never contain path separators. */
export function exportBaseName(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.gz$/i, '');
  const dot = base.lastIndexOf('.');
  const stem = dot > 0 ? base.slice(0, dot) : base;
  let safe = '';
  for (const ch of stem) safe += ch < ' ' || '<>:"|?*'.includes(ch) ? '_' : ch;
  return safe || 'profile';
}

export function canvasToPngBlob(canvas: HTMLCanvasElement): Promise<Blob> {
  return new Promise((resolve, reject) => {
    canvas.toBlob(
      (b) => (b ? resolve(b) : reject(new Error('the canvas could not be encoded as PNG'))),
      'image/png',
    );
  });
}

/**
 * The graph's canvas under a title bar (what it shows: file, view, totals), as a new canvas for the
 * PNG export; the SVG export has the same title.
 */
export function titledCanvas(graph: HTMLCanvasElement, title: string, dark: boolean): HTMLCanvasElement {
  const dpr = graph.width / Math.max(1, graph.clientWidth || graph.width);
  const bar = Math.round(26 * dpr);
  const out = document.createElement('canvas');
  out.width = graph.width;
  out.height = graph.height + bar;
  const ctx = out.getContext('2d');
  if (!ctx) return graph;
  ctx.fillStyle = dark ? '#15171c' : '#ffffff';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.fillStyle = dark ? '#f2f2f2' : '#111111';
  ctx.font = `${Math.round(14 * dpr)}px "DejaVu Sans", sans-serif`;
  ctx.textBaseline = 'middle';
  ctx.fillText(title, Math.round(8 * dpr), bar / 2, out.width - 16 * dpr);
  ctx.drawImage(graph, 0, bar);
  return out;
}
