#!/usr/bin/env node
// Bundle the `arena` command (src/cli/main.ts and what it imports) into dist/ with esbuild, so that
// bin/arena.mjs starts without tsx's loader (which transforms ~160 modules through loader hooks: ~1 s of CPU
// per start). The pure-JS packages are bundled too (the OpenAI SDK alone is ~200 ES modules, each resolved,
// read and compiled at start: `arena run` on the MT-Bench plan fell from 1.25 to 0.95 s of CPU before its
// first call); native and heavy ones stay external (EXTERNAL). Code splitting keeps the commands' lazy imports
// lazy: `arena standings` still never loads the OpenAI SDK. bin/arena.mjs uses dist/ only while it is newer
// than every file under src/ and than the last `npm install`.
import { readFileSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

// esbuild as tsx (a runtime dependency) installs it for itself: present in every install, dev or not
const { build } = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Loaded from node_modules as usual: native addons (better-sqlite3, node-llama-cpp and its per-platform
 * builds), the TypeScript loader bin/arena.mjs falls back to, and packages only a few commands load lazily
 * that are large (echarts) or run as their own program (wrangler).
 */
const EXTERNAL = [
  'better-sqlite3',
  'node-llama-cpp',
  '@node-llama-cpp/*',
  'tsx',
  'tsx/*',
  'esbuild',
  'wrangler',
  'echarts',
  'echarts/*',
  'playwright-core',
];
const outdir = join(root, 'dist');

// A source that reads files next to itself (`new URL('../../db/migrations', import.meta.url)`) must see its
// own URL, not the chunk's: every `import.meta.url` in src/ becomes that source file's URL, computed from
// the chunk's (all chunks lie in dist/, beside src/).
const ownUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const rel = relative(outdir, args.path).split(sep).join('/');
      return {
        contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`),
        loader: 'ts',
      };
    });
  },
};

const started = new Date(); // before any source is read
const t0 = performance.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: { arena: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // bundled CommonJS packages (cli-progress, markdown-it's deps...) call require() for Node's built-ins
  banner: {
    js: "import { createRequire as __arenaRequire } from 'node:module'; const require = __arenaRequire(import.meta.url);",
  },
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  outExtension: { '.js': '.mjs' },
  plugins: [ownUrl],
  metafile: true,
  logLevel: 'warning',
});
// drop the chunks of earlier builds (after writing, so a command started meanwhile finds its files)
const keep = new Set(Object.keys(result.metafile.outputs).map((f) => join(root, f)));
for (const f of readdirSync(outdir))
  if (!keep.has(join(outdir, f))) rmSync(join(outdir, f), { recursive: true, force: true });
// the entry's time is the build's start: a source saved while it ran is newer, so bin/arena.mjs ignores dist/
utimesSync(join(outdir, 'arena.mjs'), started, started);
console.error(`cli: bundled src/cli/main.ts into dist/arena.mjs in ${Math.round(performance.now() - t0)} ms`);
