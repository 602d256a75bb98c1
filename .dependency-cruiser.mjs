// The house rules of docs/DESIGN.md ("The seams", "Folders") on the import graph of src/, checked
// by dependency-cruiser: `npm run lint` (lint:deps) and test/architecture.test.ts, which also
// shows that each rule rejects a violating import. Type-only imports count (a type names the
// module it comes from as much as a value does). Test files are left out: they run in node and
// may import anything.

/**
 * The core's layers, lowest first. A file imports only from its own layer or lower ones, so the
 * core's folders have no cycles and each can be read knowing only those below it. Every core file
 * is in a layer (a new folder gets its place here, and in DESIGN.md's "Folders").
 */
const CORE_LAYERS = [
  // The shared vocabulary: profile types, errors, 64-bit address helpers and builders, and the
  // globals the core may use (globals.d.ts, for tsconfig.core.json).
  { name: 'base', path: '^src/core/(types\\.ts|address\\.ts|globals\\.d\\.ts)$' },
  // Number and name formatting: plain functions over strings and numbers.
  { name: 'text', path: '^src/core/text/' },
  // ELF, DWARF, nm listings, demangling, mappings, the symbolizer: addresses to names.
  { name: 'symbols', path: '^src/core/symbols/' },
  // Machine code: a symbol's instructions decoded (Capstone in wasm), with their samples and lines.
  { name: 'disasm', path: '^src/core/disasm/' },
  // Raw profile to folded profile to trees and tables: fold, transforms, views, diff, search.
  { name: 'model', path: '^src/core/model/' },
  // One importer per format, and detection. A preview folds with the model's naming.
  { name: 'formats', path: '^src/core/formats/' },
  // Archives of a profile with its objects: opened into the files a drop gives.
  { name: 'bundle', path: '^src/core/bundle/' },
  // The view schema and its URL form: names the model's transforms, filters and widths.
  { name: 'view', path: '^src/core/view/' },
  // The pipeline's stages, from bytes to trees and tables.
  { name: 'pipeline', path: '^src/core/pipeline\\.ts$' },
  // The analysis seam: a workspace's inputs and a view in, what the views show out; the worker and
  // the CLI drive it. Nothing in the core imports it.
  { name: 'analysis', path: '^src/core/analysis/' },
];

/**
 * npm packages the core may import: both run in node and in workers, with no DOM. `re2js` (RE2's
 * port) matches every pattern a file, a link or a person gives (drop_frames, search, list/disasm)
 * in linear time, with pprof's (Go's) syntax: a JavaScript RegExp backtracks for ever on `(a+)+$`.
 */
const CORE_PACKAGES = ['fflate', 'gecko-profiler-demangle', '@alexaltea/capstone-js', 're2js'];

const TEST = '\\.test\\.tsx?$';
const VIEWS = '^src/(flamegraph|table|export|calltree|callgraph|timeline)/';
/** The page's packages: React and what is built on it, the page's store, the flame graph's d3. */
const UI_PACKAGES = '^node_modules/(react|react-dom|scheduler|zustand|d3-[^/]+)/';

/**
 * One rule per layer below the top: of the core, it imports only its own layer and lower ones (not
 * a higher one, nor a file in no layer).
 */
const layerRules = CORE_LAYERS.slice(0, -1).map((layer, i) => {
  const above = CORE_LAYERS.slice(i + 1);
  return {
    name: `core-layer-${layer.name}`,
    comment: `src/core's layers, lowest first: ${CORE_LAYERS.map((l) => l.name).join(' < ')}. ${layer.name} imports no higher layer (${above.map((l) => l.name).join(', ')}): move what both need down to the lower one.`,
    severity: 'error',
    from: { path: layer.path, pathNot: TEST },
    to: { path: '^src/core/', pathNot: CORE_LAYERS.slice(0, i + 1).map((l) => l.path) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'No import cycles between files: a cycle makes the order modules initialize in matter, and a part that cannot be read or tested without the rest.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment:
        'No cycles between folders either: each folder is a part with one direction of use (in the core, the layer order says which).',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'core-in-a-layer',
      comment: `Every file of src/core belongs to a layer (${CORE_LAYERS.map((l) => l.name).join(' < ')}): give a new folder or file its place in CORE_LAYERS (.dependency-cruiser.mjs) and in DESIGN.md's "Folders".`,
      severity: 'error',
      from: { path: '^src/core/', pathNot: [...CORE_LAYERS.map((l) => l.path), TEST] },
      to: {},
    },
    {
      name: 'core-only-core',
      comment:
        'The core is pure TypeScript that runs in node (tests, CLI) and in the worker: it imports nothing of src/ outside src/core (no views, no worker, no app).',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'core-no-node-builtins',
      comment:
        "The core runs in the browser's worker too: no node modules (fs, path, node:*); the CLI reads files and passes bytes.",
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-no-ui-packages',
      comment:
        'The core has no DOM and no React: no react, react-dom, zustand, d3 or other page packages (views take what the core derives through props).',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { path: UI_PACKAGES },
    },
    {
      name: 'core-npm-allow-list',
      comment: `The core imports only npm packages that run in node and in a worker without a DOM: ${CORE_PACKAGES.join(', ')}. Adding one is a decision: list it here (and say why in DESIGN.md).`,
      severity: 'error',
      from: { path: '^src/core/', pathNot: TEST },
      to: { path: '^node_modules/', pathNot: CORE_PACKAGES.map((p) => `^node_modules/${p}/`) },
    },
    {
      name: 'views-no-app',
      comment:
        'Views outside app/ (flame graph, table, exports) get what they need through props: they import nothing of src/app.',
      severity: 'error',
      from: { path: VIEWS, pathNot: TEST },
      to: { path: '^src/app/' },
    },
    {
      name: 'worker-no-app',
      comment:
        'The worker derives; the page shows: src/worker imports nothing of src/app (wire types live in worker/protocol.ts, which the page imports).',
      severity: 'error',
      from: { path: '^src/worker/', pathNot: TEST },
      to: { path: '^src/app/' },
    },
    {
      name: 'worker-no-ui-packages',
      comment:
        "The worker has no DOM: none of its code reaches React or the page's packages, however indirectly (its bundle would carry them).",
      severity: 'error',
      from: { path: '^src/worker/', pathNot: TEST },
      to: { path: UI_PACKAGES, reachable: true },
    },
    {
      name: 'cli-core-only',
      comment:
        'The CLI runs the same core in node: it imports the core and node modules, not the page (app, worker, views, pwa).',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: TEST },
      to: { path: '^src/', pathNot: ['^src/core/', '^src/cli/'] },
    },
    {
      name: 'analysis-not-in-page',
      comment:
        'The analysis seam (core/analysis) parses and derives where the profile lives: in the worker (its entry and drop flow) and in the CLI. The page reaches it only through worker messages: no page code imports it (a parse on the main thread would freeze the tab).',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: ['^src/worker/(profile\\.worker|folder)\\.ts$', '^src/cli/', '^src/core/analysis/', TEST],
      },
      // Its types may be named (what the worker answers with): they are erased from the bundle.
      to: { path: '^src/core/analysis/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'worker-client-only-from-app-worker',
      comment:
        "app/worker.ts is the only page code that talks to the worker (open.ts and view.ts go through it): nothing else of the page imports the worker's client.",
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/app/worker\\.ts$', '^src/worker/', TEST] },
      to: { path: '^src/worker/client\\.ts$' },
    },
    {
      name: 'no-unresolvable',
      comment:
        "An import that resolves to no file is a typo or a missing package (Vite's virtual modules aside).",
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^virtual:' },
    },
  ],
  options: {
    exclude: { path: TEST },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
