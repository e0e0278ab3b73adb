// Once per `vitest run`: a scratch folder every test file sees (inject('runDir')) for what is expensive and the same
// for all, such as the migrated local D1; built by the first file that needs it, removed at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** a folder shared by the test files of one run (see tests/support/global-setup.ts) */
    runDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'arena-run-'));
  project.provide('runDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
