// Reading zip archives (bundles) member by member, defensively: one damaged member, one whose size
// claims pass the cap (a zip bomb) or one named `../x` is an error of its own, and the others are
// still read. fflate inflates; its unzipSync is not used because it stops at the first damaged
// member, checks no CRC and trusts the sizes a member claims. Here the central directory is read
// (sizes, CRC-32, offsets), members whose data overlap another's are refused (Info-ZIP's rule: the
// bomb that packs one stream under thousands of names), and a member is inflated only when read
// (`ZipMember.bytes`, lazily: a bundle's objects the profile does not map are never inflated), into
// a buffer of its claimed size (never more), its CRC checked.

import { inflateSync } from 'fflate';
import { INFLATE_LIMITS, inflateLimitMessage } from '../formats/inflate.ts';
import { crc32 } from '../symbols/symbolize.ts';
import { ProfileError } from '../types.ts';

/** The most one member may claim to hold, and all members together (INFLATE_LIMITS.maxOutput). */
export const ZIP_MEMBER_CAP = INFLATE_LIMITS.maxOutput;
export const ZIP_TOTAL_CAP = INFLATE_LIMITS.maxOutput;

export interface ZipMember {
  /** The member's name as stored (forward slashes). */
  name: string;
  /** Its size, as the archive records it (checked when it is read). */
  size: number;
  /**
   * Its contents, inflated when first read (then kept). Throws a ZipDamage when they are not what
   * the archive records (damaged data, another CRC-32 or size).
   */
  readonly bytes: Uint8Array;
}

/** A member that did not inflate to what the archive records (at its local header's offset). */
export class ZipDamage extends ProfileError {
  constructor(message: string, offset: number) {
    super(message, 'unknown', { offset });
    this.name = 'ZipDamage';
  }
}

export interface ZipMemberError {
  name: string;
  /** Where its local header starts. */
  offset: number;
  message: string;
}

export interface ZipContents {
  members: ZipMember[];
  /** Members that were not unpacked, and why. */
  errors: ZipMemberError[];
}

export function looksLikeZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

/** Why a member name is unsafe (absolute, `..`, backslashes, NUL), or null when it is fine. */
export function unsafeName(name: string): string | null {
  if (name.includes('\0')) return 'its name holds a NUL byte';
  if (name.includes('\\')) return 'its name holds a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'its name is an absolute path';
  if (name.split('/').includes('..')) return 'its name climbs out of the archive (`..`)';
  return null;
}

const u16 = (b: Uint8Array, o: number) => b[o] | (b[o + 1] << 8);
const u32 = (b: Uint8Array, o: number) =>
  (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;

/**
 * The members of a zip archive. Throws a ProfileError (with the byte offset) only when the archive
 * as a whole cannot be read: no end-of-directory record, a directory outside the file. `caps`
 * lowers the size caps (tests).
 */
export function readZip(
  b: Uint8Array,
  fileName: string,
  caps: { member?: number; total?: number } = {},
): ZipContents {
  const memberCap = caps.member ?? ZIP_MEMBER_CAP;
  const totalCap = caps.total ?? ZIP_TOTAL_CAP;
  const fail = (what: string, offset: number) =>
    new ProfileError(`${fileName}: not a readable zip archive: ${what}`, 'unknown', { offset });
  // End of central directory: 22 bytes plus a comment of at most 65535.
  let eocd = -1;
  for (let o = b.length - 22; o >= 0 && o >= b.length - 22 - 65535; o--) {
    if (u32(b, o) === 0x06054b50) {
      eocd = o;
      break;
    }
  }
  if (eocd < 0) throw fail('no end-of-directory record (cut short?)', b.length);
  const count = u16(b, eocd + 10);
  const dirSize = u32(b, eocd + 12);
  const dirStart = u32(b, eocd + 16);
  if (count === 0xffff || dirStart === 0xffffffff)
    throw fail('a zip64 archive (over 4 GiB or 65535 members), which is not read', eocd);
  if (dirStart + dirSize > eocd) throw fail('its directory lies outside the file', eocd + 16);
  const out: ZipContents = { members: [], errors: [] };
  const utf8 = new TextDecoder();
  let claimed = 0;
  /** The byte ranges of the members' local headers and data, to refuse overlaps. */
  const spans: { from: number; to: number; name: string }[] = [];
  let o = dirStart;
  for (let i = 0; i < count; i++) {
    if (o + 46 > eocd || u32(b, o) !== 0x02014b50) throw fail(`directory entry ${i + 1} is damaged`, o);
    const flags = u16(b, o + 8);
    const method = u16(b, o + 10);
    const crc = u32(b, o + 16);
    const csize = u32(b, o + 20);
    const usize = u32(b, o + 24);
    const nameLen = u16(b, o + 28);
    const extraLen = u16(b, o + 30);
    const commentLen = u16(b, o + 32);
    const local = u32(b, o + 42);
    const next = o + 46 + nameLen + extraLen + commentLen;
    if (next > eocd) throw fail(`directory entry ${i + 1} runs past the directory`, o);
    const name = utf8.decode(b.subarray(o + 46, o + 46 + nameLen));
    o = next;
    if (name.endsWith('/')) continue; // a directory
    const err = (message: string) => out.errors.push({ name, offset: local, message });
    const unsafe = unsafeName(name);
    if (unsafe !== null) {
      err(`${name}: not unpacked: ${unsafe}`);
      continue;
    }
    if (flags & 1) {
      err(`${name}: not unpacked: it is encrypted`);
      continue;
    }
    if (usize > memberCap) {
      err(`${name}: not unpacked: it claims ${usize} bytes, more than the cap of ${memberCap} (a zip bomb?)`);
      continue;
    }
    if (claimed + usize > totalCap) {
      err(`${name}: not unpacked: the members claim more than the cap of ${totalCap} bytes in all`);
      continue;
    }
    const ratio =
      method === 8
        ? inflateLimitMessage(name, usize, csize, { ...INFLATE_LIMITS, maxOutput: Number.POSITIVE_INFINITY })
        : null;
    if (ratio !== null) {
      err(`${name}: not unpacked: ${ratio}`);
      continue;
    }
    if (local + 30 > b.length || u32(b, local) !== 0x04034b50) {
      err(`${name}: damaged: no local header at byte ${local}`);
      continue;
    }
    const data = local + 30 + u16(b, local + 26) + u16(b, local + 28);
    if (data + csize > b.length) {
      err(`${name}: damaged: its ${csize} bytes run past the end of the file`);
      continue;
    }
    const span = { from: local, to: data + csize, name };
    const over = spans.find((x) => x.from < span.to && span.from < x.to);
    if (over !== undefined) {
      err(`${name}: not unpacked: its data overlap those of ${over.name} (overlapping members: a zip bomb)`);
      continue;
    }
    spans.push(span);
    claimed += usize;
    if (method !== 0 && method !== 8) {
      err(`${name}: not unpacked: compression method ${method} is not read (only stored and deflate)`);
      continue;
    }
    out.members.push(
      lazyMember(name, usize, () => inflateMember(b, data, csize, usize, method, crc, name, local)),
    );
  }
  return out;
}

/** A member whose bytes are made when first read, then kept. */
function lazyMember(name: string, size: number, make: () => Uint8Array): ZipMember {
  let bytes: Uint8Array | null = null;
  return {
    name,
    size,
    get bytes() {
      bytes ??= make();
      return bytes;
    },
  };
}

function inflateMember(
  b: Uint8Array,
  data: number,
  csize: number,
  usize: number,
  method: number,
  crc: number,
  name: string,
  local: number,
): Uint8Array {
  const packed = b.subarray(data, data + csize);
  let bytes: Uint8Array;
  try {
    bytes = method === 0 ? packed.slice() : inflateSync(packed, { out: new Uint8Array(usize) });
  } catch (e) {
    throw new ZipDamage(`${name}: damaged: ${e instanceof Error ? e.message : String(e)}`, local);
  }
  if (bytes.length !== usize || crc32(bytes) !== crc)
    throw new ZipDamage(
      `${name}: damaged: its contents do not match the CRC-32 and size the archive records`,
      local,
    );
  return bytes;
}

/** A member already in memory (a tar's). */
export function memberOf(name: string, body: Uint8Array): ZipMember {
  let kept: Uint8Array | null = null;
  return {
    name,
    size: body.length,
    // copied out of the archive when first read: only the members a profile wants take memory
    get bytes() {
      kept ??= body.slice();
      return kept;
    },
  };
}
