// Once per `vitest run`, in the main process: a scratch folder that every test file of this run can see
// (inject('runDir')), for what is expensive to build and the same for every file, such as the migrated local D1
// of tests/web/support.ts. Built there by the first file that needs it; removed when the run ends.
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
