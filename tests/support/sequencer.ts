// The order test files start in: the longest first, so that the workers finish together instead of one of
// them starting a 90-second file when everything else is done. Vitest orders by the durations it cached on
// the last run (longest first), and without a cache (a fresh clone, as CI has) by file size, which puts short
// files with long setups (a wrangler dev, a llama.cpp model) last. So the files that take longest start
// first, in the order of LONGEST; the rest keep vitest's order.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest test files, longest first (file times of a whole `npm test`, see docs/performance.md). */
export const LONGEST = [
  // first: it builds the run's shared `npm start` database (tests/support/npm-start.ts) that
  // documented-flows copies, so that one finds it built instead of waiting for it
  'tests/cli/start.test.ts',
  'tests/web/worker.test.ts',
  'tests/docs/documented-flows.test.ts',
  'tests/engine/disk-full.test.ts',
  'tests/web/ops-pages.test.ts',
  'tests/ops/checkpoints-llama.test.ts',
  'tests/judges/llama-cpp/llama-cpp.test.ts',
  'tests/judges/llama-cpp/real-model.test.ts',
  'tests/engine/soak.test.ts',
  'tests/core/stats/style-sim.test.ts',
  'tests/web/publish-d1.test.ts',
  'tests/web/publish-votes.test.ts',
  'tests/web/browser.test.ts',
  // two refreshes of MT-Bench's 4,800 games against a replaying server, then Chromium
  'tests/web/succession-browser.test.ts',
  'tests/ops/refresh-publish.test.ts',
  'tests/lint.test.ts',
  // long for their size (vitest's order without a cache put them in the last minute, where they ran alone): a
  // simulation, and files that wait on processes, locks and timers more than they compute
  'tests/core/stats/coverage-sim.test.ts',
  'tests/importers/judge-llama2.test.ts',
  'tests/engine/settle-kill.test.ts',
  'tests/cli/dist.test.ts',
  'tests/storage/busy.test.ts',
  'tests/engine/run-concurrency.test.ts',
  'tests/judges/llama-cpp/schemes-llama.test.ts',
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const gone = LONGEST.filter((p) => !existsSync(join(this.ctx.config.root, p)));
    if (gone.length)
      throw new Error(`tests/support/sequencer.ts names test files that do not exist: ${gone.join(', ')}`);
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = LONGEST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
      return i < 0 ? LONGEST.length : i;
    };
    return sorted
      .map((f, i) => ({ f, i, r: rank(f) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.f);
  }
}
