import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // a folder per run for fixtures that several test files share (tests/support/run-shared.ts)
    globalSetup: ['tests/support/global-setup.ts'],
    // before every test file: the process as a fresh one has it, and the file's clean-up at its end
    setupFiles: ['tests/support/file-end.ts'],
    // the files of a worker share one module graph (a fresh one costs about a second of CPU per file): a file leaves
    // the process as it found it, and a helper keeps no per-file state (docs/testing.md)
    isolate: false,
    restoreMocks: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // many files wait on processes, servers and timers: three at a time keep the 2 cores busy (docs/performance.md)
    maxWorkers: 3,
  },
});
