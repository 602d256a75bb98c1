// What an importer is: the contract every formats/NAME.ts fulfils, listed in detect.ts's IMPORTERS.

import type { FrameGranularity } from '../model/fold.ts';
import type { FoldedProfile, FormatId, RawProfile } from '../types.ts';

export interface ParseProfileOptions {
  onProgress?: (fraction: number) => void;
  /** The file's name, for previews' metadata. */
  fileName?: string;
  /** The granularity the fold will use, so that a preview names unnamed code as the fold will. */
  granularity?: FrameGranularity;
}

/**
 * A coarse first picture of a large file, from an importer that can give one before its full
 * parse: a FoldedProfile of the heavy stacks (named as the fold names them; light children as
 * LIGHT_CHILDREN frames), the full graph's depth, and the time it took.
 */
export interface ImporterPreview {
  profile: FoldedProfile;
  maxDepth: number;
  ms: number;
  /**
   * The picture is from one record in this many (spread over the whole file), weighed up to the
   * file's total: a file of many short records, which the exact picture would take as long to read
   * as the parse itself. Absent: every record was read.
   */
  sampledEvery?: number;
}

export interface Importer {
  id: FormatId;
  sniff: (bytes: Uint8Array) => boolean;
  parse: (bytes: Uint8Array, opts: ParseProfileOptions) => RawProfile;
  /** Optional capability: parse, posting a preview first when the file is large enough. */
  parseWithPreview?: (
    bytes: Uint8Array,
    opts: ParseProfileOptions & { onPreview: (p: ImporterPreview) => void },
  ) => RawProfile;
}
