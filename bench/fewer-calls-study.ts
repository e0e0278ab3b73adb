// Bench: `arena run --until-settled` on the Judge Llama 2 study's six models, through the real command, a real
// SQLite file and real HTTP: the OpenAI-compatible test server answers each judge prompt with the reply the
// study recorded for that exact prompt (Llama-2-70B, both orders of 2,400 matches). Then a full `arena run` on
// the same database pays the skipped games only. Calls are counted by the server.
//
//   MTBENCH_DIR=../shared/mt_bench JUDGE_LLAMA2_DIR=../shared/judge_llama2 node --import tsx bench/fewer-calls-study.ts
//
// Prints: calls of the settled run and of the full plan, the share, the rank intervals of both (from the
// stored games, by the scheduler's own fit), and whether the settled ones reach the full plan's certainty.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { ClusteredBattle } from '../src/core/stats/battle-table.ts';
import { fitRanks } from '../src/core/stats/settle.ts';
import { STUDY_JUDGMENTS } from '../src/importers/judge-llama2.ts';
import { arenaOk, runArena, tmpDir } from '../tests/support/cli.ts';
import { startOpenAIServer } from '../tests/support/openai-server.ts';
import { inside, width, type Ranks } from '../tests/support/league-sim.ts';

const MT = process.env.MTBENCH_DIR ?? '../shared/mt_bench';
const JL2 = process.env.JUDGE_LLAMA2_DIR ?? '../shared/judge_llama2';
const MODELS = ['alpaca-13b', 'claude-v1', 'gpt-3.5-turbo', 'gpt-4', 'llama-13b', 'vicuna-13b-v1.2'];

/** The recorded reply for every recorded user prompt (both orders). */
function recordedReplies(): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of gunzipSync(readFileSync(join(JL2, STUDY_JUDGMENTS)))
    .toString()
    .split('\n')) {
    if (!l) continue;
    const r = JSON.parse(l) as Record<string, string>;
    out.set(r.g1_user_prompt!, r.g1_judgment!);
    out.set(r.g2_user_prompt!, r.g2_judgment!);
  }
  return out;
}

/** Rank intervals from the stored games of the judge, by the scheduler's fit (errors left out). */
function storedRanks(db: string): Ranks {
  const sqlite = new Database(db, { readonly: true });
  const rows = sqlite
    .prepare(
      "SELECT question_id AS q, turn, model_1 AS model1, model_2 AS model2, verdict FROM games WHERE judge LIKE 'openai/%'",
    )
    .all() as { q: number; turn: number; model1: string; model2: string; verdict: string }[];
  sqlite.close();
  const byMatch = new Map<string, typeof rows>();
  for (const r of rows) {
    const k = `${r.q}:${r.turn}:${r.model1}:${r.model2}`;
    byMatch.set(k, [...(byMatch.get(k) ?? []), r]);
  }
  const v = (x: string) => (x === 'model_1' ? 1 : x === 'model_2' ? 0 : x === 'tie' ? 0.5 : -1);
  const battles: ClusteredBattle[] = [];
  for (const g of byMatch.values()) {
    if (g.length !== 2) continue;
    const [s1, s2] = [v(g[0]!.verdict), v(g[1]!.verdict)];
    if (s1 < 0 || s2 < 0) continue;
    battles.push({
      a: g[0]!.model1,
      b: g[0]!.model2,
      score: (s1 === s2 ? s1 : 0.5) as 0 | 0.5 | 1,
      cluster: g[0]!.q,
    });
  }
  return fitRanks(MODELS, battles, 0.95)!.ranks;
}

const replies = recordedReplies();
let misses = 0;
const srv = await startOpenAIServer({
  verdict: ({ user }) => replies.get(user) ?? (misses++, 'no recorded reply for this prompt'),
});
const dir = tmpDir('arena-fewer-calls-');
const db = join(dir, 'arena.db');
await arenaOk(['import', 'mtbench', '--dir', MT, '--db', db]);
const base = [
  'run',
  '--judge',
  'openai/llama-2-70b',
  '--base-url',
  srv.url,
  '--db',
  db,
  '--models',
  MODELS.join(','),
];
base.push('--prompts', 'mt-bench', '--concurrency', '16');
const t0 = performance.now();
const settled = await runArena([...base, '--until-settled']);
const settledCalls = srv.completions();
const settledRanks = storedRanks(db);
const full = await runArena(base);
const fullCalls = srv.completions();
await srv.close();
const fullRanks = storedRanks(db);
if (settled.code !== 0 || full.code !== 0) throw new Error(`a run failed: ${settled.stderr}\n${full.stderr}`);
console.log(settled.stdout.trim());
console.log(
  `\nsettled run: ${settledCalls} calls; full run afterwards: ${fullCalls - settledCalls} more; full plan: ${fullCalls}` +
    ` calls; prompts with no recorded reply: ${misses}; ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
const show = (r: Ranks) => r.map((x) => `${x.model} ${x.best}-${x.worst}`).join(', ');
console.log(`full plan ranks:   ${show(fullRanks)} (width ${width(fullRanks)})`);
console.log(`settled run ranks: ${show(settledRanks)} (width ${width(settledRanks)})`);
console.log(
  `calls / full: ${((100 * settledCalls) / fullCalls).toFixed(1)}%; settled inside full: ${inside(settledRanks, fullRanks) ? 'yes' : 'no'}; width no larger: ${width(settledRanks) <= width(fullRanks) ? 'yes' : 'no'}`,
);
