// The site's test database: the MT-Bench release, mock judge games, and script-injection attempts in a model's
// answers and a judge's replies. Built once per run (tests/support/run-shared.ts); each caller gets a copy.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { importPairs } from '../../src/importers/pairs.ts';
import type { JudgeProvider } from '../../src/judges/judge.ts';
import { mockJudge } from '../../src/judges/mock.ts';
import { importFiles, mtbenchSources } from '../../src/importers/import.ts';
import { runTournament } from '../../src/engine/run.ts';
import { updateReports } from '../../src/cli/reports.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { tmpDir } from '../support/cli.ts';
import { copySqlite, runShared } from '../support/run-shared.ts';

export const MTBENCH_DIR = process.env.MTBENCH_DIR ?? join(process.cwd(), '..', 'shared', 'mt_bench');
/** LLMBar's labelled pairs (judge_sets/llmbar), when present: the judge leaderboard's labelled-set columns. */
const SETS_DIR = process.env.JUDGE_SETS_DIR ?? join(process.cwd(), '..', 'shared', 'judge_sets');
export const LLMBAR_DIR = existsSync(join(SETS_DIR, 'llmbar')) ? join(SETS_DIR, 'llmbar') : undefined;

/** Untrusted text that must never run: a script tag, an event handler, javascript: links (Markdown and raw), an svg onload and a remote image. */
export const XSS = [
  'Sure! <script>alert(1)</script> and <img src=x onerror=alert(1)>',
  '[click me](javascript:alert(1)) and <a href="javascript:alert(1)">raw link</a>',
  '<svg onload=alert(1)></svg> ![tracker](http://127.0.0.1:9/pixel.png) "quotes" & ampersands',
].join('\n\n');
export const EVIL_MODEL = 'evil-model';
export const XSS_JUDGE = 'mock/xss';

/** A judge that answers with the injection text and a verdict. */
const xssJudge: JudgeProvider = {
  id: XSS_JUDGE,
  complete: async () => ({ text: `${XSS}\n\nVerdict: [[A]]`, tokensIn: 10, tokensOut: 10 }),
};

export interface Fixture {
  file: string;
  store: SqliteStore;
}

/**
 * The site's test database in `dir` (a copy of the run's), open; with `reports`, its stored reports and pages
 * built too, once per run, so the files reading them do not each compute them (4 s of CPU).
 */
export async function buildFixture(
  dir = tmpDir('arena-web-'),
  o: { reports?: boolean } = {},
): Promise<Fixture> {
  const shared = await runShared('web-fixture', async (scratch) => {
    const store = openSqliteStore(join(scratch, 'site.db'));
    try {
      await fill(store);
    } finally {
      await store.close();
    }
  });
  const from = !o.reports
    ? shared
    : await runShared('web-fixture-reports', async (scratch) => {
        copySqlite(join(shared, 'site.db'), join(scratch, 'site.db'));
        const store = openSqliteStore(join(scratch, 'site.db'));
        try {
          await updateReports(store, { log: () => {} });
        } finally {
          await store.close();
        }
      });
  const file = join(dir, 'site.db');
  copySqlite(join(from, 'site.db'), file);
  return { file, store: openSqliteStore(file) };
}

async function fill(store: SqliteStore): Promise<void> {
  await importFiles(store, mtbenchSources(MTBENCH_DIR));
  // games with texts: question 81 and 82, gpt-4 vs claude-v1, both turns, both orders
  await runTournament({
    store,
    judge: mockJudge('longer'),
    mode: 'pairwise-all',
    models: ['gpt-4', 'claude-v1'],
    questionIds: [81, 82],
    concurrency: 2,
  });
  // single-answer grades (mock: a deterministic 1–10 from the prompt), both turns
  await runTournament({
    store,
    judge: mockJudge('longer'),
    mode: 'single',
    models: ['gpt-4', 'claude-v1'],
    questionIds: [81, 82],
    concurrency: 2,
  });
  const q81 = (await store.catalog.questions()).find((q) => q.id === 81)!;
  await store.importBundle({
    answers: [
      {
        source: 'evil.jsonl',
        items: [{ model: EVIL_MODEL, questionId: 81, turns: q81.turns.map(() => XSS) }],
      },
    ],
  });
  await runTournament({
    store,
    judge: xssJudge,
    mode: 'pairwise-all',
    models: [EVIL_MODEL, 'gpt-4'],
    questionIds: [81],
    concurrency: 2,
  });
  if (LLMBAR_DIR) await importPairs(store, LLMBAR_DIR);
}

/** Count gpt4_pair outcomes straight from the release's CSV (independent of the importer and of core). */
export function countFromCsv(
  csv: string,
  judgeColumnValue: string,
  model: string,
): { win: number; loss: number; tie: number } {
  const [header, ...lines] = csv.trim().split('\n');
  const col = header!.split(',');
  const at = (name: string) => col.indexOf(name);
  let win = 0;
  let loss = 0;
  let tie = 0;
  for (const line of lines) {
    const f = line.split(',');
    if (f[at('judge')] !== judgeColumnValue) continue;
    const a = f[at('model_a')];
    const b = f[at('model_b')];
    const w = f[at('winner')];
    if (a !== model && b !== model) continue;
    if (w!.startsWith('tie'))
      tie++; // tie, "tie (bothbad)", "tie (inconsistent)"
    else if ((w === 'model_a') === (a === model)) win++;
    else loss++;
  }
  return { win, loss, tie };
}
