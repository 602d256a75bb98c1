// `flamelens` command line: the same core as the app, run in node.
//   flamelens fold FILE   folded stacks on stdout (warnings on stderr)
//   flamelens info FILE   JSON metadata
//   flamelens proto FILE -o OUT.pb.gz   the folded profile as gzipped pprof profile.proto
// Options are declared in OPTIONS; a command reads them from `args.options`.

import { readFileSync, readSync, realpathSync, writeFileSync, writeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pkg from '../../package.json' with { type: 'json' };
import type { AnalysisSession } from '../core/analysis/session.ts';
import { frameNames } from '../core/model/frames.ts';
import type { LabelSummary } from '../core/model/labels.ts';
import { parseLabelFilter } from '../core/model/labels.ts';
import type { SourceListing } from '../core/model/lines.ts';
import type { SymbolsState } from '../core/pipeline.ts';
import { parseBase } from '../core/symbols/placement.ts';
import type { SymbolizeReport } from '../core/symbols/symbolize.ts';
import { oneLine, terminalText } from '../core/text/escape.ts';
import { functionOf } from '../core/text/frame-text.ts';
import { basename } from '../core/text/names.ts';
import { compilePattern } from '../core/text/pattern.ts';
import { pprofPercentage, pprofScaledLabel } from '../core/text/pprof-measure.ts';
import { formatBytes } from '../core/text/units.ts';
import type { FoldedProfile, Granularity, LabelFilter, ProfileWarning } from '../core/types.ts';
import { ProfileError } from '../core/types.ts';
import { DEFAULT_VIEW, type WorkerView, workerViewOf } from '../core/view/schema.ts';
import { type ParsedArgs, parseArgs, UsageError, usage, usageLine } from './args.ts';
import { type BundleResult, makeBundle } from './bundle.ts';
import { disasmCommand } from './disasm.ts';
import { dotOptions, dotText } from './dot.ts';
import { type CliIo, OutputClosed, openForCommand, readOrReport, STDIN, shownName } from './open.ts';

function where(w: ProfileWarning): string {
  if (w.offset !== undefined && w.line !== undefined) return ` (at line ${w.line}, byte ${w.offset})`;
  if (w.offset !== undefined) return ` (at byte ${w.offset})`;
  if (w.line !== undefined) return ` (at line ${w.line})`;
  return '';
}

/** How many values of each label key `info` lists. */
const INFO_LABEL_VALUES = 10;

/**
 * A function's listing as `pprof -list` prints it: a ROUTINE header per file, then flat and cum
 * per line with the source text where the file can be read ('.' where a line has none); values in
 * the sample type's unit as pprof scales them (`958ms` of cpu-clock's nanoseconds, counts as they are).
 */
function listingText(l: SourceListing, whole: number, unit: string, io: CliIo): string {
  const format = (v: number) => pprofScaledLabel(v, unit, 'minimum');
  let out = '';
  const files = [...new Set(l.lines.map((x) => x.file))];
  for (const file of files) {
    const rows = l.lines.filter((x) => x.file === file);
    const flat = rows.reduce((t, r) => t + r.self, 0);
    let text: string[] | null = null;
    try {
      if (file) text = new TextDecoder().decode(io.readFile(file)).split('\n');
    } catch {
      text = null;
    }
    out += `ROUTINE ======================== ${l.name} in ${file || '??'}\n`;
    out += `${format(flat).padStart(10)} ${format(l.total).padStart(10)} (flat, cum) ${pprofPercentage(l.total, whole)} of Total\n`;
    const byLine = new Map(rows.map((r) => [r.line, r]));
    const first = Math.max(1, rows[0].line - 2);
    const last = text ? Math.min(text.length, rows[rows.length - 1].line + 2) : rows[rows.length - 1].line;
    for (let n = first; n <= last; n++) {
      const r = byLine.get(n);
      if (!r && !text) continue;
      const f = r && r.self > 0 ? format(r.self) : '.';
      const c = r && r.total > 0 ? format(r.total) : '.';
      out += `${f.padStart(10)} ${c.padStart(10)} ${String(n).padStart(6)}:${text ? ` ${text[n - 1] ?? ''}` : ''}\n`;
    }
  }
  return out;
}

/**
 * `info`'s JSON: `samples` counts samples (`samples`, from the session), `total` sums the sample
 * type's values (nanoseconds, bytes…: `sampleType` says which), `samplingTimeUs` is that total as
 * time where the period is one.
 */
export function infoJson(
  p: FoldedProfile,
  samples: number,
  symbols?: SymbolizeReport,
  labels: LabelSummary[] = [],
): Record<string, unknown> {
  const m = p.meta;
  return {
    file: m.fileName,
    format: m.format,
    wordSize: m.wordSize ?? null,
    byteOrder: m.byteOrder ?? null,
    periodUs: m.periodUs,
    samples,
    total: m.totalSamples,
    samplingTimeUs: m.samplingTimeUs ?? null,
    sampleType: m.sampleType,
    sampleTypes: m.sampleTypes,
    period: m.period ?? null,
    stacks: p.stacks.count,
    frames: p.frames.count,
    mappings: m.mappings.map((x) => ({ start: x.start, end: x.end, offset: x.offset, path: x.path })),
    warnings: m.warnings.map((w) => ({ message: w.message, offset: w.offset ?? null, line: w.line ?? null })),
    labels,
    labelFilters: m.labelFilters ?? [],
    labelDropped: m.labelDropped ?? null,
    groupBy: m.groupBy ?? null,
    headerLines: m.headerLines ?? [],
    extra: m.extra ?? {},
    symbols: symbols
      ? {
          symbolized: symbols.matched,
          unsymbolizedMappings: symbols.unsymbolizedMappings,
          unmatchedFiles: symbols.unmatchedFiles,
        }
      : null,
  };
}

/** Runs the CLI; resolves to the exit status. */
export async function main(argv: string[], given: CliIo = nodeIo()): Promise<number> {
  // What the files say reaches a terminal: no control but our own newlines and tabs (an ESC in a
  // name would retitle or clear it), no bidi override (text/escape.ts).
  const io: CliIo = {
    ...given,
    stdout: (t) => given.stdout(terminalText(t)),
    stderr: (t) => given.stderr(terminalText(t)),
  };
  try {
    return await run(argv, io);
  } catch (e) {
    if (e instanceof OutputClosed) return 0;
    throw e;
  }
}

async function run(argv: string[], io: CliIo): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`flamelens: ${e.message}\n${usageLine(e.command)}`);
    return 2;
  }
  if (args.options.has('help')) {
    io.stdout(usage(args.command));
    return 0;
  }
  if (args.options.has('version')) {
    io.stdout(`flamelens ${pkg.version}\n`);
    return 0;
  }
  if (!args.command) {
    io.stderr(usage());
    return 2;
  }
  const fromStdin = [
    ...args.positional,
    ...(args.options.get('binary') ?? []),
    ...(args.options.get('symbols') ?? []),
  ];
  if (fromStdin.filter((f) => f === STDIN).length > 1) {
    io.stderr(`flamelens: only one file can be read from standard input (-)\n${usageLine(args.command)}`);
    return 2;
  }
  if (args.options.has('fallback-to-host') && !args.options.has('root')) {
    io.stderr(`flamelens: --fallback-to-host goes with --root DIR\n${usageLine(args.command)}`);
    return 2;
  }
  if (args.command === 'bundle') return bundleCommand(args, io);
  const files = args.command === 'diff' || args.command === 'list' || args.command === 'disasm' ? 2 : 1;
  if (args.positional.length !== files) {
    const what =
      args.command === 'list' || args.command === 'disasm'
        ? 'REGEX and FILE'
        : files === 2
          ? 'two files, BASE and NEW'
          : 'one FILE';
    io.stderr(`flamelens: expected ${what}\n${usageLine(args.command)}`);
    return 2;
  }
  const output = args.options.get('output')?.[0];
  if (args.command === 'proto' && (output === undefined || output === '')) {
    io.stderr(`flamelens: proto needs -o OUT.pb.gz\n${usageLine(args.command)}`);
    return 2;
  }
  let view: WorkerView;
  try {
    view = viewOfOptions(args);
  } catch (e) {
    io.stderr(`flamelens: ${e instanceof Error ? e.message : String(e)}\n${usageLine(args.command)}`);
    return 2;
  }
  const file = args.positional[files - 1];
  let opened: Awaited<ReturnType<typeof openForCommand>>;
  try {
    opened = await openForCommand(
      {
        file,
        ...(args.command === 'diff' && { base: args.positional[0] }),
        symbolFiles: [...(args.options.get('binary') ?? []), ...(args.options.get('symbols') ?? [])],
        root: args.options.get('root')?.[0],
        fallbackToHost: args.options.has('fallback-to-host'),
        profile: args.options.get('profile')?.[0],
        view,
      },
      io,
    );
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`flamelens: ${e.message}\n${usageLine(args.command)}`);
    return 2;
  }
  if (!opened) return 1;
  reportSymbols(opened.result.symbols, io);
  const { session } = opened;
  switch (args.command) {
    case 'diff': {
      const mismatch = session.comparisonWarning();
      if (mismatch !== null)
        io.stderr(`flamelens: warning: ${oneLine(mismatch)} (--sample-type chooses what both sides sum)\n`);
      session.writeFolded([], io.stdout, { normalize: args.options.has('normalize') });
      return 0;
    }
    case 'list':
      return listCommand(session, args.positional[0], io);
    case 'fold': {
      const { fileName, warnings } = session.folded().meta;
      // A bundle's profile is named too: the warnings' offsets are in it, not in the bundle.
      const shown =
        fileName === basename(shownName(file)) ? shownName(file) : `${shownName(file)}: ${fileName}`;
      for (const w of warnings)
        io.stderr(`flamelens: ${oneLine(shown)}: warning: ${oneLine(w.message)}${where(w)}\n`);
      // Written as it is made: with DWARF's inline frames the text can be gigabytes.
      session.writeFolded([], io.stdout);
      return 0;
    }
    case 'disasm':
      return disasmCommand({ ...io, regex: args.positional[0], session, intel: args.options.has('intel') });
    case 'dot': {
      const opts = dotOptions(args.options);
      if (typeof opts === 'string') {
        io.stderr(`flamelens: ${opts}\n`);
        return 2;
      }
      const names = view.fullNames ? 'full' : 'short';
      io.stdout(
        dotText(
          {
            profile: session.folded(),
            raw: session.loadedProfile().raw,
            names,
            granularity: view.granularity,
            // pprof lists its filter flags as given (`tagfocus=bytes=1kb:4kb`), tagfocus first
            filters: [
              ...(args.options.get('tagfocus') ?? []).map((t) => `tagfocus=${t}`),
              ...(args.options.get('tagignore') ?? []).map((t) => `tagignore=${t}`),
            ],
          },
          opts,
        ),
      );
      return 0;
    }
    case 'info':
      io.stdout(
        `${JSON.stringify(infoJson(session.folded(), session.sampleCount(), opened.result.symbols?.report, session.labels(INFO_LABEL_VALUES)), null, 2)}\n`,
      );
      return 0;
    case 'proto': {
      const bytes = session.proto();
      try {
        (io.writeFile ?? writeFileSync)(output!, bytes);
      } catch (e) {
        const code = (e as { code?: string }).code;
        io.stderr(`flamelens: ${output}: cannot write file${code ? ` (${code})` : ''}\n`);
        return 1;
      }
      return 0;
    }
  }
}

/**
 * The view a command's options ask for: the same view the app's worker is given, so both answer
 * alike. Throws on an option value that cannot be read.
 */
function viewOfOptions(args: ParsedArgs): WorkerView {
  const granularity = (args.options.get('granularity')?.[0] ?? 'functions') as Granularity;
  if (!['functions', 'lines', 'addresses'].includes(granularity))
    throw new Error('--granularity is functions, lines or addresses');
  const labelFilters: LabelFilter[] = [];
  for (const t of args.options.get('tagfocus') ?? []) labelFilters.push(parseLabelFilter(t, 'focus'));
  for (const t of args.options.get('tagignore') ?? []) labelFilters.push(parseLabelFilter(t, 'ignore'));
  const groupBy = args.options.get('group-by')?.[0];
  if (groupBy === '') throw new Error('--group-by needs a label key');
  const placements = (args.options.get('place') ?? []).map((t) => {
    const at = t.lastIndexOf('@');
    const base = at > 0 ? parseBase(t.slice(at + 1)) : null;
    if (base === null) throw new Error(`--place ${t}: expected FILE@0xBASE`);
    return { file: basename(t.slice(0, at)), base: `0x${base.toString(16)}` };
  });
  const sampleType = args.options.get('sample-type')?.[0];
  return {
    ...workerViewOf(DEFAULT_VIEW),
    granularity,
    mangled: args.options.has('mangled'),
    // pprof -list shows whole names.
    fullNames: args.options.has('full-names') || args.command === 'list',
    inlines: !args.options.has('noinlines'),
    keepDropFrames: args.options.has('keep-drop-frames'),
    labelFilters,
    mode: args.command === 'diff' ? 'diff' : 'graph',
    ...(groupBy !== undefined && { groupBy }),
    ...(placements.length > 0 && { placements }),
    ...(sampleType !== undefined && { sampleType, baseSampleType: sampleType }),
    ...(args.options.has('addresses') && { unnamedPerAddress: true as const }),
  };
}

/** What the symbolizer said of the files given: unusable files, mismatches, placement guesses. */
function reportSymbols(symbols: SymbolsState | null, io: CliIo): void {
  if (!symbols) return;
  for (const e of symbols.errors) io.stderr(`flamelens: warning: ${oneLine(e.message)}\n`);
  for (const w of symbols.report.warnings) io.stderr(`flamelens: warning: ${oneLine(w)}\n`);
  const placement = symbols.placement;
  // A file no mapping takes names nothing (the app's Symbols panel: "matches no mapping"). One
  // refused for its build-id has its warning above; one of a profile without mappings its note below.
  const said = new Set([
    ...symbols.report.mismatched.map((m) => m.elfFile),
    ...(placement?.hints ?? []).map((h) => h.file),
  ]);
  for (const f of symbols.report.unmatchedFiles)
    if (!said.has(f))
      io.stderr(
        `flamelens: warning: ${oneLine(f)} matches no mapping of the profile (no mapped path or build-id is its): not used\n`,
      );
  for (const h of placement?.hints ?? []) {
    if (placement!.used.some((u) => u.file === h.file)) continue;
    const why =
      h.how === 'calls' ? `${h.calls} of ${h.callers} return addresses follow calls there` : 'unconfirmed';
    io.stderr(
      `flamelens: note: the profile has no mappings: ${h.file} is not placed; guessed --place ${h.file}@${h.base} (${why})\n`,
    );
  }
}

/** `list REGEX FILE`: the listing of each function matching REGEX, as pprof -list prints it. */
function listCommand(session: AnalysisSession, pattern: string, io: CliIo): number {
  const c = compilePattern(pattern);
  if (!c.ok) {
    io.stderr(`flamelens: bad REGEX: ${c.error}\n`);
    return 2;
  }
  const re = c.pattern;
  const profile = session.folded();
  // The frames' functions (a line or address frame's too), as pprof -list matches them.
  const functions = frameNames(profile.frames).map((n, f) => functionOf(profile.frames, f) ?? n);
  const names = [...new Set(functions)].filter((n) => re.test(n)).sort();
  if (names.length === 0) {
    io.stderr(`flamelens: no function matches ${oneLine(pattern)}\n`);
    return 1;
  }
  // pprof's Total is taken before its filters: the samples kept and those label filters left out.
  const whole = profile.meta.totalSamples + (profile.meta.labelDropped?.weight ?? 0);
  const unit = profile.meta.sampleType.unit;
  io.stdout(`Total: ${pprofScaledLabel(whole, unit, 'minimum')}\n`);
  for (const name of names) io.stdout(listingText(session.source(name), whole, unit, io));
  return 0;
}

/** A size with an optional K, M or G suffix (powers of 1024), or null. */
export function parseSize(t: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/i.exec(t.trim());
  if (!m) return null;
  const mult = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2].toUpperCase() as '' | 'K' | 'M' | 'G'];
  return Math.floor(Number(m[1]) * mult);
}

/** `bundle PROFILE… -o OUT`: see cli/bundle.ts. */
function bundleCommand(args: ParsedArgs, io: CliIo): number {
  const output = args.options.get('output')?.[0] ?? (args.options.has('dry-run') ? 'the bundle' : undefined);
  if (args.positional.length === 0 || output === undefined || output === '') {
    io.stderr(`flamelens: bundle needs PROFILE… and -o OUT.zip (or --dry-run)\n${usageLine('bundle')}`);
    return 2;
  }
  const sizeText = args.options.get('max-size')?.[0];
  const maxSize = sizeText === undefined ? undefined : parseSize(sizeText);
  if (maxSize === null) {
    io.stderr(`flamelens: --max-size ${sizeText}: expected a size like 200M\n${usageLine('bundle')}`);
    return 2;
  }
  const profiles: { path: string; bytes: Uint8Array }[] = [];
  for (const p of args.positional) {
    const bytes = readOrReport(p, io);
    if (!bytes) return 1;
    profiles.push({ path: shownName(p), bytes });
  }
  let made: BundleResult;
  try {
    made = makeBundle(profiles, {
      root: args.options.get('root')?.[0] ?? '',
      debug: !args.options.has('no-debug'),
      fallbackToHost: args.options.has('fallback-to-host'),
      ...(maxSize !== undefined && { maxSize }),
    });
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    io.stderr(`flamelens: ${oneLine(e.describe())}\n`);
    return 1;
  }
  // What goes into the bundle, each file (the person sending it sees what they send), then what not.
  const dry = args.options.has('dry-run');
  for (const f of made.files)
    io.stderr(
      `flamelens: ${dry ? 'would pack' : 'packed'} ${oneLine(f.path)} (${f.size} bytes${f.debugFor ? `, debug file of ${oneLine(f.debugFor)}` : ''})\n`,
    );
  for (const m of made.missing)
    io.stderr(`flamelens: warning: not bundled: ${oneLine(m.path)}: ${oneLine(m.why)}\n`);
  for (const p of made.fromHost)
    io.stderr(
      `flamelens: note: ${oneLine(p)}: not under ${oneLine(args.options.get('root')![0])}: this machine's file bundled\n`,
    );
  if (dry) {
    io.stderr(`flamelens: --dry-run: ${output} not written\n`);
    return 0;
  }
  try {
    (io.writeFile ?? writeFileSync)(output, made.bytes);
  } catch (e) {
    const code = (e as { code?: string }).code;
    io.stderr(`flamelens: ${output}: cannot write file${code ? ` (${code})` : ''}\n`);
    return 1;
  }
  const size = made.files.reduce((t, f) => t + f.size, 0);
  io.stderr(
    `flamelens: ${output}: ${profiles.length} profile(s), ${made.files.length} files (${formatBytes(size)} before compression), ${made.bytes.length} bytes\n`,
  );
  return 0;
}

/**
 * Writes all of `text` to file descriptor `fd` before returning: so a command writes no faster
 * than its reader reads (process.stdout queues what a pipe cannot take yet, gigabytes of folded
 * text in memory) and learns at once that the reader is gone (EPIPE: OutputClosed).
 */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let done = 0;
  while (done < bytes.length) {
    try {
      done += writeSync(fd, bytes, done);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'EPIPE') throw new OutputClosed('standard output closed');
      // A non-blocking descriptor (its opener made it so) that is full: wait a millisecond.
      if (code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

export function nodeIo(): CliIo {
  return {
    stdout: (t) => writeAll(1, t),
    stderr: (t) => process.stderr.write(t),
    readFile: (p) => {
      const b = readFileSync(p);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
    writeFile: (p, bytes) => writeFileSync(p, bytes),
    stdin: () => readAll(0),
  };
}

/** Everything that can be read from file descriptor `fd` (standard input: until its end). */
function readAll(fd: number): Uint8Array {
  const parts: Buffer[] = [];
  let size = 0;
  for (;;) {
    const part = Buffer.allocUnsafe(1 << 20);
    let n: number;
    try {
      n = readSync(fd, part, 0, part.length, null);
    } catch (e) {
      // A non-blocking descriptor with nothing to read yet: wait a millisecond.
      if ((e as { code?: string }).code !== 'EAGAIN') throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
      continue;
    }
    if (n === 0) break;
    parts.push(part.subarray(0, n));
    size += n;
  }
  const all = Buffer.concat(parts, size);
  return new Uint8Array(all.buffer, all.byteOffset, all.byteLength);
}

/** True when this module is the program run (also through a symlink, as npx and npm bin links do). */
function isMain(): boolean {
  const arg = process.argv[1];
  if (!arg) return false;
  try {
    return realpathSync(arg) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`flamelens: internal error: ${e instanceof Error ? (e.stack ?? e.message) : e}\n`);
      process.exitCode = 3;
    },
  );
}
