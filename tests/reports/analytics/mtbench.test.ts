// Judge-quality analytics on the real MT-Bench release through the CLI. Expected figures are counted
// here directly from the release's files, independently of the importers and of src/core.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, arenaOk, tmpDir } from '../../support/cli.ts';
import { releaseJudgmentsDb } from '../../support/mtbench-release.ts';
import { answerLengths, MTBENCH_MODELS, MTBENCH_GPT4_ORDER } from '../../support/materials.ts';

const MT = process.env.MTBENCH_DIR;
const PHI = 'format_samples/phi-3_vs_phi-3-dpo/gpt-4_pair.jsonl';

describe.skipIf(!MT)('analytics on the MT-Bench release (MTBENCH_DIR)', () => {
  const db = join(tmpDir('arena-analytics-'), 'arena.db');
  beforeAll(async () => {
    // the release with PHI imported, once per run
    await releaseJudgmentsDb(db, join(MT!, PHI));
  }, 120_000);

  it('arena bias: per-order win rates and conflicts of GPT-4 on phi-3 vs phi-3-dpo equal the counts in the FastChat judgment file', async () => {
    const rows = readFileSync(join(MT!, PHI), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { g1_winner: string; g2_winner: string });
    // g1: model_1 shown as A; g2: model_1 shown as B (FastChat maps both winners back to model_1/model_2)
    const g1 = rows.filter((r) => r.g1_winner !== 'error');
    const g2 = rows.filter((r) => r.g2_winner !== 'error');
    const both = rows.filter((r) => r.g1_winner !== 'error' && r.g2_winner !== 'error');
    const r = await arenaJson<{
      games: {
        pair: string;
        winFirst: number;
        winSecond: number;
        matches: number;
        conflict: number;
        favoursFirst: number;
        favoursSecond: number;
      }[];
      recorded: unknown[];
    }>(['bias', '--db', db, '--judge', 'gpt-4']);
    const phi = r.games.find((x) => x.pair === 'phi-3 vs phi-3-dpo')!;
    expect(phi.winFirst).toBeCloseTo(g1.filter((x) => x.g1_winner === 'model_1').length / g1.length, 12);
    expect(phi.winSecond).toBeCloseTo(g2.filter((x) => x.g2_winner === 'model_1').length / g2.length, 12);
    expect(phi.matches).toBe(both.length);
    expect(phi.conflict).toBeCloseTo(
      both.filter((x) => x.g1_winner !== x.g2_winner).length / both.length,
      12,
    );
    expect(phi.favoursFirst).toBe(
      both.filter((x) => x.g1_winner === 'model_1' && x.g2_winner === 'model_2').length,
    );
    expect(phi.favoursSecond).toBe(
      both.filter((x) => x.g1_winner === 'model_2' && x.g2_winner === 'model_1').length,
    );
    expect(phi.winFirst).toBeGreaterThan(phi.winSecond); // GPT-4 favours the answer shown first here
  });

  it('arena bias on a run of our own judge (mock/a always picks the answer shown first): 100% / 0%, every match a conflict', async () => {
    await arenaOk(['run', '--db', db, '--judge', 'mock/a', '--models', 'gpt-4,llama-13b', '--turns', '1']);
    const r = await arenaJson<{
      games: {
        pair: string;
        games: number;
        winFirst: number;
        winSecond: number;
        positionA: number;
        matches: number;
        conflict: number;
        favoursFirst: number;
      }[];
      recorded: unknown[];
    }>(['bias', '--db', db, '--judge', 'mock/a']);
    expect(r.recorded).toEqual([]);
    expect(r.games).toEqual([
      expect.objectContaining({
        pair: 'gpt-4 vs llama-13b',
        games: 160,
        winFirst: 1,
        winSecond: 0,
        positionA: 1,
        matches: 80,
        conflict: 1,
        favoursFirst: 80,
      }),
    ]);
  });

  it('arena bias: the release\'s conflict rate is the share of "tie (inconsistent)" rows in mt_bench_gpt4_pair.csv', async () => {
    const lines = readFileSync(join(MT!, 'human_judgments', 'mt_bench_gpt4_pair.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1);
    const inconsistent = lines.filter((l) => l.includes(',tie (inconsistent),')).length;
    const r = await arenaJson<{
      recorded: {
        pair: string;
        turn: number | string;
        matches: number;
        inconsistent: number;
        conflict: number;
      }[];
    }>(['bias', '--db', db, '--judge', 'gpt-4', '--by', '']);
    expect(r.recorded).toEqual([
      expect.objectContaining({
        pair: '*',
        matches: lines.length,
        inconsistent,
        conflict: inconsistent / lines.length,
      }),
    ]);
    const byTurn = await arenaJson<{ recorded: { turn: number; matches: number; inconsistent: number }[] }>([
      'bias',
      '--db',
      db,
      '--judge',
      'gpt-4',
      '--by',
      'turn',
    ]);
    for (const t of [1, 2]) {
      const rowsT = lines.filter((l) => l.endsWith(`,${t}`));
      expect(byTurn.recorded.find((x) => x.turn === t)).toMatchObject({
        matches: rowsT.length,
        inconsistent: rowsT.filter((l) => l.includes(',tie (inconsistent),')).length,
      });
    }
    const text = await arenaOk(['bias', '--db', db, '--judge', 'gpt-4', '--by', '']);
    expect(text).toContain(`${((100 * inconsistent) / lines.length).toFixed(1)}%`);
  });

  it('arena kappa: S1/S2 ratios equal arena agreement, kappa lies inside its interval, per turn and category', async () => {
    const k = await arenaJson<
      {
        turn: number;
        category: string;
        setup: string;
        ratio: number;
        kappa: number;
        lo: number;
        hi: number;
        level: number;
      }[]
    >(['kappa', '--db', db, '--judges', 'gpt-4,human', '--category', '--rounds', '200']);
    const a = await arenaJson<{ turn: number; setup: string; ratio: number }[]>([
      'agreement',
      '--db',
      db,
      '--judges',
      'gpt-4,human',
    ]);
    for (const row of a)
      expect(
        k.find((x) => x.turn === row.turn && x.setup === row.setup && x.category === 'all')!.ratio,
      ).toBeCloseTo(row.ratio, 12);
    const cats = new Set(k.map((x) => x.category));
    expect(cats.size).toBe(9); // all + 8 MT-Bench categories
    for (const row of k.filter((x) => x.category === 'all')) {
      expect(row.kappa).toBeGreaterThan(0.3);
      expect(row.lo).toBeLessThan(row.kappa);
      expect(row.hi).toBeGreaterThan(row.kappa);
      expect(row.level).toBe(0.95);
    }
  });

  it('arena intervals: question-level intervals on the expert votes, wider than game-level ones, rank from the intervals', async () => {
    const q = await arenaJson<{
      ratings: {
        unit: string;
        level: number;
        rows: { model: string; rating: number; lo: number; hi: number; rank: number }[];
      };
      winRates: { model: string; winRate: number; lo: number; hi: number }[];
    }>(['intervals', '--db', db, '--judge', 'human', '--rounds', '300']);
    const g = await arenaJson<typeof q>([
      'intervals',
      '--db',
      db,
      '--judge',
      'human',
      '--rounds',
      '300',
      '--unit',
      'game',
    ]);
    expect(q.ratings).toMatchObject({ unit: 'question', level: 0.95 });
    expect(q.ratings.rows.map((r) => r.model)).toEqual(MTBENCH_GPT4_ORDER);
    const mean = (x: typeof q) =>
      x.ratings.rows.reduce((s, r) => s + (r.hi - r.lo), 0) / x.ratings.rows.length;
    expect(mean(q)).toBeGreaterThan(mean(g));
    for (const r of q.ratings.rows) {
      expect(r.lo).toBeLessThan(r.rating);
      expect(r.hi).toBeGreaterThan(r.rating);
      expect(r.rank).toBe(1 + q.ratings.rows.filter((o) => o.lo > r.hi).length);
    }
    for (const w of q.winRates) expect(w.lo <= w.winRate && w.winRate <= w.hi).toBe(true);
  });

  it('arena length: the share of decisive GPT-4 verdicts that went to the longer answer equals a count from the release files', async () => {
    const len = answerLengths(MT!, MTBENCH_MODELS);
    let decisive = 0;
    let longer = 0;
    for (const l of readFileSync(join(MT!, 'human_judgments', 'mt_bench_gpt4_pair.csv'), 'utf8')
      .trim()
      .split('\n')
      .slice(1)) {
      const [q, a, b, winner, , turn] = l.split(',');
      if (winner !== 'model_a' && winner !== 'model_b') continue;
      const la = len.get(`${a}/${q}`)![Number(turn) - 1]!;
      const lb = len.get(`${b}/${q}`)![Number(turn) - 1]!;
      if (la === lb) continue;
      decisive++;
      if ((winner === 'model_a') === la > lb) longer++;
    }
    const r = await arenaJson<{
      longer: { decisive: number; toLonger: number };
      models: { model: string; winRate: number; lcWinRate: number }[];
    }>(['length', '--db', db, '--judge', 'gpt-4']);
    expect(r.longer).toMatchObject({ decisive, toLonger: longer });
    expect(longer / decisive).toBeGreaterThan(0.6);
    // alpaca-13b writes shorter answers than its opponents: controlling for length raises its win rate
    const alpaca = r.models.find((m) => m.model === 'alpaca-13b')!;
    expect(alpaca.lcWinRate).toBeGreaterThan(alpaca.winRate);
  });
});
