// Bench: the cost of the game-id hash on the MT-Bench plan (6 models, pairwise-all, both turns: 4,800 games).
//
//   MTBENCH_DIR=../shared/mt_bench node --import tsx bench/game-ids.ts
//
// gameId (src/core/plan.ts) hashes with @noble/hashes' pure sha256, so that core stays free of node:*.
// This measures it against node:crypto's createHash on the same 4,800 games in the same process, as a
// ratio, and against planning the whole run (planRun: store reads, prompt rendering, ids), so the figure
// says what the pure hash costs a run. Prints figures only (no pass/fail).
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gameId, gameIdentity } from '../src/core/plan.ts';
import { planRun } from '../src/engine/run.ts';
import { importFiles, mtbenchSources } from '../src/importers/import.ts';
import type { JudgeProvider } from '../src/judges/judge.ts';
import { openMemoryStore } from '../src/storage/sqlite.ts';

const MT = process.env.MTBENCH_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'mt_bench');
const MODELS = ['gpt-4', 'claude-v1', 'gpt-3.5-turbo', 'vicuna-13b-v1.2', 'alpaca-13b', 'llama-13b'];
const ROUNDS = 30;

const store = openMemoryStore();
const { votes: _v, judgments: _j, ...sources } = mtbenchSources(MT);
await importFiles(store, sources);
const judge: JudgeProvider = { id: 'openai/gpt-4', complete: () => Promise.reject(new Error('not called')) };
const settings = { temperature: 0, maxTokens: 2048 };
const plan = () =>
  planRun({
    store,
    judge,
    mode: 'pairwise-all',
    models: MODELS,
    turns: [1, 2],
    referenceSource: 'gpt-4',
    settings,
  });
const { games } = await plan();
const specs = games.map((g) => g.spec);
const bytes = specs.reduce((s, spec) => s + Buffer.byteLength(gameIdentity(judge.id, settings, spec)), 0);

const nodeId = (spec: (typeof specs)[number]) =>
  createHash('sha256')
    .update(gameIdentity(judge.id, settings, spec))
    .digest('hex')
    .slice(0, 32);
for (const spec of specs)
  if (nodeId(spec) !== gameId(judge.id, settings, spec)) throw new Error('the two hashes disagree');

/** median ms of ROUNDS runs of fn (after 3 warm-up runs) */
async function median(fn: () => unknown): Promise<number> {
  for (let i = 0; i < 3; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b)[ROUNDS >> 1]!;
}

const identity = await median(() => specs.map((s) => gameIdentity(judge.id, settings, s)));
const noble = await median(() => specs.map((s) => gameId(judge.id, settings, s)));
const node = await median(() => specs.map(nodeId));
const planning = await median(plan);
console.log(
  `${specs.length} games, ${(bytes / 1e6).toFixed(1)} MB of game content hashed; median of ${ROUNDS} rounds`,
);
console.log(`identity strings alone:       ${identity.toFixed(1)} ms`);
console.log(
  `ids, @noble/hashes sha256:    ${noble.toFixed(1)} ms (${((1000 * noble) / specs.length).toFixed(1)} µs per game)`,
);
console.log(
  `ids, node:crypto createHash:  ${node.toFixed(1)} ms (${((1000 * node) / specs.length).toFixed(1)} µs per game)`,
);
console.log(
  `noble / node:crypto:          ${(noble / node).toFixed(2)}x; the difference is ${(noble - node).toFixed(1)} ms per plan`,
);
console.log(
  `planRun (whole plan, noble):  ${planning.toFixed(1)} ms; the hash difference is ${((100 * (noble - node)) / planning).toFixed(1)}% of it`,
);
await store.close();
