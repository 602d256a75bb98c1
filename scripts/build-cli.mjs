// Builds the `flamelens` command line to plain JavaScript (dist-cli/flamelens.mjs), so it starts in
// a fraction of the time tsx takes to compile the TypeScript on every call. The demangler's wasm is
// copied beside it, and so is the disassembler (Capstone's CommonJS module and its wasm, in
// capstone/: its node path needs CommonJS's __dirname, so it is loaded by require, not bundled).
// `npm run cli` still runs the TypeScript through tsx.

import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

mkdirSync('dist-cli', { recursive: true });
await build({
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist-cli/flamelens.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Vite's `?init` and `?url` wasm imports exist only in Vite builds; the CLI passes the demangler's
  // wasm bytes itself and loads Capstone with require (cli/disasm.ts nodeDisassembler).
  external: ['*?init', '*?url', '@alexaltea/capstone-js'],
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
copyFileSync(
  createRequire(import.meta.url).resolve('gecko-profiler-demangle/index_bg.wasm'),
  'dist-cli/index_bg.wasm',
);
const capstone = createRequire(import.meta.url).resolve('@alexaltea/capstone-js');
mkdirSync('dist-cli/capstone', { recursive: true });
copyFileSync(capstone, 'dist-cli/capstone/capstone.cjs'); // .cjs: this package is "type": "module"
copyFileSync(capstone.replace(/capstone\.js$/, 'capstone.wasm'), 'dist-cli/capstone/capstone.wasm');
