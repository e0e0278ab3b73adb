// Run by vitest before every test file (vitest.config.ts setupFiles), also in the project whose files share one
// module graph (`pure`, isolate: false), where a helper's module-level hook would be registered for the first
// file only: the clean-up each file needs at its end, registered for that file.
import { afterAll } from 'vitest';
import { endOfFile } from './cli.ts';

// as long as a test may run: it waits for the in-process runs of a test that timed out
afterAll(endOfFile, 600_000);
