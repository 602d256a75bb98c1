// Path and name helpers shared by the core, the CLI and the views: one basename, one shortener.

/** The last component of a path (`/lib/x86_64-linux-gnu/libc.so.6` → `libc.so.6`; `\` too). */
export function basename(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i >= 0 && i < path.length - 1 ? path.slice(i + 1) : path;
}

/** `name` cut to at most `max` characters, ending in `…` when cut. */
export function shortName(name: string, max: number): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}
