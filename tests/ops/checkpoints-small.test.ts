// Honest small numbers in `arena checkpoints report`: no interval narrower than the exact Clopper–Pearson one
// (tests/reference/checkpoint_exact.py), the exact interval where every question scored alike, no "best" on a tie.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, REPO_ROOT, tmpDir } from '../support/cli.ts';
import { python } from '../support/python.ts';
import { answerFile, HAVE_MTBENCH, MTBENCH } from './helpers.ts';

interface Shown {
  mean: number;
  lo: number | null;
  hi: number | null;
  n: number;
  note?: string;
}
interface Report {
  rows: {
    judge: string;
    checkpoint: string;
    model: string;
    winRate: Shown;
    vsPrevious: (Shown & { against: string }) | null;
    best: boolean;
  }[];
  best: Record<string, string>;
  tiedBest: Record<string, string[]>;
}
interface Exact {
  rows: { model: string; n: number; mean: number; lo: number; hi: number }[];
  diffs: { model: string; against: string; n: number; mean: number; lo: number; hi: number }[];
}

const own = (f: string) => join(REPO_ROOT, 'questions', f);

/** A checkpoints config in `dir` and its report, JSON and text, after `arena checkpoints run`. */
async function reportOf(dir: string, config: object) {
  const file = join(dir, 'checkpoints.json');
  writeFileSync(file, JSON.stringify({ db: 'c.db', series: 'small', ...config }));
  const text = await arenaOk(['checkpoints', 'run', '--config', file]);
  const json = await arenaJson<Report>(['checkpoints', 'report', '--config', file, '--json']);
  return { text, json, db: join(dir, 'c.db') };
}

/** The exact intervals of each checkpoint (and each difference with the previous one) under `judge`. */
const exactOf = (db: string, judge: string, baseline: string, checkpoints: string[]) =>
  python<Exact>('checkpoint_exact.py', { db, judge, baseline, checkpoints, level: 0.95 });

/** Shown is never narrower than exact: no interval at all, or one that holds it. */
function notNarrower(
  shown: Shown,
  exact: { lo: number; hi: number; mean: number; n: number },
  where: string,
) {
  expect(shown.n, where).toBe(exact.n);
  expect(shown.mean, where).toBeCloseTo(exact.mean, 12);
  if (shown.lo === null || shown.hi === null) return void expect(shown.note, where).toMatch(/fewer than 30/);
  expect(shown.lo, where).toBeLessThanOrEqual(exact.lo + 1e-9);
  expect(shown.hi, where).toBeGreaterThanOrEqual(exact.hi - 1e-9);
}

describe('arena checkpoints report on few questions', () => {
  it('the README demo on 5 questions: no interval narrower than the exact one, no best on a tie', async () => {
    const dir = tmpDir('arena-ckpt-small-');
    const ckpts = [
      { name: 'step-1000', step: 1000, model: 'arena-echo', answers: own('answers/arena-echo.jsonl') },
      { name: 'step-2000', step: 2000, model: 'arena-swift', answers: own('answers/arena-swift.jsonl') },
      { name: 'step-3000', step: 3000, model: 'arena-drift', answers: own('answers/arena-drift.jsonl') },
    ];
    const { text, json, db } = await reportOf(dir, {
      questions: [own('arena.jsonl')],
      prompts: [own('judge_prompts.jsonl')],
      promptSet: 'arena',
      questionIds: [1001, 1002, 1003, 1004, 1005],
      baseline: { model: 'arena-sage', answers: own('answers/arena-sage.jsonl') },
      checkpoints: ckpts,
      judges: [{ id: 'mock/longer' }, { id: 'mock/tie' }],
      chart: 'winrate.svg',
    });
    // the chart says its points have no interval: a line alone is not a sure trend
    expect(readFileSync(join(dir, 'winrate.svg'), 'utf8')).toContain(
      '>no 95% intervals: 5 questions (fewer than 30)<',
    );
    for (const judge of ['mock/longer', 'mock/tie']) {
      const exact = exactOf(
        db,
        judge,
        'arena-sage',
        ckpts.map((c) => c.model),
      );
      const rows = json.rows.filter((r) => r.judge === judge);
      rows.forEach((r, k) => {
        notNarrower(r.winRate, exact.rows[k]!, `${judge} ${r.checkpoint}`);
        if (k) notNarrower(r.vsPrevious!, exact.diffs[k - 1]!, `${judge} ${r.checkpoint} vs previous`);
        // the exact interval on 5 questions is wide: a point would claim what 5 questions cannot show
        expect(exact.rows[k]!.hi - exact.rows[k]!.lo, judge).toBeGreaterThan(0.4);
      });
    }
    // mock/tie ties everything: every checkpoint at 0.5, so no best
    expect(json.best['mock/tie']).toBeUndefined();
    expect(json.tiedBest['mock/tie']).toEqual(['step-1000', 'step-2000', 'step-3000']);
    expect(json.rows.filter((r) => r.judge === 'mock/tie').every((r) => !r.best)).toBe(true);
    expect(text).toContain('mock/tie: none (tied: step-1000, step-2000, step-3000)');
    expect(text).toMatch(/0\.500 \(no interval\)/);
    expect(text).not.toMatch(/\[\+?[01]\.000, \+?[01]\.000\]/);
    expect(text).toContain(
      'no intervals: 5 questions (fewer than 30): too few for a question-bootstrap interval',
    );
  });

  it.skipIf(!HAVE_MTBENCH)(
    'on 40 questions every one scored alike: the exact interval, not a point, equal to the reference',
    async () => {
      const dir = tmpDir('arena-ckpt-alike-');
      const models = ['alpaca-13b', 'vicuna-13b-v1.2'];
      // writing, roleplay, extraction, stem: no reference answers needed
      const questionIds = [
        ...Array.from({ length: 20 }, (_, k) => 81 + k),
        ...Array.from({ length: 20 }, (_, k) => 131 + k),
      ];
      const { json, db } = await reportOf(dir, {
        questions: [join(MTBENCH, 'question.jsonl')],
        prompts: [join(MTBENCH, 'judge_prompts.jsonl')],
        questionIds,
        turns: [1],
        baseline: { model: 'llama-13b', answers: answerFile('llama-13b') },
        checkpoints: models.map((m, k) => ({
          name: `step-${k + 1}`,
          step: k + 1,
          model: m,
          answers: answerFile(m),
        })),
        // always "A": the two orders disagree on every match, a tie each
        judges: [{ id: 'mock/a' }],
      });
      const exact = exactOf(db, 'mock/a', 'llama-13b', models);
      const rows = json.rows;
      expect(rows.map((r) => [r.winRate.mean, r.winRate.n])).toEqual([
        [0.5, 40],
        [0.5, 40],
      ]);
      rows.forEach((r, k) => {
        expect(r.winRate.lo, r.checkpoint).toBeCloseTo(exact.rows[k]!.lo, 9);
        expect(r.winRate.hi, r.checkpoint).toBeCloseTo(exact.rows[k]!.hi, 9);
        expect(r.winRate.hi! - r.winRate.lo!).toBeGreaterThan(0.3);
      });
      expect(rows[1]!.vsPrevious!.lo).toBeCloseTo(exact.diffs[0]!.lo, 9);
      expect(rows[1]!.vsPrevious!.hi).toBeCloseTo(exact.diffs[0]!.hi, 9);
      expect(json.tiedBest['mock/a']).toEqual(['step-1', 'step-2']);
    },
  );
});
