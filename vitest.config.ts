import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './tests/support/sequencer.ts';

/**
 * Test files that share one module graph per worker (`isolate: false`): those whose test helpers (followed
 * through their imports) are all in STATELESS_HELPERS (Chromium, servers and shared fixtures hold per-file
 * state), that mock nothing and leave the process alone. A fresh module graph costs about a second of CPU per
 * file; these files do not need one. What a helper must undo after each file (tests/support/cli.ts: its child
 * processes, scratch folders and spawnEveryRun) is done by tests/support/file-end.ts, which vitest runs before
 * every file in both projects, so that the helper registers no hook of its own.
 */

/** test helpers without hooks or per-file module state of their own */
const STATELESS_HELPERS = [
  'materials',
  'logistic',
  'league-sim',
  'python',
  'autoj-fixture',
  'study-six',
  'cli',
  'import-fixtures',
  'votes',
  'stored-game',
  'doc-blocks',
  'run-shared',
  'openai-server',
  'openai-batch',
  'mtbench-release',
  'until',
  'small-disk',
  'real-model',
]
  .map((h) => `tests/support/${h}.ts`)
  .concat(
    ['ops/helpers', 'web/fixture', 'storage/contract'].map((h) => `tests/${h}.ts`),
    readdirSync('tests/storage/contract').map((h) => `tests/storage/contract/${h}`),
    // the local judge's tests: they then share the process's llama.cpp runtime (src/judges/llama-cpp/loader.ts)
    [
      'tests/judges/judge.contract.ts',
      'tests/judges/llama-cpp/gguf-writer.ts',
      'tests/judges/llama-cpp/fixtures.ts',
      'tests/judges/llama-cpp/real-games.ts',
      'tests/judges/llama-cpp/foundation.ts',
      'tests/ops/lora-writer.ts',
    ],
  );
/** (on a line of code: not after a quote, where a test's own source text for a linter holds such a call) */
const NEEDS_ISOLATION =
  /^[^'"`\n]*(\bvi\.(mock|doMock|stub\w*|spyOn|useFakeTimers)\b|\bprocess\.(chdir|on|once|exit)\b|\bprocess\.env\.\w+\s*=[^=])/m;

/**
 * A file that starts the Node site in its own process: @hono/node-server replaces the global Request and Response
 * with its own for the rest of the process, and a later file's in-process responses then lose the headers the
 * middleware adds (a shared graph failed so: the security headers missing from an in-process GET).
 */
const STARTS_NODE_SITE = /\b(serveNode|nodeSite|getRequestListener)\b|@hono\/node-server|entry\/node\.ts/;

/**
 * Files kept in a fresh process although their helpers qualify: two `arena serve --annotate` processes racing on one
 * database failed once in the shared graph (at load average 15; it passed in every other run, alone and together).
 */
const KEPT_ISOLATED = ['tests/web/annotate-limits.test.ts'];

/** The test helpers (files under tests/, not the file itself) that `file` imports, directly or through others. */
function helpersOf(file: string, seen = new Set<string>()): Set<string> {
  for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const dep = join(dirname(file), m[1]!);
    if (!dep.startsWith('tests/') || seen.has(dep) || !existsSync(dep)) continue;
    seen.add(dep);
    helpersOf(dep, seen);
  }
  return seen;
}

/** Every test file, with its text and the test helpers it imports. */
const TEST_FILES = readdirSync('tests', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.ts'))
  .map((f) => join('tests', f))
  .map((file) => ({ file, text: readFileSync(file, 'utf8'), helpers: [...helpersOf(file)] }));

function sharedGraphFiles(): string[] {
  return TEST_FILES.filter(
    ({ file, text, helpers }) =>
      helpers.every((h) => STATELESS_HELPERS.includes(h)) &&
      !NEEDS_ISOLATION.test(text) &&
      !STARTS_NODE_SITE.test(text) &&
      !KEPT_ISOLATED.includes(file),
  ).map((t) => t.file);
}

const shared = sharedGraphFiles();

/** An in-process request to the app: under the Node adapter's globals it loses the middleware's headers. */
const IN_PROCESS_REQUEST = /\.request\(|\.fetch\(|createApp/;
/** Chromium's helper: it starts the Node site for the file that uses it. */
const CHROMIUM_HELPER = 'tests/support/chromium.ts';
/** Helpers that a file of the Node site's shared graph may import besides the stateless ones. */
const NODE_SITE_HELPERS = [CHROMIUM_HELPER, 'tests/support/npm-start.ts'];

/**
 * The files that start the Node site (themselves or through Chromium's helper) and make no in-process request: they
 * share a module graph with each other, never with `pure`'s (the adapter's global Request and Response are what
 * each of them runs under anyway), so that playwright-core and the site are imported once per worker.
 */
function nodeSiteGraphFiles(): string[] {
  return TEST_FILES.filter(
    ({ file, text, helpers }) =>
      !shared.includes(file) &&
      (STARTS_NODE_SITE.test(text) || helpers.includes(CHROMIUM_HELPER)) &&
      helpers.every((h) => STATELESS_HELPERS.includes(h) || NODE_SITE_HELPERS.includes(h)) &&
      !NEEDS_ISOLATION.test(text) &&
      !IN_PROCESS_REQUEST.test(text) &&
      !KEPT_ISOLATED.includes(file),
  ).map((t) => t.file);
}

const nodeSite = nodeSiteGraphFiles();

export default defineConfig({
  test: {
    // a folder per run for fixtures that several test files share (tests/support/run-shared.ts)
    globalSetup: ['tests/support/global-setup.ts'],
    // before every test file: the clean-up of tests/support/cli.ts at the file's end
    setupFiles: ['tests/support/file-end.ts'],
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // three test files at a time on the 2-core machine: many wait on child processes, local servers and timers, so two
    // left the CPU idle for a fifth of the run (158% of 2 cores; with three, 179%); four gained nothing more
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'pure', include: shared, isolate: false } },
      { extends: true, test: { name: 'node-site', include: nodeSite, isolate: false } },
      {
        extends: true,
        test: {
          name: 'isolated',
          include: ['tests/**/*.test.ts'],
          exclude: [...shared, ...nodeSite],
        },
      },
    ],
  },
});
