// What an importer is: the contract every formats/NAME.ts fulfils, listed in detect.ts's IMPORTERS.

import type { FrameNames } from '../model/naming.ts';
import type { InputFile } from '../symbols/symbolize.ts';
import type { FoldedProfile, FormatId, Granularity, ProfileWarning, RawProfile } from '../types.ts';

export interface ParseProfileOptions {
  onProgress?: (fraction: number) => void;
  /** The file's name, for previews' metadata. */
  fileName?: string;
  /**
   * The fold's granularity and naming of unnamed code (FrameNamingOptions; unnamed code one frame
   * per module unless `unnamedPerAddress`), so that a preview names frames as the fold will.
   */
  granularity?: Granularity;
  unnamedPerAddress?: boolean;
  /**
   * Folds a profile read from part of the file as the whole profile will be folded (the session's
   * fold: the symbol files dropped with it, the view's granularity and names). A preview that
   * parses a sample of the file's records folds it through this when given (`Importer.
   * previewSymbolizes`); without it, with the fold's own naming at `granularity`.
   */
  foldSample?: (raw: RawProfile) => FoldedProfile;
  /**
   * Symbol files came with the profile: its frames will be named by them. Only an importer whose
   * preview folds through `foldSample` then previews (another would name frames otherwise than the
   * full tree does).
   */
  withSymbols?: boolean;
  /** The fold's function names (FoldSpec.names: short by default), that a preview names them so too. */
  names?: FrameNames;
}

/**
 * A coarse first picture of a large file, from an importer that can give one before its full
 * parse: a FoldedProfile of the heavy stacks (named as the fold names them; light children as
 * LIGHT_CHILDREN frames), the full graph's depth, and the time it took.
 */
export interface ImporterPreview {
  profile: FoldedProfile;
  /**
   * A file that opens as a comparison (difffolded's two counts per stack): its baseline's picture,
   * `profile` being the comparison's; the two are drawn as the comparison is (pipeline.parse).
   */
  baseline?: FoldedProfile;
  maxDepth: number;
  ms: number;
  /**
   * The picture is from one record in this many (spread over the whole file), weighed up to the
   * file's total: a file of many short records, which the exact picture would take as long to read
   * as the parse itself. Absent: every record was read.
   */
  sampledEvery?: number;
}

/** A parse begun while a large file was read (the reading then hides most of it), to finish. */
export interface ParseInProgress {
  /** All the bytes are in: what parse (or parseWithPreview, with `onPreview`) would give. */
  finish(opts: ParseProfileOptions & { onPreview?: (p: ImporterPreview) => void }): RawProfile;
}

/**
 * A file of a drop, as read: the profile (or a candidate for it) or a file for the symbolizer
 * (the InputFile part is what it reads). A bundle is opened into such files (bundle/bundle.ts).
 */
export interface DroppedFile extends InputFile {
  /** Said of the file while reading it (a sampled large profile), shown with its parser's. */
  warnings?: ProfileWarning[];
  /**
   * An object (or debug file) of a bundle, whose `bytes` are unpacked when first read: only the
   * files the profile's mappings want are (analysis/inputs.ts), and reading damaged ones throws a
   * ProfileError. `bundle`: the bundle's name; `debugFor`: the object a debug file describes.
   */
  fromBundle?: { bundle: string; debugFor?: string };
  /** The whole file's size, where `bytes` hold less of it (a sampled large profile). */
  size?: number;
  /**
   * A parse begun while the file was read (a large profile: detect.ts's streamingParse, fed with
   * all of `bytes`, or chunkedParse, fed with its chunks: `bytes` is then only the file's head):
   * the profile's parse finishes it.
   */
  stream?: ParseInProgress;
}

/** A parse begun while a large file is still being read into its buffer (Importer.stream). */
export interface ImporterStream extends ParseInProgress {
  /**
   * The first `available` bytes of the buffer are in; work on them for about `budgetMs` at most
   * (what is left is done in later calls or by `finish`).
   */
  advance(available: number, budgetMs?: number): void;
}

/**
 * A parse of a large file from its chunks as they are read, with no buffer of the file's size
 * (Importer.chunks): each chunk is kept (not copied) until parsed, the caller not reusing it.
 */
export interface ImporterChunks extends ParseInProgress {
  /**
   * The file's next bytes (the first ones were given to Importer.chunks); work on them for about
   * `budgetMs` at most (what is left is done in later calls or by `finish`).
   */
  push(chunk: Uint8Array, budgetMs?: number): void;
}

/** How a format's text is sampled: where its records start, and what each window needs around it. */
export interface TextSampling {
  /** The start of the first record at or after `from` (a line start), or -1 when none is. */
  recordAt(bytes: Uint8Array, from: number): number;
  /** Where records may begin (after the file's header); default 0. */
  bodyStart?(bytes: Uint8Array): number;
  /** Where records end (before a trailer such as a heap profile's maps); default the file's end. */
  bodyEnd?(bytes: Uint8Array): number;
  /**
   * How far from the file's end `bodyEnd` looks (it is then given only those last bytes, as a
   * file not yet read is sampled: sampledFrom); default 1 MB.
   */
  tailBytes?: number;
}

/** How an importer's records are sampled for its first picture: where, and about how many bytes in how many windows. */
export interface RecordSampling {
  how: TextSampling;
  budget: number;
  windows: number;
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
  /**
   * Optional capability: the file's records can be sampled where they lie (text-preview.ts), so a
   * first picture can be drawn from windows read before the whole file is (sampledFrom), each
   * window's records parsed by `parse` as a file of their own.
   */
  sampling?: RecordSampling;
  /**
   * The preview folds what it read through `ParseProfileOptions.foldSample`, given: it names frames
   * as the full fold does even with symbol files (`withSymbols`), and may preview such a drop.
   */
  previewSymbolizes?: true;
  /**
   * Optional capability: a parse that starts on the buffer a file is being read into (its full
   * size, the first bytes in); null when this file cannot be parsed so.
   */
  stream?: (bytes: Uint8Array) => ImporterStream | null;
  /**
   * Optional capability: a parse from chunks (ImporterChunks), given the file's first chunk and its
   * size, and what frees a chunk's buffer once parsed; null when this file cannot be parsed so (it
   * is then read into one buffer).
   */
  chunks?: (
    first: Uint8Array,
    size: number,
    release?: (buffer: ArrayBuffer) => void,
  ) => ImporterChunks | null;
}
