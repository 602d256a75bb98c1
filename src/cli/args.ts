// The command line's grammar: its commands, its options (each declared once, with the commands it
// applies to), the parser and the help texts built from them (the whole, and each command's).

export type CommandName = 'fold' | 'info' | 'proto' | 'diff' | 'list' | 'bundle' | 'dot' | 'disasm';

interface OptionSpec {
  /** Long name without the dashes. */
  name: string;
  /** Takes a value (`--name VALUE` or `--name=VALUE`). */
  value: boolean;
  /** May be given several times (values collected in order). */
  repeatable: boolean;
  /**
   * Commands that accept it: empty = every command that reads a profile (all but `bundle`, which
   * takes only the options that name it); 'all' = every command, `bundle` too.
   */
  commands: CommandName[] | 'all';
  help: string;
  /** Placeholder shown in the help, e.g. PATH. */
  meta?: string;
}

/**
 * Every option. To add one (e.g. `--binary PATH`, repeatable, or `--symbols FILE`), add an entry
 * here and read `args.options.get(name)` in the command; the parser and help need no change.
 */
const OPTIONS: OptionSpec[] = [
  {
    name: 'help',
    value: false,
    repeatable: false,
    commands: 'all',
    help: "show help: every command's, or with a command that command's (also -h)",
  },
  { name: 'version', value: false, repeatable: false, commands: 'all', help: "print flamelens' version" },
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
    help: 'an `nm` listing of the main binary, or a /proc/kallsyms text (perf.data kernel frames), to symbolize with',
  },
  { name: 'mangled', value: false, repeatable: false, commands: [], help: 'print C++/Rust names mangled' },
  {
    name: 'granularity',
    value: true,
    repeatable: false,
    commands: [],
    meta: 'functions|lines|addresses',
    help: 'what a frame is: a function (default), a source line (`function file:line`, from DWARF), or an address (`function+0xOFFSET`)',
  },
  {
    name: 'normalize',
    value: false,
    repeatable: false,
    commands: ['diff'],
    help: "scale the baseline's counts to the comparison's total, truncated to whole counts (difffolded.pl -n)",
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
    help: 'one frame per address for code that no symbol names (MODULE+0xOFFSET; default: one per module, [MODULE])',
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
    commands: 'all',
    meta: 'DIR',
    help: "find the files the profile maps (and their debug files) under DIR, a copy of the recording machine's files (bundle: instead of /)",
  },
  {
    name: 'fallback-to-host',
    value: false,
    repeatable: false,
    commands: 'all',
    help: 'with --root: what is not under DIR, take from this machine (at the same path), unless the profile records another build-id for it',
  },
  {
    name: 'noinlines',
    value: false,
    repeatable: false,
    commands: [],
    help: "leave inlined functions' samples with the function they were inlined into, as pprof -noinlines (default: inlined functions are frames of their own, from DWARF)",
  },
  {
    name: 'dry-run',
    value: false,
    repeatable: false,
    commands: ['bundle'],
    help: 'list what would be packed (and what not, and why) without writing the bundle',
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
  ...(['nodecount', 'nodefraction', 'edgefraction'] as const).map((name) => ({
    name,
    value: true,
    repeatable: false,
    commands: ['dot'] as CommandName[],
    meta: name === 'nodecount' ? 'N' : 'F',
    help: {
      nodecount: 'at most N nodes (default 80; 0: all)',
      nodefraction: 'drop nodes below this share of the total (default 0.005)',
      edgefraction: 'drop edges below this share of the total (default 0.001)',
    }[name],
  })),
  {
    name: 'intel',
    value: false,
    repeatable: false,
    commands: ['disasm'],
    help: 'x86 in Intel syntax (default: AT&T, as objdump)',
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
  proto: {
    args: 'FILE -o OUT',
    help: 'write the profile as gzipped pprof profile.proto, with every sample type and label',
  },
  list: {
    args: 'REGEX FILE',
    help: 'per-line flat/cum samples of the functions matching REGEX, with their source (as pprof -list)',
  },
  bundle: {
    args: 'PROFILE… -o OUT.zip',
    help: 'pack the profile(s) with every object they map (and its debug file) found on this machine, to open elsewhere',
  },
  disasm: {
    args: 'REGEX FILE',
    help: 'the matching functions of the --binary files disassembled, flat/cum samples per instruction (as pprof -disasm)',
  },
  dot: {
    args: 'FILE',
    help: "print the call graph as `pprof -dot` does (Graphviz DOT text, pprof's pruning)",
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

export class UsageError extends Error {
  /** The command the arguments named, when they named one: its help is the one to show. */
  command?: CommandName;
}

function applies(spec: OptionSpec, cmd: CommandName): boolean {
  if (spec.commands === 'all') return true;
  if (spec.commands.length === 0) return cmd !== 'bundle';
  return spec.commands.includes(cmd);
}

/**
 * Reads the arguments. `flamelens help COMMAND` is `flamelens COMMAND --help`. Throws UsageError
 * for an unknown command or option, a missing value, an option given twice or one the command
 * does not take.
 */
export function parseArgs(argv: string[]): ParsedArgs {
  const out: ParsedArgs = { positional: [], options: new Map() };
  let onlyPositional = false;
  const fail = (message: string): never => {
    const e = new UsageError(message);
    if (out.command) e.command = out.command;
    throw e;
  };
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
      if (!spec) fail(`unknown option ${a}`);
      let value = '';
      if (spec!.value) {
        if (eq >= 0) value = a.slice(eq + 1);
        else if (i + 1 < argv.length) value = argv[++i];
        else fail(`option --${name} needs a value`);
      } else if (eq >= 0) {
        fail(`option --${name} takes no value`);
      }
      const list = out.options.get(name) ?? [];
      if (list.length > 0 && !spec!.repeatable) fail(`option --${name} given twice`);
      list.push(value);
      out.options.set(name, list);
      continue;
    }
    if (out.command === undefined && out.positional.length === 0) {
      if (a === 'help' && !out.options.has('help')) {
        out.options.set('help', ['']);
        continue;
      }
      if (!(a in COMMANDS)) fail(`unknown command '${a}'`);
      out.command = a as CommandName;
      continue;
    }
    out.positional.push(a);
  }
  if (out.command) {
    const cmd = out.command;
    for (const name of out.options.keys()) {
      if (!applies(OPTIONS.find((o) => o.name === name)!, cmd))
        fail(`option --${name} does not apply to '${cmd}'`);
    }
  }
  return out;
}

/** Width of the text of the help (its lines are wrapped to it). */
const WIDTH = 100;

/** `text` in lines of at most WIDTH − `indent` characters (a longer word gets a line of its own). */
function wrap(text: string, indent: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = '';
    }
    line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

/**
 * Two columns: each `left` padded to the widest (up to `limit`; a longer one has a line of its
 * own), `right` wrapped beside it.
 */
function table(rows: [string, string][], limit: number): string[] {
  const col = 2 + Math.min(Math.max(...rows.map(([l]) => l.length)), limit) + 2;
  const out: string[] = [];
  for (const [left, right] of rows) {
    const text = wrap(right, col);
    if (2 + left.length + 2 > col) out.push(`  ${left}`);
    else text[0] = `  ${left}`.padEnd(col) + text[0];
    out.push(...text.map((t, i) => (i === 0 && 2 + left.length + 2 <= col ? t : ' '.repeat(col) + t)));
  }
  return out;
}

function optionRows(cmd?: CommandName): [string, string][] {
  return OPTIONS.filter((o) => cmd === undefined || applies(o, cmd)).map((o) => [
    `--${o.name}${o.value ? ` ${o.meta ?? 'VALUE'}` : ''}`,
    `${o.help}${o.repeatable ? ' (repeatable)' : ''}`,
  ]);
}

const EXIT_STATUS = [
  '',
  'A profile may be gzip-compressed; `-` as its file reads standard input. Exit status: 0 ok',
  '(warnings on stderr), 1 unreadable input, 2 bad usage, 3 internal error.',
];

/** The usage line a usage error ends with, and where the whole help is. */
export function usageLine(cmd?: CommandName): string {
  if (cmd === undefined)
    return 'usage: flamelens COMMAND [OPTIONS] ARGUMENTS…  (`flamelens help` lists the commands)\n';
  return `usage: flamelens ${cmd} [OPTIONS] ${COMMANDS[cmd].args}  (\`flamelens help ${cmd}\` lists its options)\n`;
}

/** The help: every command and every option; with a command, that command's and its options. */
export function usage(cmd?: CommandName): string {
  if (cmd !== undefined) {
    const c = COMMANDS[cmd];
    const lines = [
      `usage: flamelens ${cmd} [OPTIONS] ${c.args}`,
      '',
      ...wrap(`${c.help[0].toUpperCase()}${c.help.slice(1)}.`, 0),
      '',
      'options:',
      ...table(optionRows(cmd), 26),
      ...EXIT_STATUS,
    ];
    return `${lines.join('\n')}\n`;
  }
  const lines = [
    'usage: flamelens COMMAND [OPTIONS] ARGUMENTS…',
    '       flamelens help COMMAND      (or flamelens COMMAND --help: that command and its options)',
    '',
    'commands:',
    ...table(
      Object.entries(COMMANDS).map(([name, c]) => [`${name} ${c.args}`, c.help]),
      26,
    ),
    '',
    'options (each command takes those its help lists):',
    ...table(optionRows(), 26),
    ...EXIT_STATUS,
  ];
  return `${lines.join('\n')}\n`;
}
