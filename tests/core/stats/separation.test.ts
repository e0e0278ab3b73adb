// Issue #13, defects 2 and 3: separated data and sparse models in Bradley–Terry; estimable set and ratings against
// tests/reference/bt_separation.py (scipy), counts against what the test draws itself.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { battleTable, type ClusteredBattle } from '../../../src/core/stats/battle-table.ts';
import { bootstrapBradleyTerry, bootstrapRatingSamples } from '../../../src/core/stats/rating-bootstrap.ts';
import { drawClusterCounts } from '../../../src/core/stats/bootstrap.ts';
import { seededRng } from '../../../src/core/stats/random.ts';
import { openSqliteStore } from '../../../src/storage/sqlite.ts';
import { createApp } from '../../../src/web/app.ts';
import { arenaJson, arenaOk, tmpDir } from '../../support/cli.ts';
import { python, pythonSkip } from '../../support/python.ts';
import { importVotesWithContext } from '../../support/votes.ts';

/** Three models that split their games over 20 questions (both turns), deterministic. */
function league(): ClusteredBattle[] {
  const rng = seededRng(7);
  const ms = ['a', 'b', 'c'];
  const out: ClusteredBattle[] = [];
  for (let q = 1; q <= 20; q++)
    for (let t = 0; t < 2; t++)
      for (let i = 0; i < 3; i++)
        for (let j = i + 1; j < 3; j++) {
          const u = rng();
          out.push({ cluster: q, a: ms[i]!, b: ms[j]!, score: u < 0.4 ? 1 : u < 0.75 ? 0 : 0.5 });
        }
  return out;
}
/** `top` wins all its 10 games, on questions 1..5 (both turns). */
const topGames = (): ClusteredBattle[] =>
  Array.from({ length: 10 }, (_, k) => ({
    cluster: 1 + (k >> 1),
    a: k % 2 ? ['a', 'b', 'c'][k % 3]! : 'top',
    b: k % 2 ? 'top' : ['a', 'b', 'c'][k % 3]!,
    score: (k % 2 ? 0 : 1) as 0 | 1,
  }));
const asTriples = (bs: ClusteredBattle[]) =>
  bs.map((b) => [b.a, b.b, b.score === 1 ? 'model_a' : b.score === 0 ? 'model_b' : 'tie']);

describe('separated data (issue #13, defect 2)', () => {
  it('a 10–0 model has no rating and says why; the others are fitted without it and their intervals are not dragged', () => {
    const r = bootstrapBradleyTerry(battleTable([...league(), ...topGames()]), { rounds: 400, seed: 3 });
    const top = r.rows.find((x) => x.model === 'top')!;
    expect(top).toMatchObject({ rating: null, lo: null, hi: null });
    expect(top.note).toMatch(/^not estimable: 10 wins, 0 losses/);
    expect(r.separated).toEqual(['top']);
    // the same questions are drawn with and without top's games, so the others' bounds must agree
    const without = bootstrapBradleyTerry(battleTable(league()), { rounds: 400, seed: 3 });
    for (const w of without.rows) {
      const x = r.rows.find((y) => y.model === w.model)!;
      expect(x.rating!).toBeCloseTo(w.rating!, 6);
      expect(Math.abs(x.lo! - w.lo!)).toBeLessThan(0.01);
      expect(Math.abs(x.hi! - w.hi!)).toBeLessThan(0.01);
    }
  });

  it.skipIf(pythonSkip)(
    'estimable models and ratings equal scipy (strong components + L-BFGS-B), with and without --prior',
    () => {
      const battles = [...league(), ...topGames()];
      for (const prior of [0, 1, 0.25]) {
        const ref = python<{ estimable: string[]; ratings: Record<string, number> }>('bt_separation.py', {
          battles: asTriples(battles),
          prior,
        });
        // minQuestions 0: centred on every estimable model, as the reference centres (top is on 5 questions)
        const r = bootstrapBradleyTerry(battleTable(battles), { rounds: 20, prior, minQuestions: 0 });
        expect(
          r.rows
            .filter((x) => x.rating !== null)
            .map((x) => x.model)
            .sort(),
        ).toEqual([...ref.estimable].sort());
        for (const [m, v] of Object.entries(ref.ratings))
          expect(r.rows.find((x) => x.model === m)!.rating!).toBeCloseTo(v, 5);
      }
    },
  );

  it('counts the bootstrap rounds in which a model is separated, and gives it no finite bound then', () => {
    // "weak" wins once (question 1) and loses its other 19 games: separated in every round that misses question 1
    const weak: ClusteredBattle[] = Array.from({ length: 20 }, (_, k) => ({
      cluster: k + 1,
      a: 'weak',
      b: ['a', 'b', 'c'][k % 3]!,
      score: (k === 0 ? 1 : 0) as 0 | 1,
    }));
    const t = battleTable([...league(), ...weak]);
    const rounds = 500;
    // 20 questions: below the small-sample minimum, which is not what this test is about
    const r = bootstrapBradleyTerry(t, { rounds, seed: 11, minQuestionsForIntervals: 0 });
    const rng = seededRng(11);
    const counts = new Float64Array(t.clusters.length);
    let expected = 0;
    for (let b = 0; b < rounds; b++)
      if (!drawClusterCounts(rng, t.clusters.length, counts)[t.clusters.indexOf(1)]) expected++;
    expect(expected).toBeGreaterThan(100); // about (1 - 1/20)^20 = 36% of the rounds
    expect(r.separatedRounds).toBe(expected);
    const w = r.rows.find((x) => x.model === 'weak')!;
    expect(w.rating).not.toBeNull();
    expect(w.separatedRounds).toBe(expected);
    expect(w.lo).toBeNull();
    expect(w.note).toBe(`interval unbounded below: separated in ${expected} of ${rounds} rounds`);
  });
});

describe('sparse models (issue #13, defect 3)', () => {
  // "rare" played 2 games on each of its questions, winning and losing
  const rareOn = (qs: number[]): ClusteredBattle[] =>
    qs.flatMap((q) => [
      { cluster: q, a: 'rare', b: 'a', score: 1 as const },
      { cluster: q, a: 'rare', b: 'b', score: 0 as const },
    ]);
  const rare = rareOn([1, 2, 3, 4]);
  it('a model missing from a resample has no value in that round', () => {
    const t = battleTable([...league(), ...rareOn([1, 2])]);
    const samples = bootstrapRatingSamples(t, { unit: 'question', rounds: 300, seed: 5 });
    const rng = seededRng(5);
    const counts = new Float64Array(t.clusters.length);
    const k = t.pairs.models.indexOf('rare');
    let absent = 0;
    for (const row of samples) {
      drawClusterCounts(rng, t.clusters.length, counts);
      const seen = [1, 2].some((q) => counts[t.clusters.indexOf(q)]! > 0);
      if (!seen) absent++;
      expect(Number.isNaN(row[k]!)).toBe(!seen);
      for (const m of ['a', 'b', 'c']) expect(Number.isFinite(row[t.pairs.models.indexOf(m)]!)).toBe(true);
    }
    expect(absent).toBeGreaterThan(10); // (1 - 2/20)^20 ≈ 12% of rounds
  });

  it('a model seen on fewer than 10 questions is marked and gets no interval', () => {
    const r = bootstrapBradleyTerry(battleTable([...league(), ...rare]), {
      rounds: 200,
      minQuestionsForIntervals: 0,
    });
    const x = r.rows.find((y) => y.model === 'rare')!;
    expect(r.minQuestions).toBe(10);
    expect(x).toMatchObject({
      questions: 4,
      sparse: true,
      lo: null,
      hi: null,
      note: 'seen on 4 questions (fewer than 10): interval not estimated',
    });
    expect(x.rating).not.toBeNull();
    expect(r.rows.find((y) => y.model === 'a')).toMatchObject({ questions: 20 });
    expect(r.rows.find((y) => y.model === 'a')!.sparse).toBeUndefined();
  });
});

describe('arena ratings / intervals --json on separated data', () => {
  const dir = tmpDir('arena-separation-');
  const db = join(dir, 'arena.db');
  beforeAll(async () => {
    const rows = ['question_id,model_a,model_b,winner,judge,turn'];
    for (const b of [...league(), ...topGames()])
      rows.push(
        `${80 + Number(b.cluster)},${b.a},${b.b},${b.score === 1 ? 'model_a' : b.score === 0 ? 'model_b' : 'tie'},expert_${rows.length % 3},1`,
      );
    writeFileSync(join(dir, 'votes.csv'), `${rows.join('\n')}\n`);
    await importVotesWithContext(db, join(dir, 'votes.csv'));
  }, 60_000);

  it('rating (and lo/hi) is null with a note; --prior makes it finite', async () => {
    const r = await arenaJson<{ model: string; rating: number | null; note?: string }[]>([
      'ratings',
      '--db',
      db,
      '--judge',
      'human',
    ]);
    expect(r.find((x) => x.model === 'top')).toEqual({
      model: 'top',
      rating: null,
      note: expect.stringMatching(/^not estimable: 10 wins, 0 losses/),
    });
    const iv = await arenaJson<{
      ratings: {
        rows: { model: string; rating: number | null; lo: number | null; hi: number | null; note?: string }[];
        separated: string[];
      };
    }>(['intervals', '--db', db, '--judge', 'human', '--rounds', '100']);
    expect(iv.ratings.rows.find((x) => x.model === 'top')).toMatchObject({
      rating: null,
      lo: null,
      hi: null,
      note: expect.stringMatching(/^not estimable: 10 wins, 0 losses/),
    });
    const text = await arenaOk(['ratings', '--db', db, '--judge', 'human']);
    expect(text).toContain('not estimable: 10 wins, 0 losses');
    const p = await arenaJson<{ model: string; rating: number | null }[]>([
      'ratings',
      '--db',
      db,
      '--judge',
      'human',
      '--prior',
      '1',
    ]);
    expect(p.find((x) => x.model === 'top')!.rating).toBeGreaterThan(1100);
    expect(p.find((x) => x.model === 'top')!.rating).toBeLessThan(1800);
  }, 60_000);

  it('the site shows the note in the rating cell and in /api/leaderboard', async () => {
    const store = openSqliteStore(db);
    try {
      const app = createApp({ store, bootstrapRounds: 50 });
      const rows = (await (await app.request('/api/leaderboard?judge=human')).json()) as {
        model: string;
        rating: number | null;
        ratingNote: string | null;
      }[];
      expect(rows.find((r) => r.model === 'top')).toMatchObject({
        rating: null,
        ratingNote: expect.stringMatching(/^not estimable: 10 wins, 0 losses/),
      });
      for (const m of ['a', 'b', 'c'])
        expect(rows.find((r) => r.model === m)!.rating).toEqual(expect.any(Number));
      const html = await (await app.request('/?judge=human')).text();
      expect(html).toContain('not estimable: 10 wins, 0 losses');
    } finally {
      await store.close();
    }
  }, 60_000);
});
