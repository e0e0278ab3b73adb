// `untilSettled` in a checkpoints config: MT-Bench answers as checkpoints, the OpenAI-compatible test server
// preferring the longer answer; each checkpoint stops once decided against the baseline.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { answerFile, games, HAVE_MTBENCH, MTBENCH } from './helpers.ts';

const QUESTIONS = Array.from({ length: 40 }, (_, k) => 81 + k);
const CKPTS = [
  { name: 'step-100', step: 100, model: 'llama-13b' },
  { name: 'step-200', step: 200, model: 'gpt-4' },
];

describe.skipIf(!HAVE_MTBENCH)('arena checkpoints run with untilSettled', { timeout: 180_000 }, () => {
  let srv: OpenAIServer;
  beforeAll(async () => {
    srv = await startOpenAIServer({ verdict: 'longer' });
  });
  afterAll(() => srv.close());

  it('stops each checkpoint once decided against the baseline, paying fewer calls than the full plan', async () => {
    const dir = tmpDir('arena-ckpt-settle-');
    const cfg = join(dir, 'checkpoints.json');
    const config = (untilSettled: unknown) => ({
      db: 'ckpt.db',
      series: 'sft-1',
      questions: [join(MTBENCH, 'question.jsonl')],
      references: [join(MTBENCH, 'reference_answer', 'gpt-4.jsonl')],
      prompts: [join(MTBENCH, 'judge_prompts.jsonl')],
      questionIds: QUESTIONS,
      turns: [1],
      baseline: { model: 'gpt-3.5-turbo', answers: answerFile('gpt-3.5-turbo') },
      checkpoints: CKPTS.map((c) => ({ ...c, answers: answerFile(c.model) })),
      judges: [{ id: 'openai/judge', baseURL: srv.url, price: { input: 1, output: 2 } }],
      untilSettled,
    });
    writeFileSync(cfg, JSON.stringify(config({ round: 0 }), null, 2));
    const bad = await runArena(['checkpoints', 'run', '--config', cfg]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`${cfg}:\\d+: field "untilSettled\\.round": Too small`));

    writeFileSync(cfg, JSON.stringify(config({ round: 8 }), null, 2));
    const r = await runArena(['checkpoints', 'run', '--config', cfg]);
    expect(r.code, r.stderr).toBe(0);
    const paid = srv.log.filter((e) => e.path === '/v1/chat/completions' && e.status === 200).length;
    const full = CKPTS.length * QUESTIONS.length * 2;
    // llama-13b stops early (clearly worse); gpt-4 plays its whole plan (its interval at one look's level,
    // 99% over 5 looks, still reaches below 50%)
    expect(paid).toBeLessThan(full);
    expect(games(join(dir, 'ckpt.db'))).toHaveLength(paid);
    expect(r.stderr + r.stdout).toMatch(
      new RegExp(
        `until settled: exhausted after \\d+ round\\(s\\) \\(llama-13b worse, gpt-4 exhausted\\); ${paid} of the full plan's ${full}`,
      ),
    );
  });
});
