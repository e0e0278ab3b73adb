import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './tests/support/sequencer.ts';

/**
 * Test files of pure code that share one module graph per worker (`isolate: false`): the files under
 * tests/core and tests/reports/analytics that use no helper with per-file state (tests/support/cli.ts registers
 * its clean-up when first imported; chromium, servers, shared fixtures), mock nothing and leave the process
 * alone. A fresh module graph costs about half a second of CPU per file; these files do not need one.
 */
const SHARED_GRAPH_DIRS = ['tests/core', 'tests/reports/analytics'];
/** tests/support modules without hooks or module state of their own */
const STATELESS_SUPPORT = ['materials', 'logistic', 'league-sim', 'python', 'autoj-fixture'];
const NEEDS_ISOLATION =
  /\bvi\.(mock|doMock|stub|spyOn|useFakeTimers)|process\.(chdir|on|once|exit)\b|process\.env\.\w+\s*=[^=]/;

function sharedGraphFiles(): string[] {
  const files = SHARED_GRAPH_DIRS.flatMap((d) =>
    readdirSync(d, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => join(d, f)),
  );
  return files.filter((f) => {
    const text = readFileSync(f, 'utf8');
    const support = [...text.matchAll(/from '(?:\.\.\/)+support\/([\w-]+)\.ts'/g)].map((m) => m[1]!);
    return support.every((s) => STATELESS_SUPPORT.includes(s)) && !NEEDS_ISOLATION.test(text);
  });
}

const shared = sharedGraphFiles();

export default defineConfig({
  test: {
    // a folder per run for fixtures that several test files share (tests/support/run-shared.ts)
    globalSetup: ['tests/support/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // two test files at a time: most of them wait on child processes and local servers, not on the CPU
    // (one at a time took about 30 minutes for the 87 files on the 2-core CI machine)
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'pure', include: shared, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ['tests/**/*.test.ts'], exclude: shared } },
    ],
  },
});
