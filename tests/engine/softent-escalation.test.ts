// Escalation on stored SoftEnt-Cali above `--softent-above`, and the review queue's mean SoftEnt-Cali, with a
// stand-in judge reporting known scores (the real computation: tests/judges/llama-cpp).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCalibrated, reviewQueue } from '../../src/engine/calibrated.ts';
import { runEscalation } from '../../src/engine/escalate.ts';
import { ensureRunPrompts } from '../../src/importers/builtin.ts';
import { importFiles } from '../../src/importers/import.ts';
import type { JudgeProvider, JudgeRequest } from '../../src/judges/judge.ts';
import { mockJudge } from '../../src/judges/mock.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { judgeSpecsOf, type RunArgs } from '../../src/cli/commands/run-args.ts';
import { tmpDir } from '../support/cli.ts';

const MODELS = ['m1', 'm2', 'm3'];
const QUESTIONS = [7001, 7002, 7003, 7004];
/** the stand-in judge's SoftEnt-Cali by question: the odd questions lie outside its "fine-tuning" */
const SOFTENT: Record<number, number> = { 7001: 1.4, 7002: 0.2, 7003: 0.9, 7004: -0.3 };

async function league(): Promise<SqliteStore> {
  const dir = tmpDir('arena-softent-');
  const q = join(dir, 'questions.jsonl');
  writeFileSync(
    q,
    QUESTIONS.map((id) =>
      JSON.stringify({ question_id: id, category: 'writing', turns: [`Topic ${id}.`] }),
    ).join('\n'),
  );
  const answers = MODELS.map((m, i) => {
    const f = join(dir, `${m}.jsonl`);
    writeFileSync(
      f,
      QUESTIONS.map((id) =>
        JSON.stringify({
          question_id: id,
          model_id: m,
          choices: [{ index: 0, turns: [`${m} ${'w '.repeat(i + 1)}`] }],
        }),
      ).join('\n'),
    );
    return f;
  });
  const store = openSqliteStore(join(dir, 'arena.db'));
  await importFiles(store, { questions: [q], answers });
  await ensureRunPrompts(store, ['pairwise-all'], 'arena');
  return store;
}

const questionOf = (user: string) => QUESTIONS.find((id) => user.includes(`Topic ${id}.`))!;

/** a confident, consistent local judge (always the longer answer) that reports SoftEnt-Cali per question */
function localJudge(reply?: (req: JudgeRequest) => string): JudgeProvider {
  const inner = mockJudge('longer');
  return {
    id: 'local/stand-in',
    async complete(req) {
      const r = await inner.complete(req);
      const text = reply ? reply(req) : r.text;
      const probs = r.text.includes('[[A]]') ? { A: 0.95, B: 0.03, C: 0.02 } : { A: 0.03, B: 0.95, C: 0.02 };
      return { ...r, text, verdictProbs: probs, reliability: SOFTENT[questionOf(req.user)]! };
    },
  };
}

describe('SoftEnt-Cali in escalation and the review queue', { timeout: 120_000 }, () => {
  it('escalates exactly the matches with a game above --softent-above, and none without it', async () => {
    const store = await league();
    try {
      const common = {
        store,
        mode: 'pairwise-all' as const,
        models: MODELS,
        turns: [1],
        promptSet: 'arena',
        concurrency: 2,
        flushMs: 0,
      };
      const second = mockJudge('a');
      const plain = await runEscalation({ ...common, local: localJudge(), second, below: 0.6 });
      expect(plain.matches).toBe(3 * QUESTIONS.length);
      expect(plain.escalated).toBe(0);

      const r = await runEscalation({
        ...common,
        local: localJudge(),
        second,
        below: 0.6,
        softentAbove: 0.5,
      });
      const above = QUESTIONS.filter((id) => SOFTENT[id]! > 0.5);
      expect(r.reasons).toEqual({ unreliable: 3 * above.length });
      expect(new Set(r.escalatedKeys.map((k) => Number(k.split('\u0000')[0])))).toEqual(new Set(above));
      // the local judge was not paid again; the second judge played both orders of each escalated match
      expect(r.local.played).toBe(0);
      expect(r.second.played).toBe(2 * 3 * above.length);
    } finally {
      await store.close();
    }
  });

  it('the review queue carries each match’s mean SoftEnt-Cali', async () => {
    const store = await league();
    try {
      const scores = (req: JudgeRequest) => {
        const first = req.user.indexOf("[The Start of Assistant 1's Answer]\nm3") >= 0 ? 8 : 5;
        return `Evaluation evidence: short.\nScore of the Assistant 1: ${first}\nScore of the Assistant 2: 6`;
      };
      const run = await runCalibrated({ store, judge: localJudge(scores), models: MODELS, samples: 2 });
      expect(run.failed).toBe(0);
      const queue = await reviewQueue(store, 'local/stand-in', { beta: 1 });
      expect(queue).toHaveLength(3 * QUESTIONS.length);
      for (const row of queue) expect(row.softEntCali).toBeCloseTo(SOFTENT[row.questionId]!, 12);
    } finally {
      await store.close();
    }
  });

  it('--softent-above needs --escalate-to and a judge asked for SoftEnt-Cali', () => {
    const args = (a: Record<string, unknown>) => ({ judge: 'llama-cpp/j.gguf', ...a }) as unknown as RunArgs;
    expect(() => judgeSpecsOf(args({ 'softent-above': '0.5' }))).toThrow(/--escalate-to/);
    expect(() => judgeSpecsOf(args({ 'softent-above': '0.5', 'escalate-to': 'openai/x' }))).toThrow(
      /--reliability softent-cali --base-gguf/,
    );
    expect(
      judgeSpecsOf(
        args({
          'softent-above': '0.5',
          'escalate-to': 'openai/x',
          reliability: 'softent-cali',
          'base-gguf': 'b.gguf',
        }),
      ),
    ).toEqual(['llama-cpp/j.gguf?reliability=softent-cali&base=b.gguf']);
  });
});
