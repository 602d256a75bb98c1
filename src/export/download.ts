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
