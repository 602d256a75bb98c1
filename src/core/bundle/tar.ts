// Reading tar archives (the bundles the README's shell script makes with `tar -czf`): ustar and
// GNU headers, GNU long names (`L`) and pax `path` records. Regular files only: a link is an error
// of its own (not followed), other entries (directories) are skipped.

import { ProfileError } from '../types.ts';
import { memberOf, unsafeName, type ZipContents } from './zip.ts';

/** A ustar or GNU tar header at byte 0 (the magic at 257). */
export function looksLikeTar(b: Uint8Array): boolean {
  if (b.length < 512) return false;
  const m = String.fromCharCode(...b.subarray(257, 262));
  return m === 'ustar';
}

function field(b: Uint8Array, o: number, n: number): string {
  let e = o;
  while (e < o + n && b[e] !== 0) e++;
  return new TextDecoder().decode(b.subarray(o, e));
}

function octal(b: Uint8Array, o: number, n: number): number {
  // GNU base-256 for sizes past 8 GiB: high bit of the first byte.
  if (b[o] & 0x80) {
    let v = b[o] & 0x7f;
    for (let i = 1; i < n; i++) v = v * 256 + b[o + i];
    return v;
  }
  const s = field(b, o, n).trim();
  return s === '' ? 0 : Number.parseInt(s, 8);
}

/** The regular files of a tar archive; members past a cut end or with unsafe names are errors. */
export function readTar(b: Uint8Array, fileName: string, memberCap = 1 << 30): ZipContents {
  const out: ZipContents = { members: [], errors: [] };
  let o = 0;
  let longName: string | null = null;
  let longLink: string | null = null;
  while (o + 512 <= b.length) {
    if (b.subarray(o, o + 512).every((x) => x === 0)) break; // end of archive
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : b[o + i];
    if (sum !== octal(b, o + 148, 8)) {
      if (out.members.length === 0 && out.errors.length === 0)
        throw new ProfileError(`${fileName}: not a readable tar archive: header checksum`, 'unknown', {
          offset: o,
        });
      out.errors.push({
        name: '?',
        offset: o,
        message: `damaged tar header at byte ${o}: the rest is not read`,
      });
      break;
    }
    const type = String.fromCharCode(b[o + 156] || 0x30);
    const size = octal(b, o + 124, 12);
    const prefix = field(b, o + 345, 155);
    let name = longName ?? (prefix ? `${prefix}/${field(b, o, 100)}` : field(b, o, 100));
    longName = null;
    const data = o + 512;
    const next = data + Math.ceil(size / 512) * 512;
    if (data + size > b.length) {
      out.errors.push({ name, offset: o, message: `${name}: damaged: cut short (${size} bytes claimed)` });
      break;
    }
    const body = b.subarray(data, data + size);
    if (type === 'L') longName = field(body, 0, body.length);
    else if (type === 'K') longLink = field(body, 0, body.length);
    else if (type === 'x') {
      const m = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(new TextDecoder().decode(body));
      if (m) longName = m[1];
    } else if (type === '0' || type === '7') {
      name = name.replace(/^\.\//, '');
      const unsafe = unsafeName(name);
      if (unsafe !== null) out.errors.push({ name, offset: o, message: `${name}: not unpacked: ${unsafe}` });
      else if (size > memberCap)
        out.errors.push({
          name,
          offset: o,
          message: `${name}: not unpacked: ${size} bytes, more than the cap`,
        });
      else out.members.push(memberOf(name, body));
    } else if (type === '1' || type === '2') {
      // Links are not followed (one could name a file outside the bundle): said, not dropped silently.
      const to = longLink ?? field(b, o + 157, 100);
      out.errors.push({
        name,
        offset: o,
        message: `${name}: not unpacked: a ${type === '2' ? 'symbolic' : 'hard'} link (to ${to}); pack the file itself`,
      });
    }
    if (type !== 'K') longLink = null;
    o = next;
  }
  return out;
}
