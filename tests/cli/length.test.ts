// `arena length` where the effect cannot be estimated (every match a tie, or one question: no clustered SE) says so
// with the reason, instead of an effect of 0 with SE 0 and 50%-50% intervals (or a huge SE).
import type { LengthControlledRow } from '../../src/core/stats/length.ts';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Game, Verdict } from '../../src/core/types.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { arenaJson, arenaOk, tmpDir } from '../support/cli.ts';

const MODELS = ['m-a', 'm-b', 'm-c', 'm-d'];

/** Both orders of every pair of `models` on questions 1..`questions`, each judged `verdict`; answer lengths differ. */
async function database(file: string, questions: number, models: string[], verdict: Verdict): Promise<void> {
  const store = openSqliteStore(file);
  const qs = Array.from({ length: questions }, (_, i) => i + 1);
  const games: Game[] = [];
  for (const q of qs)
    for (let a = 0; a < models.length; a++)
      for (let b = a + 1; b < models.length; b++)
        for (const order of ['AB', 'BA'] as const)
          games.push({
            match: { questionId: q, category: 'writing', turn: 1, model1: models[a]!, model2: models[b]! },
            order,
            promptName: 'pair-v2',
            systemPrompt: 'judge',
            userPrompt: `${q}/${a}/${b}/${order}`,
            id: `${q}-${a}-${b}-${order}`,
            judge: 'openai/judge',
            judgeSettings: { temperature: 0, maxTokens: 64 },
            reply: '[[C]]',
            verdict,
            parser: 'last@1',
            tokensIn: 10,
            tokensOut: 5,
            cost: null,
            createdAt: 1,
            runId: null,
            source: 'run',
          });
  await store.importBundle({
    questions: {
      source: 'q',
      items: qs.map((id) => ({ id, category: 'writing', turns: [`question ${id}`] })),
    },
    answers: models.map((model, k) => ({
      source: model,
      items: qs.map((questionId) => ({ model, questionId, turns: ['x'.repeat(100 * (k + 1) + questionId)] })),
    })),
    games,
  });
  await store.close();
}

interface LengthJson {
  lengthEffect: unknown;
  notEstimable: { reason: string } | null;
  models: Pick<LengthControlledRow, 'model' | 'n' | 'winRate' | 'lcWinRate' | 'lo' | 'hi'>[];
}

describe('arena length when the length effect is not estimable', () => {
  const dir = tmpDir('arena-length-ne-');
  const ties = join(dir, 'ties.db');
  const one = join(dir, 'one.db');
  beforeAll(async () => {
    await database(ties, 8, MODELS, 'tie'); // 8 questions x 6 pairs: 48 matches, all ties
    await database(one, 1, MODELS.slice(0, 2), 'model_1'); // one decisive match
  });

  it('48 all-tie matches: no decisive outcomes, said on the CLI and in the JSON; no length-controlled rates', async () => {
    const r = await arenaJson<LengthJson>(['length', '--db', ties, '--rounds', '20']);
    expect(r.lengthEffect).toBeNull();
    expect(r.notEstimable?.reason).toMatch(/no decisive outcomes.*48 matches.*ties/);
    expect(r.models.map((m) => [m.n, m.winRate])).toEqual(MODELS.map(() => [24, 0.5]));
    for (const m of r.models) expect([m.lcWinRate, m.lo, m.hi]).toEqual([null, null, null]);
    const text = await arenaOk(['length', '--db', ties, '--rounds', '20']);
    // said plainly, once: no share "0 of 0", no method footnote or intervals for a model that was not fitted
    expect(text).toMatch(
      /^openai\/judge: no decisive verdicts: all 48 matches are ties, so there is nothing to estimate the length effect or length-controlled win rates from\n/,
    );
    expect(text).not.toMatch(/0 of 0|decisive verdicts \(|length effect:|one joint model|Intervals:|SE \d/);
    // the raw win rates stay, without the columns of the fit
    expect(text).toMatch(/model\s+matches\s+win rate\s+mean length diff/);
    expect(text).not.toMatch(/95% (lo|hi)|length-controlled:/);
  });

  it('one match: too little data, said with the reason; no SE', async () => {
    const r = await arenaJson<LengthJson>(['length', '--db', one, '--rounds', '20']);
    expect(r.lengthEffect).toBeNull();
    expect(r.notEstimable?.reason).toMatch(/too little data.*1 question/);
    for (const m of r.models) expect([m.lcWinRate, m.lo, m.hi]).toEqual([null, null, null]);
    const text = await arenaOk(['length', '--db', one, '--rounds', '20']);
    expect(text).toMatch(/^openai\/judge: 0 of 1 decisive verdicts \(0.0%\) went to the longer answer/);
    expect(text).toMatch(/length effect: not estimable: too little data/);
    expect(text).not.toMatch(/SE \d|one joint model|Intervals:|length-controlled/);
  });
});
