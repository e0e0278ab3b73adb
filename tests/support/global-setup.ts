// Once per `vitest run`, in the main process: a scratch folder that every test file of this run can see
// (inject('runDir')), for what is expensive to build and the same for every file, such as the migrated local D1
// of tests/web/support.ts. Built there by the first file that needs it; removed when the run ends. And the run's
// Chromium (tests/support/chromium-server.ts), started when a file first asks for it, closed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { chromiumBroker } from './chromium-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** a folder shared by the test files of one run (see tests/support/global-setup.ts) */
    runDir: string;
    /** where a test file asks for the run's Chromium (tests/support/chromium-server.ts) */
    chromiumBroker: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'arena-run-'));
  project.provide('runDir', dir);
  const chromium = await chromiumBroker();
  project.provide('chromiumBroker', chromium.url);
  return async () => {
    await chromium.close();
    rmSync(dir, { recursive: true, force: true });
  };
}
