// Game ids are content addresses: a changed id re-pays every stored game. These pin the MT-Bench plan's ids to
// hashes recorded on the code before the issue 11 refactor, not derived from the code under test.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Mode } from '../../src/core/types.ts';
import { planRun } from '../../src/engine/run.ts';
import { ensureBuiltinPrompts } from '../../src/importers/builtin.ts';
import { importFiles, mtbenchSources } from '../../src/importers/import.ts';
import { SCHEME_PROMPT_NAMES } from '../../src/core/schemes/index.ts';
import type { JudgeProvider } from '../../src/judges/judge.ts';
import { openMemoryStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { MTBENCH_DIR, noMtbench, skipWhy } from '../support/materials.ts';

const DIR = MTBENCH_DIR;
skipWhy('game-ids', noMtbench('the real MT-Bench release'));

const MODELS = ['gpt-4', 'claude-v1', 'gpt-3.5-turbo', 'vicuna-13b-v1.2', 'alpaca-13b', 'llama-13b'];

/** Only the id takes part in planning: a judge that is never called. */
function judgeNamed(id: string): JudgeProvider {
  return {
    id,
    complete: () => Promise.reject(new Error('planning must not call the judge')),
  };
}

/** sha256 over the ids in plan order, one per line: pins every id and FastChat's match order. */
const digest = (ids: string[]) => createHash('sha256').update(ids.join('\n')).digest('hex');

// [mode, judge, prompt set, settings, games, sha256 of the ids] recorded on the code before the refactor
const RECORDED: [Mode, string, string | undefined, Record<string, number>, number, string][] = [
  // `arena run --judge openai/gpt-4 --models ...` (MT-Bench's own prompts, as they are imported)
  [
    'pairwise-all',
    'openai/gpt-4',
    undefined,
    {},
    4800,
    '7765e7c7ff07c74489cc7f44c116906ebebcde23b960dc74823de49d1e33f68b',
  ],
  [
    'pairwise-baseline',
    'openai/gpt-4',
    undefined,
    {},
    1600,
    '756db59182913fcb0dcaf7da1048138704ecb1721e1150da66281a5c1a439a26',
  ],
  [
    'single',
    'openai/gpt-4',
    undefined,
    {},
    960,
    '52fc9079ba73242438a40988f87eaaf7f79387f9b53b0a95f7fd251c4c05ce11',
  ],
  // the settings are part of each game's identity
  [
    'pairwise-all',
    'llama-cpp/judge.gguf',
    undefined,
    { temperature: 0.7, maxTokens: 512 },
    4800,
    '11dffdb52336b0c09263c12e83d075e45d8b94ba5daecdad9a542e0610f28138',
  ],
  // the shipped prompt sets (questions/judge_prompts.jsonl, questions/judge_schemes.jsonl)
  [
    'pairwise-all',
    'openai/gpt-4',
    'arena',
    {},
    4800,
    'e94d61c5de5c2774fcc3c06c846f9557082da30f3cbed368eb34603d15c380cd',
  ],
  [
    'single',
    'openai/gpt-4',
    'arena',
    {},
    960,
    'd45a74532fb24b37c53e0145027cd45bae47749de73660e29d2feef97e3037b1',
  ],
  [
    'pairwise-all',
    'openai/gpt-4',
    'judgelm',
    {},
    4800,
    '272f8384b2005dac4ffd0698f9daa1115caf62a13d3a52da4ba8a643ce1984e0',
  ],
];

describe.skipIf(!DIR)('the game ids of the MT-Bench plan', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = openMemoryStore();
    // the release as `arena import mtbench` reads it, without the votes (they take no part in a plan)
    const { votes: _v, judgments: _j, ...sources } = mtbenchSources(DIR!);
    await importFiles(store, sources);
    // the shipped prompts, as they are ensured in a database prepared for a run
    await ensureBuiltinPrompts(store, [...SCHEME_PROMPT_NAMES]);
  });

  it.each(RECORDED)(
    '%s with %s, prompts %s, settings %j: %i games, ids unchanged',
    async (mode, judge, promptSet, settings, count, hash) => {
      const { games } = await planRun({
        store,
        judge: judgeNamed(judge),
        mode,
        models: MODELS,
        ...(mode === 'pairwise-baseline' ? { baseline: 'gpt-3.5-turbo' } : {}),
        turns: [1, 2],
        ...(promptSet ? { promptSet } : {}),
        referenceSource: 'gpt-4',
        settings,
      });
      const ids = games.map((g) => g.id);
      expect(ids.length).toBe(count);
      expect(new Set(ids).size).toBe(count); // every game of the plan is a distinct game
      expect(ids.every((id) => /^[0-9a-f]{32}$/.test(id))).toBe(true);
      expect(digest(ids)).toBe(hash);
    },
  );
});
