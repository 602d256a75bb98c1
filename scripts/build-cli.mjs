// Builds the `flamelens` command line to plain JavaScript (dist-cli/flamelens.mjs), so it starts in
// a fraction of the time tsx takes to compile the TypeScript on every call. The demangler's wasm is
// copied beside it. `npm run cli` still runs the TypeScript through tsx.

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
  // Vite's `?init` wasm import exists only in Vite builds; the CLI passes the wasm bytes itself.
  external: ['*?init'],
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
copyFileSync(
  createRequire(import.meta.url).resolve('gecko-profiler-demangle/index_bg.wasm'),
  'dist-cli/index_bg.wasm',
);
