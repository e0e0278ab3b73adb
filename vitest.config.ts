import { defineConfig } from 'vitest/config';
import { LongestFirst } from './tests/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // a folder per run for fixtures that several test files share (tests/support/run-shared.ts)
    globalSetup: ['tests/support/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // two test files at a time: most of them wait on child processes and local servers, not on the CPU
    // (one at a time took about 30 minutes for the 87 files on the 2-core CI machine)
    maxWorkers: 2,
  },
});
