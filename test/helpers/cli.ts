// Runs the CLI in-process with captured output (much faster than spawning tsx per call).

import { readFileSync } from 'node:fs';
import { main } from '../../src/cli/main.ts';
import type { CliIo } from '../../src/cli/open.ts';

/** Runs the CLI with `argv`; `stdin` is what it reads from standard input (`-`), none by default. */
export async function runCli(
  argv: string[],
  opts: { stdin?: Uint8Array } = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: (t) => {
      out += t;
    },
    stderr: (t) => {
      err += t;
    },
    readFile: (p) => new Uint8Array(readFileSync(p)),
    ...(opts.stdin && { stdin: () => opts.stdin! }),
  };
  const code = await main(argv, io);
  return { code, out, err };
}
