// Bench: `arena refresh` on the whole MT-Bench release (80 questions, both turns) with the offline mock judge.
//
//   MTBENCH_DIR=../shared/mt_bench node --import tsx bench/refresh.ts
//
// Prints measured figures only (no pass/fail):
//  - the dry run's cost estimate vs the cost actually recorded, before any game is stored (chars/4 and a
//    configured reply length) and calibrated from stored games (a sixth model added), in % error;
//  - a refresh with nothing to do, against the ideal measured in the same run: planning alone
//    (planRun + games.existingIds on the same database), as a ratio;
//  - games per second of a full refresh with a judge that answers instantly (the orchestration's overhead).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planRun } from '../src/engine/run.ts';
import { createJudge } from '../src/judges/registry.ts';
import { withRefreshContext } from '../src/cli/ops-context.ts';
import { refresh as refreshWith } from '../src/ops/refresh/index.ts';
import { openSqliteStore } from '../src/storage/sqlite.ts';

const MT = process.env.MTBENCH_DIR ?? join(import.meta.dirname, '..', '..', 'shared', 'mt_bench');
const dir = mkdtempSync(join(tmpdir(), 'arena-bench-refresh-'));
const models = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo', 'gpt-4', 'llama-13b', 'vicuna-13b-v1.2'];
const config = (n: number, extra: object = {}, db = 'arena.db') => {
  const file = join(dir, `refresh-${n}-${db}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      db,
      questions: [join(MT, 'question.jsonl')],
      references: [join(MT, 'reference_answer', 'gpt-4.jsonl')],
      prompts: [join(MT, 'judge_prompts.jsonl')],
      answers: models.slice(0, n).map((m) => join(MT, 'model_answer', `${m}.jsonl`)),
      judges: [{ id: 'mock/longer', price: { input: 10, output: 30 }, concurrency: 8 }],
      estimate: { charsPerToken: 4, outputTokens: 8 },
      ...extra,
    }),
  );
  return file;
};
const t = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const t0 = performance.now();
  const v = await fn();
  return [v, (performance.now() - t0) / 1000];
};
/** `arena refresh` as the CLI wires it (config file, database, lock, judges) */
const refresh = (o: { configFile: string; dryRun?: boolean }) =>
  withRefreshContext(o.configFile, { dryRun: !!o.dryRun }, (ctx) =>
    refreshWith({ ...ctx, dryRun: !!o.dryRun }),
  );
const pct = (est: number, act: number) => `${((100 * (est - act)) / act).toFixed(2)}%`;

try {
  const five = config(5);
  const [dry1] = await t(() => refresh({ configFile: five, dryRun: true }));
  const [r1, s1] = await t(() => refresh({ configFile: five }));
  console.log(
    `full refresh, 5 models: ${r1.played} games in ${s1.toFixed(2)} s (${(r1.played / s1).toFixed(0)} games/s with an instant judge)`,
  );
  // the mock judge counts tokens as ceil(chars / 4), like the test server, and replies ~8 tokens: exact by construction
  console.log(
    `estimate before any stored game (chars/4 and 8 output tokens configured = the mock's own rule): est $${dry1.estCost.toFixed(4)} vs actual $${r1.cost.toFixed(4)}: ${pct(dry1.estCost, r1.cost)}`,
  );

  const six = config(6);
  const [dry2] = await t(() => refresh({ configFile: six, dryRun: true }));
  const [r2] = await t(() => refresh({ configFile: six }));
  console.log(
    `estimate calibrated from ${r1.played} stored games, sixth model (${r2.played} games): est $${dry2.estCost.toFixed(4)} vs actual $${r2.cost.toFixed(4)}: ${pct(dry2.estCost, r2.cost)}`,
  );

  const [r3, s3] = await t(() => refresh({ configFile: six }));
  // the ideal: only planning the same games and looking up which are stored
  const store = openSqliteStore(join(dir, 'arena.db'));
  const judge = await createJudge('mock/longer');
  const [, sPlan] = await t(async () => {
    const { games } = await planRun({
      store,
      judge,
      mode: 'pairwise-all',
      models,
      turns: [1, 2],
      referenceSource: 'gpt-4',
      settings: { temperature: 0, maxTokens: 2048 },
    });
    await store.games.existingIds(games.map((g) => g.id));
  });
  await store.close();
  // the budget cap on a fresh database: 30% of the estimated cost of all 4,800 games
  const capped = config(6, { budget: { maxUsd: 0.3 * (dry1.estCost + dry2.estCost) } }, 'capped.db');
  const [rb] = await t(() => refresh({ configFile: capped }));
  const cap = 0.3 * (dry1.estCost + dry2.estCost);
  const capStore = openSqliteStore(join(dir, 'capped.db'));
  const costs = (capStore.sqlite.prepare('select cost from games').all() as { cost: number }[]).map(
    (r) => r.cost,
  );
  await capStore.close();
  const dearest = Math.max(...costs);
  console.log(
    `budget cap $${cap.toFixed(4)}: ${rb.played} games played, ${rb.skipped} not started, spent $${rb.cost.toFixed(4)} (${((100 * rb.cost) / cap).toFixed(2)}% of the cap; ${((cap - rb.cost) / dearest).toFixed(2)} of the dearest game's cost $${dearest.toFixed(4)} left unspent)`,
  );
  console.log(
    `refresh with nothing to do (${r3.plan[0]!.planned} games planned, ${r3.played} played): ${s3.toFixed(2)} s; planning alone ${sPlan.toFixed(2)} s; ratio ${(s3 / sPlan).toFixed(2)}x (the rest: import of 6 answer files, calibration, health, records)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
