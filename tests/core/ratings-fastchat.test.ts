// `arena ratings` against FastChat's compute_bt and compute_elo in Python (tests/reference/*.py), on the release's
// expert votes and GPT-4 pair outcomes read straight from its CSV files, not from our database.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { arenaJson, runArena, tmpDir } from '../support/cli.ts';
import { MTBENCH_DIR, noMtbench, readCsv, skipWhy } from '../support/materials.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';
import { python, pythonSkip } from '../support/python.ts';

const DIR = MTBENCH_DIR;
const skipReason = skipWhy('ratings-fastchat', noMtbench('the real MT-Bench release'), pythonSkip);

type Battle = [modelA: string, modelB: string, winner: string];

/** The release's vote CSV (question_id,model_a,model_b,winner,judge,turn), in file order. No quoted fields occur. */
const readVotes = (file: string, keep: (row: Record<string, string>) => boolean): Battle[] =>
  readCsv(file)
    .filter(keep)
    .map((r) => [r.model_a!, r.model_b!, r.winner!]);

/** One of FastChat's rating methods (tests/reference/compute_bt.py, compute_elo.py) on `battles`. */
const fastchat = <T = Record<string, number>>(script: string, battles: Battle[]): T =>
  python<T>(script, battles, 120_000);

type Ratings = { model: string; rating: number }[];
type Reference = Record<string, number>;

/**
 * compute_bt stops on scipy's default ftol, 2e-4 to 6e-3 points short of the optimum; we solve fully. So ours equals
 * the converged fit (1e-6) and is within compute_bt's own distance from it (and 1e-2) of its printed numbers.
 */
function expectBt(ours: Ratings, ref: { fastchat: Reference; converged: Reference }) {
  expectRatings(ours, ref.converged, 1e-6);
  expectRatings(ours, ref.fastchat, 1e-2);
  let worst = 0;
  for (const { model, rating } of ours) {
    const stop = Math.abs(ref.fastchat[model]! - ref.converged[model]!);
    worst = Math.max(worst, Math.abs(rating - ref.fastchat[model]!));
    expect(Math.abs(rating - ref.fastchat[model]!)).toBeLessThanOrEqual(stop + 1e-6);
  }
  console.info(`[ratings-fastchat] largest gap to compute_bt: ${worst.toExponential(2)} rating points`);
}

function expectRatings(ours: Ratings, reference: Reference, tolerance: number) {
  expect(ours.map((r) => r.model).sort()).toEqual(Object.keys(reference).sort());
  for (const { model, rating } of ours)
    expect(
      Math.abs(rating - reference[model]!),
      `${model}: ours ${rating}, FastChat ${reference[model]}`,
    ).toBeLessThanOrEqual(tolerance);
  // and the order is FastChat's (sorted by rating, descending)
  expect(ours.map((r) => r.model)).toEqual(
    Object.entries(reference)
      .sort((a, b) => b[1] - a[1])
      .map(([m]) => m),
  );
}

describe.skipIf(!!skipReason)("ratings equal FastChat's compute_bt / compute_elo (protocol §7)", () => {
  const dir = DIR ?? '';
  const db = join(tmpDir('arena-ratings-'), 'release.db');
  let human: Battle[] = [];
  let gpt4: Battle[] = [];

  beforeAll(async () => {
    // experts only: authors are not the "human" judge (protocol §1.7, §5)
    human = readVotes(join(dir, 'human_judgments', 'mt_bench_human.csv'), (r) =>
      r.judge!.startsWith('expert'),
    );
    gpt4 = readVotes(join(dir, 'human_judgments', 'mt_bench_gpt4_pair.csv'), (r) => r.judge === 'gpt4_pair');
    await mtbenchReleaseDb(db, dir); // `arena import mtbench --dir`, once per run
  }, 180_000);

  it('battle counts: 2,668 expert votes and 2,400 GPT-4 pair outcomes', () => {
    expect(human.length).toBe(1343 + 1325); // protocol §5.1: S1 totals of G4-pair vs human per turn
    expect(gpt4.length).toBe(2400); // 80 questions × 15 pairs × 2 turns
  });

  it('Bradley–Terry on the expert votes equals compute_bt (to its stopping error)', async () => {
    expectBt(
      await arenaJson(['ratings', '--judge', 'human', '--method', 'bt', '--db', db]),
      fastchat('compute_bt.py', human),
    );
  });

  it('Bradley–Terry on the GPT-4 pair outcomes equals compute_bt (to its stopping error)', async () => {
    expectBt(
      await arenaJson(['ratings', '--judge', 'gpt-4', '--method', 'bt', '--db', db]),
      fastchat('compute_bt.py', gpt4),
    );
  });

  it('online Elo (K=4, file order) on the expert votes equals compute_elo', async () => {
    expectRatings(
      await arenaJson(['ratings', '--judge', 'human', '--method', 'elo', '--db', db]),
      fastchat('compute_elo.py', human),
      1e-9,
    );
  });

  it('online Elo on the GPT-4 pair outcomes equals compute_elo', async () => {
    expectRatings(
      await arenaJson(['ratings', '--judge', 'gpt-4', '--method', 'elo', '--db', db]),
      fastchat('compute_elo.py', gpt4),
      1e-9,
    );
  });

  it('--inconsistent drop is FastChat\'s compute_mle_elo convention; by default a "tie (inconsistent)" counts as a tie', async () => {
    const gpt4Rows = readCsv(join(dir, 'human_judgments', 'mt_bench_gpt4_pair.csv')).filter(
      (r) => r.judge === 'gpt4_pair',
    );
    expect(gpt4Rows.filter((r) => r.winner === 'tie (inconsistent)').length).toBeGreaterThan(0);
    const ref = fastchat('compute_mle_elo.py', gpt4);
    const dropped = await arenaJson<Ratings>([
      'ratings',
      '--judge',
      'gpt-4',
      '--inconsistent',
      'drop',
      '--db',
      db,
    ]);
    expectRatings(dropped, ref, 1e-4);
    const byDefault = await arenaJson<Ratings>(['ratings', '--judge', 'gpt-4', '--db', db]);
    const gpt4Of = (r: Ratings) => r.find((x) => x.model === 'gpt-4')!.rating.toFixed(1);
    expect([gpt4Of(byDefault), gpt4Of(dropped)]).toEqual(['1314.5', '1407.5']);
    // the expert votes have no inconsistent ties: the option changes nothing there
    expect(await arenaJson(['ratings', '--judge', 'human', '--inconsistent', 'drop', '--db', db])).toEqual(
      await arenaJson(['ratings', '--judge', 'human', '--db', db]),
    );
    const bad = await runArena(['ratings', '--judge', 'gpt-4', '--inconsistent', 'skip', '--db', db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--inconsistent must be one of tie, drop; got "skip"');
  });

  it('per turn: Bradley–Terry on turn-2 expert votes equals compute_bt (to its stopping error)', async () => {
    const turn2 = readVotes(
      join(dir, 'human_judgments', 'mt_bench_human.csv'),
      (r) => r.judge!.startsWith('expert') && r.turn === '2',
    );
    expect(turn2.length).toBe(1325);
    expectBt(
      await arenaJson(['ratings', '--judge', 'human', '--method', 'bt', '--turn', '2', '--db', db]),
      fastchat('compute_bt.py', turn2),
    );
  });
});
