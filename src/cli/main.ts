// `flamelens` command line: the same core as the app, run in node.
//   flamelens fold FILE   folded stacks on stdout (warnings on stderr)
//   flamelens info FILE   JSON metadata
//   flamelens proto FILE -o OUT.pb.gz   the folded profile as gzipped pprof profile.proto
// Options are declared in OPTIONS; a command reads them from `args.options`.

import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { expandBundles, looksLikeBundle } from '../core/bundle/bundle.ts';
import { writePprof } from '../core/formats/pprof-write.ts';
import { sampleTypeIndex, withSampleType } from '../core/formats/sample-types.ts';
import { mergeSides } from '../core/model/diff.ts';
import { type LabelSummary, labelSummary, parseLabelFilter } from '../core/model/labels.ts';
import { type SourceListing, sourceListing } from '../core/model/lines.ts';
import { foldedChunks, toDiffFoldedText } from '../core/model/serialize.ts';
import { type RunResult, runPipeline } from '../core/pipeline.ts';
import { type Demangle, loadDemangler } from '../core/symbols/demangle.ts';
import { looksLikeElf } from '../core/symbols/elf.ts';
import { looksLikeNm } from '../core/symbols/nm.ts';
import { type Placement, parseBase } from '../core/symbols/placement.ts';
import type { DroppedFile, SymbolizeReport } from '../core/symbols/symbolize.ts';
import { functionOf } from '../core/text/frame-text.ts';
import { basename } from '../core/text/names.ts';
import { formatBytes } from '../core/text/units.ts';
import type { FoldedProfile, LabelFilter, ProfileWarning } from '../core/types.ts';
import { ProfileError } from '../core/types.ts';
import type { Granularity } from '../core/view/schema.ts';
import { type BundleResult, makeBundle } from './bundle.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => Uint8Array;
  writeFile?: (path: string, bytes: Uint8Array) => void;
}

type CommandName = 'fold' | 'info' | 'proto' | 'diff' | 'list' | 'bundle';

interface OptionSpec {
  /** Long name without the dashes. */
  name: string;
  /** Takes a value (`--name VALUE` or `--name=VALUE`). */
  value: boolean;
  /** May be given several times (values collected in order). */
  repeatable: boolean;
  /** Commands that accept it; empty = all. */
  commands: CommandName[];
  help: string;
  /** Placeholder shown in the help, e.g. PATH. */
  meta?: string;
}

/**
 * Every option. To add one (e.g. `--binary PATH`, repeatable, or `--symbols FILE`), add an entry
 * here and read `args.options.get(name)` in the command; the parser and help need no change.
 */
const OPTIONS: OptionSpec[] = [
  { name: 'help', value: false, repeatable: false, commands: [], help: 'show help' },
  {
    name: 'binary',
    value: true,
    repeatable: true,
    commands: [],
    meta: 'PATH',
    help: 'an ELF binary, shared library or separate debug file to symbolize with',
  },
  {
    name: 'symbols',
    value: true,
    repeatable: true,
    commands: [],
    meta: 'FILE',
    help: 'an `nm` listing of the main binary to symbolize with',
  },
  { name: 'mangled', value: false, repeatable: false, commands: [], help: 'print C++/Rust names mangled' },
  {
    name: 'granularity',
    value: true,
    repeatable: false,
    commands: [],
    meta: 'functions|lines|addresses',
    help: 'what a frame is: a function (default), `function file:line` (DWARF), or `function+0xOFFSET`',
  },
  {
    name: 'normalize',
    value: false,
    repeatable: false,
    commands: ['diff'],
    help: "scale the baseline's counts to the comparison's total (difffolded.pl -n)",
  },
  {
    name: 'sample-type',
    value: true,
    repeatable: false,
    commands: [],
    meta: 'NAME|INDEX',
    help: 'the value to sum, for profiles with several (pprof: cpu, alloc_space…; heap: inuse_space…; perf: an event; or 0, 1, …)',
  },
  {
    name: 'keep-drop-frames',
    value: false,
    repeatable: false,
    commands: [],
    help: "keep the frames the profile asks to drop (heap profiles' allocator frames, pprof drop_frames)",
  },
  {
    name: 'tagfocus',
    value: true,
    repeatable: true,
    commands: [],
    meta: 'KEY=VALUES',
    help: 'keep only samples whose label KEY is one of VALUES (V1,V2,…) or a number in MIN:MAX, MIN:, :MAX (units b, kb, mb, gb: powers of 1024), as pprof -tagfocus; all must hold',
  },
  {
    name: 'tagignore',
    value: true,
    repeatable: true,
    commands: [],
    meta: 'KEY=VALUES',
    help: 'drop the samples whose label KEY is one of VALUES or in MIN:MAX, as pprof -tagignore',
  },
  {
    name: 'group-by',
    value: true,
    repeatable: false,
    commands: [],
    meta: 'KEY',
    help: 'put each sample under a root frame KEY=VALUE of its label (KEY=(none) without it)',
  },
  {
    name: 'full-names',
    value: false,
    repeatable: false,
    commands: [],
    help: 'C++/Rust names as demangled (default: short, as pprof: no template arguments or parameters)',
  },
  {
    name: 'addresses',
    value: false,
    repeatable: false,
    commands: [],
    help: 'one frame per address for code no symbol names (MODULE+0xOFFSET; default: one per module, [MODULE])',
  },
  {
    name: 'place',
    value: true,
    repeatable: true,
    commands: [],
    meta: 'FILE@0xBASE',
    help: 'for a profile without mapped-objects text: the --binary named FILE was loaded at BASE (the address of its virtual address 0; /proc/PID/maps: start − offset of its first mapping)',
  },
  {
    name: 'output',
    value: true,
    repeatable: false,
    commands: ['proto', 'bundle'],
    meta: 'OUT',
    help: 'where `proto` or `bundle` writes (also -o)',
  },
  {
    name: 'profile',
    value: true,
    repeatable: false,
    commands: ['fold', 'info', 'proto', 'list', 'diff'],
    meta: 'NAME',
    help: 'of a bundle holding several profiles, the one to read (default: the first)',
  },
  {
    name: 'root',
    value: true,
    repeatable: false,
    commands: ['bundle'],
    meta: 'DIR',
    help: 'look mapped files up under DIR instead of / (a copy of the recording machine’s files)',
  },
  {
    name: 'no-debug',
    value: false,
    repeatable: false,
    commands: ['bundle'],
    help: 'leave out separate debug files (/usr/lib/debug/.build-id, .gnu_debuglink)',
  },
  {
    name: 'max-size',
    value: true,
    repeatable: false,
    commands: ['bundle'],
    meta: 'SIZE',
    help: 'leave out files larger than SIZE bytes (suffixes K, M, G: powers of 1024)',
  },
];

/** Short options: `-o OUT` is `--output OUT`. */
const SHORT: Record<string, string> = { '-h': 'help', '-o': 'output' };

const COMMANDS: Record<CommandName, { args: string; help: string }> = {
  fold: { args: 'FILE', help: 'print folded stacks (`root;…;leaf COUNT`, sorted) on stdout' },
  info: {
    args: 'FILE',
    help: 'print metadata as JSON: format, word size, period, samples, mappings, labels, warnings',
  },
  proto: { args: 'FILE -o OUT', help: 'write the folded profile as gzipped pprof profile.proto' },
  list: {
    args: 'REGEX FILE',
    help: 'per-line flat/cum samples of the functions matching REGEX, with their source (as pprof -list)',
  },
  bundle: {
    args: 'PROFILE… -o OUT.zip',
    help: 'pack the profile(s) with every object they map (and its debug file) found on this machine, to open elsewhere',
  },
  diff: {
    args: 'BASE NEW',
    help: "print both profiles' stacks as `root;…;leaf BASE_COUNT NEW_COUNT` (difffolded.pl's format)",
  },
};

export interface ParsedArgs {
  command?: CommandName;
  positional: string[];
  /** Option name → values (flags get ['']). */
  options: Map<string, string[]>;
}

class UsageError extends Error {}

export function parseArgs(argv: string[]): ParsedArgs {
  const out: ParsedArgs = { positional: [], options: new Map() };
  let onlyPositional = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!onlyPositional && a === '--') {
      onlyPositional = true;
      continue;
    }
    if (!onlyPositional && (a.startsWith('--') || a in SHORT)) {
      const eq = a in SHORT ? -1 : a.indexOf('=');
      const name = SHORT[a] ?? a.slice(2, eq < 0 ? undefined : eq);
      const spec = OPTIONS.find((o) => o.name === name);
      if (!spec) throw new UsageError(`unknown option ${a}`);
      let value = '';
      if (spec.value) {
        if (eq >= 0) value = a.slice(eq + 1);
        else if (i + 1 < argv.length) value = argv[++i];
        else throw new UsageError(`option --${name} needs a value`);
      } else if (eq >= 0) {
        throw new UsageError(`option --${name} takes no value`);
      }
      const list = out.options.get(name) ?? [];
      if (list.length > 0 && !spec.repeatable) throw new UsageError(`option --${name} given twice`);
      list.push(value);
      out.options.set(name, list);
      continue;
    }
    if (out.command === undefined && out.positional.length === 0) {
      if (!(a in COMMANDS)) throw new UsageError(`unknown command '${a}'`);
      out.command = a as CommandName;
      continue;
    }
    out.positional.push(a);
  }
  if (out.command) {
    const cmd = out.command;
    for (const name of out.options.keys()) {
      const spec = OPTIONS.find((o) => o.name === name)!;
      if (spec.commands.length > 0 && !spec.commands.includes(cmd)) {
        throw new UsageError(`option --${name} does not apply to '${cmd}'`);
      }
    }
  }
  return out;
}

export function usage(): string {
  const lines = ['usage: flamelens COMMAND [OPTIONS] FILE', '', 'commands:'];
  for (const [name, c] of Object.entries(COMMANDS))
    lines.push(`  ${`${name} ${c.args}`.padEnd(22)}${c.help}`);
  lines.push('', 'options:');
  for (const o of OPTIONS) {
    const left = `--${o.name}${o.value ? ` ${o.meta ?? 'VALUE'}` : ''}`;
    lines.push(
      `  ${left.padEnd(Math.max(22, left.length + 1))}${o.help}${o.repeatable ? ' (repeatable)' : ''}`,
    );
  }
  lines.push('', 'Input may be gzip-compressed. Exit status: 0 ok (warnings on stderr), 1 unreadable input,');
  lines.push('2 bad usage.');
  return `${lines.join('\n')}\n`;
}

function where(w: ProfileWarning): string {
  if (w.offset !== undefined && w.line !== undefined) return ` (at line ${w.line}, byte ${w.offset})`;
  if (w.offset !== undefined) return ` (at byte ${w.offset})`;
  if (w.line !== undefined) return ` (at line ${w.line})`;
  return '';
}

function readOrReport(file: string, io: CliIo): Uint8Array | null {
  try {
    return io.readFile(file);
  } catch (e) {
    const code = (e as { code?: string }).code;
    io.stderr(`flamelens: ${file}: cannot read file${code ? ` (${code})` : ''}\n`);
    return null;
  }
}

interface Loaded {
  profile: FoldedProfile;
  run: RunResult;
  symbols?: SymbolizeReport;
  /** The profile's label keys and their heaviest values (weighed by the chosen sample type). */
  labels: LabelSummary[];
}

interface LoadOptions {
  mangled: boolean;
  fullNames: boolean;
  /** --addresses: code no symbol names as one frame per address, not per module. */
  unnamedPerAddress: boolean;
  placements: Placement[];
  granularity: Granularity;
  /** Read DWARF (lines, inlined functions): for line granularity and `list`. */
  dwarf: boolean;
  sampleType: string | undefined;
  keepDropFrames: boolean;
  labelFilters: LabelFilter[];
  groupBy: string | undefined;
  /** Of a bundle with several profiles, the one to read. */
  profile: string | undefined;
}

/** How many values of each label key `info` lists. */
const INFO_LABEL_VALUES = 10;

/**
 * Reads the profile and its symbol files and runs the core pipeline (parse → symbolize → fold);
 * null (after printing the error) when something cannot be read.
 */
async function load(
  file: string,
  symbolFiles: string[],
  opts: LoadOptions,
  io: CliIo,
): Promise<Loaded | null> {
  let bytes = readOrReport(file, io);
  if (!bytes) return null;
  const dropped: DroppedFile[] = [];
  let name = basename(file);
  let warnings: ProfileWarning[] | undefined;
  if (looksLikeBundle(bytes)) {
    // A bundle: its profile, then its objects (named by the paths they were packed from).
    let inside: DroppedFile[];
    try {
      inside = expandBundles([{ name, bytes }], { profile: opts.profile });
    } catch (e) {
      if (!(e instanceof ProfileError)) throw e;
      io.stderr(`flamelens: ${file}: ${e.describe()}\n`);
      return null;
    }
    const profile = inside.find((f) => !looksLikeElf(f.bytes) && !looksLikeNm(f.bytes));
    if (!profile) {
      io.stderr(`flamelens: ${file}: the bundle holds no profile\n`);
      return null;
    }
    ({ bytes, name, warnings } = profile);
    dropped.push(...inside.filter((f) => f !== profile));
  }
  for (const f of symbolFiles) {
    const b = readOrReport(f, io);
    if (!b) return null;
    dropped.push({ name: basename(f), bytes: b });
  }
  let run: RunResult;
  try {
    run = await runPipeline(bytes, name, {
      warnings,
      symbolFiles: dropped,
      mangled: opts.mangled,
      sampleType: opts.sampleType,
      keepDropFrames: opts.keepDropFrames,
      labelFilters: opts.labelFilters,
      groupBy: opts.groupBy,
      // Function names as pprof gives them (symbol tables) unless lines are asked for: the
      // acceptance checks compare fold's names with pprof's.
      dwarf: opts.dwarf,
      granularity: opts.granularity,
      names: opts.fullNames ? 'full' : 'short',
      unnamedPerAddress: opts.unnamedPerAddress,
      placements: opts.placements,
      loadDemangler: nodeDemangler,
    });
  } catch (e) {
    if (e instanceof ProfileError) {
      io.stderr(`flamelens: ${file}: ${e.describe()}\n`);
      return null;
    }
    throw e;
  }
  const raw = run.loaded.raw;
  const labels = labelSummary(withSampleType(raw, sampleTypeIndex(raw, opts.sampleType)), {
    limit: INFO_LABEL_VALUES,
  });
  if (!run.symbols) return { profile: run.base, run, labels };
  for (const e of run.symbols.state.errors) io.stderr(`flamelens: warning: ${e.message}\n`);
  for (const w of run.symbols.state.report.warnings) io.stderr(`flamelens: warning: ${w}\n`);
  const placement = run.symbols.state.placement;
  for (const h of placement?.hints ?? []) {
    if (placement!.used.some((u) => u.file === h.file)) continue;
    const why =
      h.how === 'calls' ? `${h.calls} of ${h.callers} return addresses follow calls there` : 'unconfirmed';
    io.stderr(
      `flamelens: note: the profile has no mappings: ${h.file} is not placed; guessed --place ${h.file}@${h.base} (${why})\n`,
    );
  }
  return { profile: run.base, run, symbols: run.symbols.state.report, labels };
}

/**
 * A function's listing as `pprof -list` prints it: a ROUTINE header per file, then flat and cum
 * samples per line with the source text where the file can be read ('.' where a line has none).
 */
function listingText(l: SourceListing, whole: number, io: CliIo): string {
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
    const pct = whole > 0 ? ((100 * l.total) / whole).toFixed(2) : '0';
    out += `ROUTINE ======================== ${l.name} in ${file || '??'}\n`;
    out += `${String(flat).padStart(10)} ${String(l.total).padStart(10)} (flat, cum) ${pct}% of Total\n`;
    const byLine = new Map(rows.map((r) => [r.line, r]));
    const first = Math.max(1, rows[0].line - 2);
    const last = text ? Math.min(text.length, rows[rows.length - 1].line + 2) : rows[rows.length - 1].line;
    for (let n = first; n <= last; n++) {
      const r = byLine.get(n);
      if (!r && !text) continue;
      const f = r && r.self > 0 ? String(r.self) : '.';
      const c = r ? String(r.total) : '.';
      out += `${f.padStart(10)} ${c.padStart(10)} ${String(n).padStart(6)}:${text ? ` ${text[n - 1] ?? ''}` : ''}\n`;
    }
  }
  return out;
}

/** The wasm demangler, loaded from node_modules (Vite's `?init` import exists only in Vite). */
async function nodeDemangler(): Promise<Demangle> {
  // Beside the built CLI (dist-cli/), else from node_modules (tsx runs the TypeScript).
  const beside = new URL('./index_bg.wasm', import.meta.url);
  const path = existsSync(beside)
    ? beside
    : createRequire(import.meta.url).resolve('gecko-profiler-demangle/index_bg.wasm');
  return loadDemangler({ wasm: readFileSync(path) });
}

export function infoJson(
  p: FoldedProfile,
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
    samples: m.totalSamples,
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
export async function main(argv: string[], io: CliIo = nodeIo()): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`flamelens: ${e.message}\n${usage()}`);
    return 2;
  }
  if (args.options.has('help') || (!args.command && args.positional.length === 0)) {
    if (args.options.has('help')) {
      io.stdout(usage());
      return 0;
    }
    io.stderr(usage());
    return 2;
  }
  if (args.command === 'bundle') return bundleCommand(args, io);
  const files = args.command === 'diff' || args.command === 'list' ? 2 : 1;
  if (!args.command || args.positional.length !== files) {
    const what =
      args.command === 'list' ? 'REGEX and FILE' : files === 2 ? 'two files, BASE and NEW' : 'one FILE';
    io.stderr(`flamelens: expected ${what}\n${usage()}`);
    return 2;
  }
  const granularity = (args.options.get('granularity')?.[0] ?? 'functions') as Granularity;
  if (!['functions', 'lines', 'addresses'].includes(granularity)) {
    io.stderr(`flamelens: --granularity is functions, lines or addresses\n${usage()}`);
    return 2;
  }
  const file = args.positional[files - 1];
  const symbolFiles = [...(args.options.get('binary') ?? []), ...(args.options.get('symbols') ?? [])];
  const output = args.options.get('output')?.[0];
  if (args.command === 'proto' && (output === undefined || output === '')) {
    io.stderr(`flamelens: proto needs -o OUT.pb.gz\n${usage()}`);
    return 2;
  }
  const labelFilters: LabelFilter[] = [];
  const placements: Placement[] = [];
  const groupBy = args.options.get('group-by')?.[0];
  try {
    for (const t of args.options.get('tagfocus') ?? []) labelFilters.push(parseLabelFilter(t, 'focus'));
    for (const t of args.options.get('tagignore') ?? []) labelFilters.push(parseLabelFilter(t, 'ignore'));
    if (groupBy === '') throw new Error('--group-by needs a label key');
    for (const t of args.options.get('place') ?? []) {
      const at = t.lastIndexOf('@');
      const base = at > 0 ? parseBase(t.slice(at + 1)) : null;
      if (base === null) throw new Error(`--place ${t}: expected FILE@0xBASE`);
      placements.push({ file: basename(t.slice(0, at)), base });
    }
  } catch (e) {
    io.stderr(`flamelens: ${e instanceof Error ? e.message : String(e)}\n${usage()}`);
    return 2;
  }
  const loadOne = (f: string) =>
    load(
      f,
      symbolFiles,
      {
        mangled: args.options.has('mangled'),
        // pprof -list shows whole names.
        fullNames: args.options.has('full-names') || args.command === 'list',
        unnamedPerAddress: args.options.has('addresses'),
        placements,
        granularity,
        dwarf: granularity === 'lines' || args.command === 'list',
        sampleType: args.options.get('sample-type')?.[0],
        keepDropFrames: args.options.has('keep-drop-frames'),
        labelFilters,
        groupBy,
        profile: args.options.get('profile')?.[0],
      },
      io,
    );
  const loaded = await loadOne(file);
  if (!loaded) return 1;
  if (args.command === 'diff') {
    // Both profiles symbolized by the same binaries (each mapping takes the file matching it).
    const base = await loadOne(args.positional[0]);
    if (!base) return 1;
    const merged = mergeSides(loaded.profile, base.profile);
    io.stdout(toDiffFoldedText(merged, args.options.has('normalize')));
    return 0;
  }
  const { profile } = loaded;
  switch (args.command) {
    case 'list': {
      let re: RegExp;
      try {
        re = new RegExp(args.positional[0]);
      } catch (e) {
        io.stderr(`flamelens: bad REGEX: ${(e as Error).message}\n`);
        return 2;
      }
      // The frames' functions (a line or address frame's too), as pprof -list matches them.
      const functions = profile.frames.name.map((n, f) => functionOf(profile.frames, f) ?? n);
      const names = [...new Set(functions)].filter((n) => re.test(n)).sort();
      if (names.length === 0) {
        io.stderr(`flamelens: no function matches ${args.positional[0]}\n`);
        return 1;
      }
      const { raw } = loaded.run.loaded;
      const weighed = withSampleType(raw, sampleTypeIndex(raw, args.options.get('sample-type')?.[0]));
      for (const name of names)
        io.stdout(
          listingText(
            sourceListing(weighed, loaded.run.symbols?.symbolizer, name),
            profile.meta.totalSamples,
            io,
          ),
        );
      return 0;
    }
    case 'fold':
      for (const w of profile.meta.warnings)
        io.stderr(`flamelens: ${file}: warning: ${w.message}${where(w)}\n`);
      // Written as it is made: with DWARF's inline frames the text can be gigabytes.
      foldedChunks(profile, [profile.stacks.weight], io.stdout);
      return 0;
    case 'info':
      io.stdout(`${JSON.stringify(infoJson(profile, loaded.symbols, loaded.labels), null, 2)}\n`);
      return 0;
    case 'proto': {
      const bytes = writePprof(profile);
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

/** A size with an optional K, M or G suffix (powers of 1024), or null. */
export function parseSize(t: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/i.exec(t.trim());
  if (!m) return null;
  const mult = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2].toUpperCase() as '' | 'K' | 'M' | 'G'];
  return Math.floor(Number(m[1]) * mult);
}

/** `bundle PROFILE… -o OUT`: see cli/bundle.ts. */
function bundleCommand(args: ParsedArgs, io: CliIo): number {
  const output = args.options.get('output')?.[0];
  if (args.positional.length === 0 || output === undefined || output === '') {
    io.stderr(`flamelens: bundle needs PROFILE… and -o OUT.zip\n${usage()}`);
    return 2;
  }
  const sizeText = args.options.get('max-size')?.[0];
  const maxSize = sizeText === undefined ? undefined : parseSize(sizeText);
  if (maxSize === null) {
    io.stderr(`flamelens: --max-size ${sizeText}: expected a size like 200M\n${usage()}`);
    return 2;
  }
  const profiles: { path: string; bytes: Uint8Array }[] = [];
  for (const p of args.positional) {
    const bytes = readOrReport(p, io);
    if (!bytes) return 1;
    profiles.push({ path: p, bytes });
  }
  let made: BundleResult;
  try {
    made = makeBundle(profiles, {
      root: args.options.get('root')?.[0] ?? '',
      debug: !args.options.has('no-debug'),
      ...(maxSize !== undefined && { maxSize }),
      host: hostname(),
    });
  } catch (e) {
    if (!(e instanceof ProfileError)) throw e;
    io.stderr(`flamelens: ${e.describe()}\n`);
    return 1;
  }
  for (const m of made.missing) io.stderr(`flamelens: warning: not bundled: ${m.path}: ${m.why}\n`);
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

export function nodeIo(): CliIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    readFile: (p) => {
      const b = readFileSync(p);
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
    writeFile: (p, bytes) => writeFileSync(p, bytes),
  };
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
