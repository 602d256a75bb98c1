// `flamelens` command line: the same core as the app, run in node.
//   flamelens fold FILE   folded stacks on stdout (warnings on stderr)
//   flamelens info FILE   JSON metadata
//   flamelens proto FILE -o OUT.pb.gz   the folded profile as gzipped pprof profile.proto
// Options are declared in OPTIONS; a command reads them from `args.options`.

import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { writePprof } from '../core/formats/pprof-write.ts';
import { toFoldedText } from '../core/model/serialize.ts';
import { type RunResult, runPipeline } from '../core/pipeline.ts';
import { type Demangle, loadDemangler } from '../core/symbols/demangle.ts';
import type { DroppedFile, SymbolizeReport } from '../core/symbols/symbolize.ts';
import { basename } from '../core/text/names.ts';
import type { FoldedProfile, ProfileWarning } from '../core/types.ts';
import { ProfileError } from '../core/types.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => Uint8Array;
  writeFile?: (path: string, bytes: Uint8Array) => void;
}

type CommandName = 'fold' | 'info' | 'proto';

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
    name: 'output',
    value: true,
    repeatable: false,
    commands: ['proto'],
    meta: 'OUT',
    help: 'where `proto` writes (also -o)',
  },
];

/** Short options: `-o OUT` is `--output OUT`. */
const SHORT: Record<string, string> = { '-h': 'help', '-o': 'output' };

const COMMANDS: Record<CommandName, { args: string; help: string }> = {
  fold: { args: 'FILE', help: 'print folded stacks (`root;…;leaf COUNT`, sorted) on stdout' },
  info: {
    args: 'FILE',
    help: 'print metadata as JSON: format, word size, period, samples, mappings, warnings',
  },
  proto: { args: 'FILE -o OUT', help: 'write the folded profile as gzipped pprof profile.proto' },
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
    lines.push(`  ${left.padEnd(22)}${o.help}${o.repeatable ? ' (repeatable)' : ''}`);
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
  symbols?: SymbolizeReport;
}

/**
 * Reads the profile and its symbol files and runs the core pipeline (parse → symbolize → fold);
 * null (after printing the error) when something cannot be read.
 */
interface LoadOptions {
  mangled: boolean;
  sampleType: string | undefined;
  keepDropFrames: boolean;
  fullNames: boolean;
  addresses: boolean;
}

async function load(
  file: string,
  symbolFiles: string[],
  opts: LoadOptions,
  io: CliIo,
): Promise<Loaded | null> {
  const bytes = readOrReport(file, io);
  if (!bytes) return null;
  const dropped: DroppedFile[] = [];
  for (const f of symbolFiles) {
    const b = readOrReport(f, io);
    if (!b) return null;
    dropped.push({ name: basename(f), bytes: b });
  }
  let run: RunResult;
  try {
    run = await runPipeline(bytes, basename(file), {
      symbolFiles: dropped,
      mangled: opts.mangled,
      sampleType: opts.sampleType,
      keepDropFrames: opts.keepDropFrames,
      names: opts.fullNames ? 'full' : 'short',
      granularity: opts.addresses ? 'addresses' : 'functions',
      loadDemangler: nodeDemangler,
    });
  } catch (e) {
    if (e instanceof ProfileError) {
      io.stderr(`flamelens: ${file}: ${e.describe()}\n`);
      return null;
    }
    throw e;
  }
  if (!run.symbols) return { profile: run.base };
  for (const e of run.symbols.state.errors) io.stderr(`flamelens: warning: ${e.message}\n`);
  for (const w of run.symbols.state.report.warnings) io.stderr(`flamelens: warning: ${w}\n`);
  return { profile: run.base, symbols: run.symbols.state.report };
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

export function infoJson(p: FoldedProfile, symbols?: SymbolizeReport): Record<string, unknown> {
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
  if (!args.command || args.positional.length !== 1) {
    io.stderr(`flamelens: expected one FILE\n${usage()}`);
    return 2;
  }
  const file = args.positional[0];
  const symbolFiles = [...(args.options.get('binary') ?? []), ...(args.options.get('symbols') ?? [])];
  const output = args.options.get('output')?.[0];
  if (args.command === 'proto' && (output === undefined || output === '')) {
    io.stderr(`flamelens: proto needs -o OUT.pb.gz\n${usage()}`);
    return 2;
  }
  const sampleType = args.options.get('sample-type')?.[0];
  const loaded = await load(
    file,
    symbolFiles,
    {
      mangled: args.options.has('mangled'),
      sampleType,
      keepDropFrames: args.options.has('keep-drop-frames'),
      fullNames: args.options.has('full-names'),
      addresses: args.options.has('addresses'),
    },
    io,
  );
  if (!loaded) return 1;
  const { profile } = loaded;
  switch (args.command) {
    case 'fold':
      for (const w of profile.meta.warnings)
        io.stderr(`flamelens: ${file}: warning: ${w.message}${where(w)}\n`);
      io.stdout(toFoldedText(profile));
      return 0;
    case 'info':
      io.stdout(`${JSON.stringify(infoJson(profile, loaded.symbols), null, 2)}\n`);
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
