// `flamelens` command line: the same core as the app, run in node.
//   flamelens fold FILE   folded stacks on stdout (warnings on stderr)
//   flamelens info FILE   JSON metadata
// Options are declared in OPTIONS; a command reads them from `args.options`.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { parseProfile } from '../core/formats/detect.ts';
import { foldProfile } from '../core/model/fold.ts';
import { toFoldedText } from '../core/model/serialize.ts';
import { type Demangle, loadDemangler } from '../core/symbols/demangle.ts';
import { basename } from '../core/symbols/modules.ts';
import { type DroppedFile, type SymbolizeReport, symbolizerFromFiles } from '../core/symbols/symbolize.ts';
import type { FoldedProfile, ProfileWarning, RawProfile } from '../core/types.ts';
import { ProfileError } from '../core/types.ts';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readFile: (path: string) => Uint8Array;
}

type CommandName = 'fold' | 'info';

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
];

const COMMANDS: Record<CommandName, { args: string; help: string }> = {
  fold: { args: 'FILE', help: 'print folded stacks (`root;…;leaf COUNT`, sorted) on stdout' },
  info: {
    args: 'FILE',
    help: 'print metadata as JSON: format, word size, period, samples, mappings, warnings',
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
    if (!onlyPositional && (a.startsWith('--') || a === '-h')) {
      const eq = a.indexOf('=');
      const name = a === '-h' ? 'help' : a.slice(2, eq < 0 ? undefined : eq);
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
 * Reads, parses, symbolizes (when symbol files are given) and folds one profile; null (after
 * printing the error) when it cannot be read.
 */
async function load(
  file: string,
  symbolFiles: string[],
  mangled: boolean,
  io: CliIo,
): Promise<Loaded | null> {
  const bytes = readOrReport(file, io);
  if (!bytes) return null;
  let raw: RawProfile;
  try {
    raw = parseProfile(bytes);
  } catch (e) {
    if (e instanceof ProfileError) {
      io.stderr(`flamelens: ${file}: ${e.describe()}\n`);
      return null;
    }
    throw e;
  }
  const fileName = basename(file);
  if (symbolFiles.length === 0) return { profile: foldProfile(raw, { fileName }) };
  const dropped: DroppedFile[] = [];
  for (const f of symbolFiles) {
    const b = readOrReport(f, io);
    if (!b) return null;
    dropped.push({ name: basename(f), bytes: b });
  }
  const demangle = mangled ? undefined : await nodeDemangler();
  // dwarf: false keeps `fold` names as pprof (symbol tables) gives them, which the acceptance
  // tests compare with; inline chains and file:line are for a `--granularity lines` to come.
  const { symbolizer, report, errors } = symbolizerFromFiles(raw.meta.mappings, dropped, {
    demangle,
    mangled,
    dwarf: false,
  });
  for (const e of errors) io.stderr(`flamelens: warning: ${e.message}\n`);
  for (const w of report.warnings) io.stderr(`flamelens: warning: ${w}\n`);
  return { profile: foldProfile(raw, { fileName, symbolizer }), symbols: report };
}

/** The wasm demangler, loaded from node_modules (Vite's `?init` import exists only in Vite). */
async function nodeDemangler(): Promise<Demangle> {
  const wasm = readFileSync(createRequire(import.meta.url).resolve('gecko-profiler-demangle/index_bg.wasm'));
  return loadDemangler({ wasm });
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
  const loaded = await load(file, symbolFiles, args.options.has('mangled'), io);
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
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
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
