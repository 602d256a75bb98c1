// The single-file variant of the app that HTML reports are made from (Export → HTML report): every
// script, style and the worker inlined in one HTML file that opens from file:// with no other file
// and no network. `npm run build` makes it (vite.config.ts's reportTemplate plugin runs this build
// and emits its page as dist/report-template.html); the running app fetches it when it exports and
// puts the profile and the view in it (src/export/report.ts).
//
// vite-plugin-singlefile inlines the JS and CSS. What it cannot do is done here:
//  - the workers: spawn.ts is replaced by spawn-inline.ts (vite's `?worker&inline`: the worker's
//    code is a string in the page, started from a Blob URL as a classic worker, as Chromium starts
//    no module worker from a blob: URL of a file:// page); the worker's own workers
//    (worker/reader.worker.ts, worker/prefault.worker.ts) are `?worker&inline` in both builds, so
//    they come inlined in its code, classic workers here too (worker.format);
//  - no service worker and no update prompt (virtual:pwa-register/react is a stub);
//  - no demangler: a report's names are resolved already (a stub that leaves names as they are,
//    used only if someone drops binaries on a report); no disassembler (a report holds no binary:
//    the report carries its heaviest functions' disassembly: app/report.ts);
//  - the call graph's layout worker inlined too (callgraph/spawn-inline.ts), Graphviz with it;
//  - the page's Content-Security-Policy: the inline script and style by their hashes, wasm (Graphviz),
//    workers from blob:, and nothing from the network (`connect-src 'none'`); no icon or manifest links.

import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build, type Plugin, type Rolldown } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

const ROOT = fileURLToPath(new URL('.', import.meta.url));

const STUBS: Record<string, string> = {
  'virtual:pwa-register/react': `import { useState } from 'react';
export function useRegisterSW() {
  return { needRefresh: useState(false), offlineReady: useState(false), updateServiceWorker: async () => {} };
}`,
  'gecko-profiler-demangle/index_bg.js': `export function demangle_any(name) { return name; }
export function __wbg_set_wasm() {}`,
  'gecko-profiler-demangle/index_bg.wasm?init': `export default async function init() {
  return { exports: { __wbindgen_start() {} } };
}`,
  '@alexaltea/capstone-js': `export default async function factory() {
  throw new Error('an HTML report holds no binary to disassemble: open the profile with its binaries in the app');
}`,
  '@alexaltea/capstone-js/dist/capstone.wasm?url': 'export default "";',
};

/** Module replacements for the single-file build (in the page and in the worker). */
function reportModules(): Plugin {
  return {
    name: 'flamelens:report-modules',
    enforce: 'pre',
    resolveId(id, importer) {
      if (id in STUBS) return `\0report-stub:${id}`;
      if (id === './spawn' && importer?.replaceAll('\\', '/').endsWith('/src/worker/client.ts'))
        return fileURLToPath(new URL('./src/worker/spawn-inline.ts', import.meta.url));
      if (id === './spawn' && importer?.replaceAll('\\', '/').endsWith('/src/callgraph/layoutClient.ts'))
        return fileURLToPath(new URL('./src/callgraph/spawn-inline.ts', import.meta.url));
      return null;
    },
    load(id) {
      if (id.startsWith('\0report-stub:')) return STUBS[id.slice('\0report-stub:'.length)];
      return null;
    },
  };
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The built page made fit to open from a file: its links to other files removed (icons, manifest,
 * service worker registration) and a Content-Security-Policy allowing its own inline code only.
 */
export function reportPage(html: string): string {
  let page = html
    .replace(
      /<!-- No inline script anywhere;[\s\S]*?-->/,
      '<!-- A Flamelens report: the app inlined (scripts allowed by their hashes), no network. -->',
    )
    .replace(/\s*<link rel="(?:icon|apple-touch-icon|manifest)"[^>]*>/g, '')
    .replace(/\s*<script[^>]*src="[^"]*registerSW\.js"[^>]*><\/script>/g, '');
  const scripts = [...page.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  const styles = [...page.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
  if (scripts.length !== 1 || /<script\b[^>]*\bsrc=/.test(page) || /<link rel="stylesheet"/.test(page))
    throw new Error('report template: expected exactly one inline script and no external scripts or styles');
  const csp = [
    "default-src 'none'",
    // Graphviz (the call graph's layout) is wasm: compiling it needs 'wasm-unsafe-eval'.
    `script-src ${scripts.map(sha256).join(' ')} 'wasm-unsafe-eval'`,
    'worker-src blob:',
    `style-src ${styles.map(sha256).join(' ')}`,
    'img-src data: blob:',
    "connect-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const meta = /<meta http-equiv="Content-Security-Policy" content="[^"]*" \/>/;
  if (!meta.test(page))
    throw new Error('report template: index.html has no Content-Security-Policy meta tag');
  page = page.replace(meta, `<meta http-equiv="Content-Security-Policy" content="${csp}" />`);
  return page.replace('<title>Flamelens</title>', '<title>Flamelens report</title>');
}

/** Builds the single-file app in memory and returns its page (reportPage applied). */
export async function buildReportTemplate(): Promise<string> {
  const out = await build({
    configFile: false,
    root: ROOT,
    base: './',
    logLevel: 'warn',
    plugins: [reportModules(), react(), viteSingleFile({ removeViteModuleLoader: true })],
    // One chunk for the worker too: its code is a string in the page. A classic worker: Chromium
    // refuses a module worker from a blob: URL made by a file:// page (an opaque origin).
    worker: {
      format: 'iife',
      plugins: () => [reportModules()],
      rolldownOptions: { output: { codeSplitting: false } },
    },
    build: {
      target: 'es2022',
      write: false,
      sourcemap: false,
      modulePreload: false,
      reportCompressedSize: false,
      copyPublicDir: false,
    },
  });
  const outputs = (Array.isArray(out) ? out : [out]) as Rolldown.RolldownOutput[];
  const files = outputs.flatMap((o) => o.output);
  const html = files.find((f) => f.fileName === 'index.html');
  if (html?.type !== 'asset') throw new Error('report template: the build made no index.html');
  const others = files.filter((f) => f !== html).map((f) => f.fileName);
  if (others.length > 0) throw new Error(`report template: files not inlined: ${others.join(', ')}`);
  return reportPage(String(html.source));
}
