// What a command opens: the profile (and, for `diff`, its baseline) with the symbol files given,
// through the core's analysis seam (core/analysis/session.ts) as the app's worker opens a drop, so
// the CLI and the app answer alike. `--root` adds the mapped files found under a copy of the
// recording machine's files.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { AnalysisSession, type SessionResult } from '../core/analysis/session.ts';
import type { DroppedFile } from '../core/formats/importer.ts';
import { UnknownSampleType } from '../core/model/sample-types.ts';
import { type Demangle, loadDemangler } from '../core/symbols/demangle.ts';
import { looksLikeElf } from '../core/symbols/elf.ts';
import { oneLine } from '../core/text/escape.ts';
import { basename } from '../core/text/names.ts';
import { ProfileError } from '../core/types.ts';
import type { WorkerView } from '../core/view/schema.ts';
import { UsageError } from './args.ts';
import { nodeDisassembler } from './disasm.ts';
import { findMappedFiles } from './root.ts';

export interface CliIo {
  /** Writes to standard output; throws OutputClosed once its reader is gone. */
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => Uint8Array;
  /** Reads all of standard input (a FILE given as `-`); absent where there is none. */
  stdin?: () => Uint8Array;
  writeFile?: (path: string, bytes: Uint8Array) => void;
}

/**
 * Standard output's reader closed it (`flamelens fold big.pb.gz | head -1`): the command stops
 * there and exits 0, quietly, as Unix tools do.
 */
export class OutputClosed extends Error {}

/** A FILE that is standard input. */
export const STDIN = '-';

/** A file as messages and the session name it: standard input as `stdin`. */
export function shownName(file: string): string {
  return file === STDIN ? 'stdin' : file;
}

/** The bytes of a file (of standard input for `-`), or null after saying why they cannot be read. */
export function readOrReport(file: string, io: CliIo): Uint8Array | null {
  try {
    if (file !== STDIN) return io.readFile(file);
    if (!io.stdin) throw new Error('no standard input');
    return io.stdin();
  } catch (e) {
    const code = (e as { code?: string }).code;
    io.stderr(`flamelens: ${shownName(file)}: cannot read file${code ? ` (${code})` : ''}\n`);
    return null;
  }
}

/**
 * False, after saying so, when what is given as the profile is an ELF file (a binary is no profile:
 * the session's message for it speaks to the app's drop, "drop it together with its binaries").
 */
function profileNotElf(file: string, bytes: Uint8Array, io: CliIo): boolean {
  if (!looksLikeElf(bytes)) return true;
  io.stderr(
    `flamelens: ${oneLine(shownName(file))}: an ELF file (a binary or library), not a profile: give it with --binary to symbolize the profile (at byte 0)\n`,
  );
  return false;
}

/** The wasm demangler, loaded from node_modules (Vite's `?init` import exists only in Vite). */
export async function nodeDemangler(): Promise<Demangle> {
  // Beside the built CLI (dist-cli/), else from node_modules (tsx runs the TypeScript).
  const beside = new URL('./index_bg.wasm', import.meta.url);
  const path = existsSync(beside)
    ? beside
    : createRequire(import.meta.url).resolve('gecko-profiler-demangle/index_bg.wasm');
  return loadDemangler({ wasm: readFileSync(path) });
}

export interface OpenRequest {
  /** The profile (or a bundle holding it). */
  file: string;
  /** `diff`: the baseline the profile is compared with. */
  base?: string;
  /** `--binary` and `--symbols` files. */
  symbolFiles: readonly string[];
  /** `--root`: where the mapped files are found. */
  root?: string;
  /** `--fallback-to-host`: what the root lacks, from this machine. */
  fallbackToHost?: boolean;
  /** `--profile`: of a bundle holding several profiles, the one to open. */
  profile?: string;
  view: WorkerView;
}

export interface Opened {
  session: AnalysisSession;
  /** The last answer: the symbols in use. */
  result: SessionResult;
}

/**
 * Opens what a command asks for; null (after printing why) when something cannot be read. Throws a
 * UsageError for a sample type a profile does not have.
 */
export async function openForCommand(req: OpenRequest, io: CliIo): Promise<Opened | null> {
  const given: DroppedFile[] = [];
  for (const f of req.symbolFiles) {
    const bytes = readOrReport(f, io);
    if (!bytes) return null;
    given.push({ name: basename(shownName(f)), bytes });
  }
  const session = new AnalysisSession({ loadDemangler: nodeDemangler, loadDisassembler: nodeDisassembler });
  const add = async (path: string, files: DroppedFile[], view: WorkerView, slot: 'main' | 'base') => {
    try {
      return await session.add(files, view, { slot, profile: req.profile, strictSampleType: true });
    } catch (e) {
      // A --sample-type the profile lacks is bad usage: the message names those it has.
      if (e instanceof UnknownSampleType) throw new UsageError(`${shownName(path)}: ${e.message}`);
      if (!(e instanceof ProfileError)) throw e;
      io.stderr(`flamelens: ${oneLine(shownName(path))}: ${oneLine(e.describe())}\n`);
      return null;
    }
  };
  const bytes = readOrReport(req.file, io);
  if (!bytes || !profileNotElf(req.file, bytes, io)) return null;
  const mainView = req.base === undefined ? req.view : { ...req.view, mode: 'graph' as const };
  const name = basename(shownName(req.file));
  let result = await add(req.file, [{ name, bytes }, ...given], mainView, 'main');
  if (!result) return null;
  if (req.base !== undefined) {
    const baseBytes = readOrReport(req.base, io);
    if (!baseBytes || !profileNotElf(req.base, baseBytes, io)) return null;
    const baseName = basename(shownName(req.base));
    result = await add(req.base, [{ name: baseName, bytes: baseBytes }], req.view, 'base');
    if (!result) return null;
  }
  if (req.root !== undefined) {
    // Both sides' mapped files: symbol files serve both, each mapping taking the one matching it.
    const found = fromRoot(session, req.root, req.fallbackToHost === true, io);
    if (found.length > 0) result = (await add(req.root, found, req.view, 'main')) ?? result;
  }
  return { session, result };
}

/**
 * The files the open profile maps (and their debug files) found under `root` (and, with
 * `fallbackToHost`, on this machine for what it lacks), named by the paths the profile maps them
 * from (as a bundle's are); what is not found, or found on this machine, is said.
 */
function fromRoot(session: AnalysisSession, root: string, fallbackToHost: boolean, io: CliIo): DroppedFile[] {
  const mappings = session.mappings() ?? [];
  const paths = [...new Set(mappings.map((m) => m.path))];
  const buildIds = new Map<string, string>();
  for (const m of mappings) if (m.buildId !== undefined) buildIds.set(m.path, m.buildId);
  const found = findMappedFiles(paths, {
    root,
    debug: true,
    ...(fallbackToHost && { fallback: '', buildIds }),
  });
  for (const m of found.missing) io.stderr(`flamelens: note: ${oneLine(m.path)}: ${oneLine(m.why)}\n`);
  for (const p of found.fromFallback)
    io.stderr(`flamelens: note: ${oneLine(p)}: not under ${oneLine(root)}: this machine's file used\n`);
  return found.files.map((f) => ({ name: f.path, bytes: f.bytes }));
}
