// An independent reference for the diff view: per-path and per-function counts of two sides,
// computed from each side's folded text (`root;…;leaf COUNT` lines) with plain maps — no code of
// the diff under test.

export interface SideCounts {
  /** Path prefix (`a;b;c`) → samples of stacks starting with it. */
  paths: Map<string, number>;
  /** Function → samples where it is the leaf / anywhere on the stack (once per stack). */
  self: Map<string, number>;
  total: Map<string, number>;
  whole: number;
}

export function countsOfFolded(text: string): SideCounts {
  const paths = new Map<string, number>();
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let whole = 0;
  const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const sp = line.lastIndexOf(' ');
    const n = Number(line.slice(sp + 1));
    const frames = line.slice(0, sp).split(';');
    whole += n;
    for (let i = 1; i <= frames.length; i++) add(paths, frames.slice(0, i).join(';'), n);
    add(self, frames[frames.length - 1], n);
    for (const f of new Set(frames)) add(total, f, n);
  }
  return { paths, self, total, whole };
}
