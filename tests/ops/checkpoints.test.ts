// `arena checkpoints`: four checkpoints judged by two judges (two test servers with different verdict
// policies) against a baseline; the report is checked against `arena standings`, an independent path.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArena, tmpDir } from '../support/cli.ts';
import { startOpenAIServer, type OpenAIServer } from '../support/openai-server.ts';
import { answerFile, HAVE_MTBENCH, MTBENCH, readDb } from './helpers.ts';

const CKPTS = [
  { name: 'step-100', step: 100, model: 'llama-13b' },
  { name: 'step-200', step: 200, model: 'alpaca-13b' },
  { name: 'step-300', step: 300, model: 'vicuna-13b-v1.2' },
  { name: 'step-400', step: 400, model: 'claude-v1' },
];

interface Row {
  judge: string;
  checkpoint: string;
  step: number;
  model: string;
  winRate: { mean: number; lo: number | null; hi: number | null; n: number; note?: string };
  vsPrevious: { mean: number; lo: number | null; hi: number | null; n: number; against: string } | null;
  vsBest: { mean: number; lo: number | null; hi: number | null; n: number; against: string } | null;
  best: boolean;
}

describe.skipIf(!HAVE_MTBENCH)('arena checkpoints', () => {
  let longer: OpenAIServer;
  let hash: OpenAIServer;
  const dir = tmpDir('arena-ckpt-');
  beforeAll(async () => {
    [longer, hash] = await Promise.all([
      startOpenAIServer({ verdict: 'longer' }),
      startOpenAIServer({ verdict: 'hash' }),
    ]);
  });
  afterAll(async () => Promise.all([longer?.close(), hash?.close()]));

  const base = (extra: object) => ({
    db: 'ckpt.db',
    series: 'sft-1',
    questions: [join(MTBENCH, 'question.jsonl')],
    references: [join(MTBENCH, 'reference_answer', 'gpt-4.jsonl')],
    prompts: [join(MTBENCH, 'judge_prompts.jsonl')],
    baseline: { model: 'gpt-3.5-turbo', answers: answerFile('gpt-3.5-turbo') },
    resamples: 1000,
    ...extra,
  });

  it('reports win rate with intervals, paired differences, the best checkpoint per judge, and a chart', async () => {
    const cfg = join(dir, 'checkpoints.json');
    writeFileSync(
      cfg,
      JSON.stringify(
        base({
          questionIds: [81, 82, 83, 84, 85, 86, 87, 88, 89, 90],
          checkpoints: CKPTS.map((c) => ({ ...c, answers: answerFile(c.model) })),
          judges: [
            { id: 'openai/judge-longer', baseURL: longer.url, price: { input: 1, output: 2 } },
            { id: 'openai/judge-hash', baseURL: hash.url, price: { input: 1, output: 2 } },
          ],
          chart: 'out/winrate.svg',
        }),
        null,
        2,
      ),
    );
    const r = await runArena(['checkpoints', 'run', '--config', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      rows: Row[];
      best: Record<string, string>;
      chart: string;
      checkpoints: { generation: { kind: string } }[];
    };
    // 4 checkpoints x 10 questions x 2 turns x 2 orders per judge
    expect(longer.log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(160);
    expect(hash.log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(160);
    expect(report.rows).toHaveLength(8);
    expect(report.checkpoints.every((c) => c.generation.kind === 'imported')).toBe(true);

    for (const judge of ['openai/judge-longer', 'openai/judge-hash']) {
      const rows = report.rows.filter((x) => x.judge === judge);
      expect(rows.map((x) => x.step)).toEqual([100, 200, 300, 400]);
      // each question has both turns, so the mean of per-question scores is FastChat's adjusted win rate
      const st = JSON.parse(
        (
          await runArena([
            'standings',
            '--db',
            join(dir, 'ckpt.db'),
            '--judge',
            judge,
            '--mode',
            'pairwise-baseline',
            '--baseline',
            'gpt-3.5-turbo',
            '--json',
          ])
        ).stdout,
      ) as { model: string; winRateAdjusted: number }[];
      for (const row of rows) {
        expect(row.winRate.n).toBe(10);
        expect(row.winRate.mean).toBeCloseTo(st.find((s) => s.model === row.model)!.winRateAdjusted, 12);
        // 10 questions: too few for an interval, as `arena intervals` says (the one rule, MIN_QUESTIONS_FOR_INTERVALS)
        expect([row.winRate.lo, row.winRate.hi, row.winRate.note]).toEqual([
          null,
          null,
          '10 questions (fewer than 30): too few for a question-bootstrap interval',
        ]);
      }
      expect(rows[0]!.vsPrevious).toBeNull();
      for (let k = 1; k < 4; k++) {
        const d = rows[k]!.vsPrevious!;
        expect(d.against).toBe(rows[k - 1]!.checkpoint);
        expect(d.mean).toBeCloseTo(rows[k]!.winRate.mean - rows[k - 1]!.winRate.mean, 12);
        expect([d.lo, d.hi]).toEqual([null, null]);
        // best so far: the highest win rate among the earlier checkpoints
        const earlier = rows.slice(0, k);
        const bestEarlier = earlier.reduce((a, b) => (b.winRate.mean > a.winRate.mean ? b : a));
        expect(rows[k]!.vsBest!.against).toBe(bestEarlier.checkpoint);
      }
      // the highest win rate is the best, unless it is shared: then none is named
      const topRate = Math.max(...rows.map((x) => x.winRate.mean));
      const top = rows.filter((x) => x.winRate.mean === topRate).map((x) => x.checkpoint);
      expect(rows.filter((x) => x.best).map((x) => x.checkpoint)).toEqual(top.length === 1 ? top : []);
      expect(report.best[judge]).toBe(top.length === 1 ? top[0] : undefined);
    }
    // the longer-answer judge prefers claude-v1's long answers over llama-13b's
    const lj = report.rows.filter((x) => x.judge === 'openai/judge-longer');
    expect(lj[3]!.winRate.mean).toBeGreaterThan(lj[0]!.winRate.mean);

    expect(existsSync(report.chart)).toBe(true);
    const svg = readFileSync(report.chart, 'utf8');
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('openai/judge-longer');
    expect(svg).toContain('openai/judge-hash');

    // everything is stored: a rerun calls no judge
    const again = await runArena(['checkpoints', 'run', '--config', cfg]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/step-400/);
    expect(longer.log.filter((e) => e.path === '/v1/chat/completions')).toHaveLength(160);
  });

  it('generates answers through an OpenAI-compatible endpoint with per-category temperatures, recorded; resumes', async () => {
    const d = tmpDir('arena-ckpt-gen-');
    const cfg = join(d, 'checkpoints.json');
    // writing, roleplay, extraction, stem
    const questionIds = [81, 91, 131, 141];
    writeFileSync(
      cfg,
      JSON.stringify(
        base({
          questionIds,
          checkpoints: [
            { name: 'a', step: 1, endpoint: { baseURL: longer.url, model: 'ckpt-a' } },
            { name: 'b', step: 2, endpoint: { baseURL: longer.url, model: 'ckpt-b' } },
          ],
          judges: [{ id: 'openai/judge', baseURL: hash.url, price: { input: 1, output: 2 } }],
          generation: { maxTokens: 64 },
        }),
      ),
    );
    const gen = () => longer.log.filter((e) => e.model === 'ckpt-a' || e.model === 'ckpt-b');
    const before = gen().length;
    const r = await runArena(['checkpoints', 'run', '--config', cfg, '--json']);
    expect(r.code, r.stderr).toBe(0);
    // 2 checkpoints x 4 questions x 2 turns
    expect(gen().length - before).toBe(16);
    const db = join(d, 'ckpt.db');
    const rows = readDb(db, (x) =>
      x.prepare('select name, model, generation from checkpoints order by step').all(),
    ) as { name: string; model: string; generation: string }[];
    expect(rows.map((x) => x.model)).toEqual(['sft-1@a', 'sft-1@b']);
    expect(JSON.parse(rows[0]!.generation)).toEqual({
      kind: 'openai',
      baseURL: longer.url,
      model: 'ckpt-a',
      maxTokens: 64,
      temperatures: { extraction: 0, roleplay: 0.7, stem: 0.1, writing: 0.7 },
    });
    const answers = readDb(db, (x) =>
      x
        .prepare(
          "select question_id, answer_id, turns from answers where model = 'sft-1@a' order by question_id",
        )
        .all(),
    ) as { question_id: number; answer_id: string; turns: string }[];
    expect(answers.map((a) => [a.question_id, a.answer_id])).toEqual([
      [81, 'sft-1@a:t=0.7'],
      [91, 'sft-1@a:t=0.7'],
      [131, 'sft-1@a:t=0'],
      [141, 'sft-1@a:t=0.1'],
    ]);
    expect(answers.every((a) => JSON.parse(a.turns).length === 2)).toBe(true);
    const report = JSON.parse(r.stdout) as { rows: Row[] };
    expect(report.rows.map((x) => [x.checkpoint, x.winRate.n])).toEqual([
      ['a', 4],
      ['b', 4],
    ]);
    // resume: nothing is generated or judged again
    const judged = hash.log.length;
    const again = await runArena(['checkpoints', 'run', '--config', cfg]);
    expect(again.code, again.stderr).toBe(0);
    expect(gen().length - before).toBe(16);
    expect(hash.log.length).toBe(judged);
  });
});
