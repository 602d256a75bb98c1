import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { buildReportTemplate } from './vite.report.config.ts';

/** Extensions the installed app registers itself for (manifest `file_handlers`). */
const PROFILE_EXTENSIONS = ['.prof', '.pprof', '.cpu', '.dcpi', '.folded', '.collapsed', '.txt', '.gz'];

/**
 * The Content-Security-Policy meta tag in index.html is for the built app. Vite's dev server
 * injects inline scripts (React refresh), so the tag is dropped while serving in development.
 */
function cspOnlyInBuild(): Plugin {
  return {
    name: 'flamelens:csp-only-in-build',
    apply: 'serve',
    transformIndexHtml: (html) => html.replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/, ''),
  };
}

/**
 * dist/report-template.html: the single-file app that HTML reports are made from, built by its own
 * vite build (vite.report.config.ts) and emitted with the app's files, so the service worker
 * precaches it and the Export menu's "HTML report" works offline too.
 */
function reportTemplate(): Plugin {
  return {
    name: 'flamelens:report-template',
    apply: 'build',
    async generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'report-template.html', source: await buildReportTemplate() });
    },
  };
}

export default defineConfig({
  // Relative base: dist/ works from any sub-path of any static host.
  base: './',
  plugins: [
    react(),
    cspOnlyInBuild(),
    reportTemplate(),
    VitePWA({
      // 'auto': registers the service worker with a generated registerSW.js file (no inline
      // script) until UpdatePrompt (virtual:pwa-register/react) is mounted, then leaves it to it.
      injectRegister: 'auto',
      registerType: 'prompt',
      manifest: {
        name: 'Flamelens',
        short_name: 'Flamelens',
        description: 'Flame graphs of native CPU profiles, read entirely in your browser.',
        id: './',
        start_url: './',
        scope: './',
        display: 'standalone',
        theme_color: '#1b1d22',
        background_color: '#1b1d22',
        icons: [
          { src: 'icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: 'icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: 'icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
          { src: 'icon.svg', sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
        ],
        file_handlers: [{ action: './', accept: { 'application/octet-stream': PROFILE_EXTENSIONS } }],
      },
      workbox: {
        // The whole app, the wasm demangler and the bundled example profile work offline.
        globPatterns: ['**/*.{js,css,html,svg,png,wasm,webmanifest}', 'examples/*'],
        maximumFileSizeToCacheInBytes: 8 * 1024 * 1024,
        // toolchain.md gotcha 5: clientsClaim makes the first service worker control the page that
        // installed it (offline right after the first visit). skipWaiting stays off on purpose: an
        // update waits until the user accepts UpdatePrompt's "Reload" (which sends SKIP_WAITING),
        // so an open page never runs old code against a new precache, nor reloads under the user.
        clientsClaim: true,
        skipWaiting: false,
        navigateFallback: 'index.html',
        cleanupOutdatedCaches: true,
      },
    }),
  ],
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: true,
    // FLAMELENS_DIST lets a second checkout or a parallel test run build elsewhere; `vite preview`
    // serves the same directory.
    outDir: process.env.FLAMELENS_DIST ?? 'dist',
  },
  server: { port: Number(process.env.FLAMELENS_PORT ?? 5173) },
  preview: {
    port: Number(process.env.FLAMELENS_PORT ?? 4173),
    strictPort: Boolean(process.env.FLAMELENS_PORT),
  },
});
