// The house rules of docs/DESIGN.md, as checked in `npm test`: dependency-cruiser's rules
// (.dependency-cruiser.mjs, run by `npm run lint`) on the import graph of src/, and the core
// type-checked without DOM or node types (tsconfig.core.json, run by `npm run typecheck`). The real
// tree passes; and each rule can fail: in a copy of src/ (its node_modules a link to ours), one file
// gets one violating import, and the checker must reject it naming that rule.

import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseConfig from 'dependency-cruiser/config-utl/extract-depcruise-config';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

interface Violation {
  rule: string;
  from: string;
  to: string;
}

let copy = '';
let config: IConfiguration;
let tsConfig: ReturnType<typeof extractTSConfig>;

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), 'flamelens-architecture-'));
  cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
  for (const f of ['tsconfig.json', 'tsconfig.core.json', 'package.json'])
    cpSync(join(ROOT, f), join(copy, f));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  config = await extractDepcruiseConfig(join(ROOT, '.dependency-cruiser.mjs'));
  tsConfig = extractTSConfig(join(copy, 'tsconfig.json'));
});

afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/**
 * The rules' violations in the copy, cruising from `files` (paths relative to it): their whole
 * graph, or (`direct`) only their own imports, enough for a rule on one import.
 */
async function violations(files: string[], direct = false): Promise<Violation[]> {
  const { output } = await cruise(
    files,
    {
      ...config.options,
      ...(direct && { maxDepth: 1 }),
      validate: true,
      ruleSet: { forbidden: config.forbidden },
      baseDir: copy,
    },
    // The copy's node_modules is a link: resolved through it, packages stay under node_modules/.
    { symlinks: false, bustTheCache: true },
    { tsConfig },
  );
  return (output as ICruiseResult).summary.violations.map((v) => ({
    rule: v.rule.name,
    from: v.from,
    to: v.to,
  }));
}

/** Runs `check` with `lines` put at the top of `file` in the copy (made if absent), then undoes it. */
async function withLines<T>(file: string, lines: string, check: () => Promise<T> | T): Promise<T> {
  const path = join(copy, file);
  let before: string | null = null;
  try {
    before = readFileSync(path, 'utf8');
  } catch {
    mkdirSync(dirname(path), { recursive: true });
  }
  writeFileSync(path, `${lines}\n${before ?? ''}`);
  try {
    return await check();
  } finally {
    if (before === null) rmSync(path);
    else writeFileSync(path, before);
  }
}

/** The core's type-check in the copy: tsc's error lines, none when it passes. */
function coreTypeErrors(): string[] {
  try {
    execFileSync(process.execPath, [TSC, '-p', join(copy, 'tsconfig.core.json'), '--noEmit'], {
      cwd: copy,
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return [];
  } catch (e) {
    const out = String((e as { stdout?: string }).stdout ?? e);
    return out.split('\n').filter((l) => /error TS\d+/.test(l));
  }
}

/** Core files (not tests) with a `/// <reference lib|types>` directive, which tsconfig.core.json would obey. */
function coreReferenceDirectives(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) {
        if (/^\s*\/\/\/\s*<reference\s+(lib|types)\s*=/m.test(readFileSync(join(root, rel), 'utf8')))
          found.push(rel);
      }
    }
  };
  walk('src/core');
  return found;
}

/**
 * One violating import per rule: the file it goes in, the line, and where the cruise starts (the
 * file itself, or the files that close a cycle through it). `deep`: the rule needs more than the
 * file's own imports (a cycle, what the file reaches). `from`: where the violation is seen (the
 * folder, for a rule on folders).
 */
const CASES: { rule: string; file: string; add: string; cruise?: string[]; deep?: true; from?: string }[] = [
  // calltree.ts ← functions.ts already (FunctionTable): calltree.ts → functions.ts closes a loop.
  { rule: 'no-circular', file: 'src/core/model/calltree.ts', add: "import './functions';", deep: true },
  // export/svg.ts → flamegraph/layout.ts already: flamegraph → export closes a loop of folders.
  {
    rule: 'no-circular-folders',
    file: 'src/flamegraph/layout.ts',
    add: "import '../export/csv';",
    cruise: ['src/flamegraph/layout.ts', 'src/export/svg.ts'],
    deep: true,
    from: 'src/flamegraph',
  },
  { rule: 'core-layer-base', file: 'src/core/types.ts', add: "import './text/names';" },
  { rule: 'core-layer-text', file: 'src/core/text/names.ts', add: "import '../symbols/elf';" },
  { rule: 'core-layer-symbols', file: 'src/core/symbols/elf.ts', add: "import '../model/calltree';" },
  { rule: 'core-layer-disasm', file: 'src/core/disasm/disasm.ts', add: "import '../model/calltree';" },
  { rule: 'core-layer-model', file: 'src/core/model/fold.ts', add: "import '../formats/detect';" },
  { rule: 'core-layer-formats', file: 'src/core/formats/folded.ts', add: "import '../bundle/bundle';" },
  { rule: 'core-layer-bundle', file: 'src/core/bundle/tar.ts', add: "import '../view/schema';" },
  { rule: 'core-layer-view', file: 'src/core/view/schema.ts', add: "import '../pipeline';" },
  { rule: 'core-layer-pipeline', file: 'src/core/pipeline.ts', add: "import './analysis/stages';" },
  {
    rule: 'core-in-a-layer',
    file: 'src/core/extra/helper.ts',
    add: "export { ProfileError } from '../types';",
  },
  { rule: 'core-only-core', file: 'src/core/model/search.ts', add: "import '../../worker/protocol';" },
  { rule: 'core-no-node-builtins', file: 'src/core/model/search.ts', add: "import 'fs';" },
  {
    rule: 'core-no-node-builtins',
    file: 'src/core/symbols/elf.ts',
    add: "import { readFileSync } from 'node:fs';",
  },
  { rule: 'core-no-ui-packages', file: 'src/core/model/search.ts', add: "import 'react-dom/client';" },
  { rule: 'core-no-ui-packages', file: 'src/core/view/schema.ts', add: "import { create } from 'zustand';" },
  { rule: 'core-npm-allow-list', file: 'src/core/formats/folded.ts', add: "import 'typescript';" },
  { rule: 'views-no-app', file: 'src/flamegraph/paint.ts', add: "import '../app/store';" },
  {
    rule: 'views-no-app',
    file: 'src/table/sortState.ts',
    add: "import type { AppState } from '../app/store';",
  },
  { rule: 'views-no-app', file: 'src/export/csv.ts', add: "import '../app/report';" },
  { rule: 'worker-no-app', file: 'src/worker/protocol.ts', add: "import '../app/carry';" },
  // Not React itself: a view that imports it.
  {
    rule: 'worker-no-ui-packages',
    file: 'src/worker/release.ts',
    add: "import '../flamegraph/FlameGraph';",
    deep: true,
  },
  { rule: 'cli-core-only', file: 'src/cli/main.ts', add: "import '../worker/protocol';" },
  {
    rule: 'analysis-not-in-page',
    file: 'src/app/store.ts',
    add: "import '../core/analysis/session';",
  },
  {
    rule: 'analysis-not-in-page',
    file: 'src/flamegraph/layout.ts',
    add: "import { STAGES } from '../core/analysis/stages';",
  },
  { rule: 'worker-client-only-from-app-worker', file: 'src/app/store.ts', add: "import '../worker/client';" },
  { rule: 'no-unresolvable', file: 'src/core/model/search.ts', add: "import './no-such-module';" },
];

describe('architecture', () => {
  it('the tree as it is breaks no rule', async () => {
    expect(await violations(['src'])).toEqual([]);
    expect(coreReferenceDirectives(ROOT)).toEqual([]);
  });

  it('has a case for every rule', () => {
    expect(new Set(CASES.map((c) => c.rule))).toEqual(new Set(config.forbidden?.map((r) => r.name)));
  });

  for (const c of CASES) {
    it(`${c.rule} rejects ${c.add} in ${c.file}`, async () => {
      const found = await withLines(c.file, c.add, () => violations(c.cruise ?? [c.file], !c.deep));
      expect(found.filter((v) => v.rule === c.rule && v.from === (c.from ?? c.file))).not.toEqual([]);
    });
  }

  it('type-checks the core without DOM or node types: document, window, fs, Buffer, process fail', async () => {
    const errors = await withLines(
      'src/core/model/search.ts',
      "import { readFileSync } from 'fs';\nexport const leaks = () => [document.title, window, readFileSync, Buffer, process.argv];",
      coreTypeErrors,
    );
    const at = errors.filter((l) => l.startsWith('src/core/model/search.ts(')).join('\n');
    for (const name of ['document', 'window', "'fs'", 'Buffer', 'process'])
      expect(at, `no error naming ${name}`).toContain(name);
    expect(errors.filter((l) => !l.startsWith('src/core/model/search.ts('))).toEqual([]);
  });

  it('finds a /// <reference lib="dom" /> in a core file (tsc would obey it)', async () => {
    const found = await withLines('src/core/text/format.ts', '/// <reference lib="dom" />', () =>
      coreReferenceDirectives(copy),
    );
    expect(found).toEqual(['src/core/text/format.ts']);
  });
});
