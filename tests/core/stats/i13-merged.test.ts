// Issue #13's merged pieces together, each expectation computed another way: ratings against the unconstrained
// maximum-likelihood fit (differences do not depend on centring), sandwich against the bootstrap's full fit.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { battleTable, type ClusteredBattle } from '../../../src/core/stats/battle-table.ts';
import { bootstrapBradleyTerry } from '../../../src/core/stats/rating-bootstrap.ts';
import { fitBradleyTerry } from '../../../src/core/ratings.ts';
import { seededRng } from '../../../src/core/stats/random.ts';
import { sandwichBradleyTerry } from '../../../src/core/stats/sandwich.ts';
import { styleControl } from '../../../src/core/stats/style.ts';
import { withPrior } from '../../../src/core/stats/separation.ts';
import { openSqliteStore } from '../../../src/storage/sqlite.ts';
import { createApp } from '../../../src/web/app.ts';
import { arenaJson, arenaOk, runArena, tmpDir } from '../../support/cli.ts';
import { importVotesWithContext } from '../../support/votes.ts';

/** Four models over 30 questions (both turns, every pair), deterministic, none separated. */
function league(): ClusteredBattle[] {
  const rng = seededRng(11);
  const ms = ['a', 'b', 'c', 'd'];
  const out: ClusteredBattle[] = [];
  for (let q = 1; q <= 30; q++)
    for (let t = 0; t < 2; t++)
      for (let i = 0; i < ms.length; i++)
        for (let j = i + 1; j < ms.length; j++) {
          const u = rng();
          out.push({ cluster: q, a: ms[i]!, b: ms[j]!, score: u < 0.45 - 0.05 * i ? 1 : u < 0.8 ? 0 : 0.5 });
        }
  return out;
}
/** `rare` on 4 questions, winning some and losing some. */
const rare = (): ClusteredBattle[] =>
  [1, 2, 3, 4].flatMap((q) => [
    { cluster: q, a: 'rare', b: 'a', score: 1 as const },
    { cluster: q, a: 'rare', b: 'c', score: 0 as const },
  ]);
/** `top` wins all its 12 games, on questions 1..12. */
const top = (): ClusteredBattle[] =>
  Array.from({ length: 12 }, (_, k) => ({
    cluster: 1 + k,
    a: 'top',
    b: ['a', 'b', 'c', 'd'][k % 4]!,
    score: 1 as const,
  }));

/** Rating differences to model `ref` of the plain maximum-likelihood fit (with the prior). */
function mleDiffs(battles: ClusteredBattle[], prior: number, ref: string): Map<string, number> {
  const t = battleTable(battles);
  const r = fitBradleyTerry(withPrior(t.pairs, prior), undefined, { tol: 1e-12, maxIter: 500 });
  const k0 = t.pairs.models.indexOf(ref);
  return new Map(t.pairs.models.map((m, k) => [m, r[k]! - r[k0]!]));
}

describe('a sparse model keeps its place relative to the others (centring on the anchored models)', () => {
  for (const prior of [0, 1]) {
    it(`bootstrap and sandwich: every rating difference is the maximum-likelihood one (prior ${prior})`, () => {
      const battles = [...league(), ...rare()];
      const want = mleDiffs(battles, prior, 'a');
      const boot = bootstrapBradleyTerry(battleTable(battles), { rounds: 50, prior });
      const sand = sandwichBradleyTerry(battleTable(battles), { prior, draws: 2000 });
      for (const r of [boot, sand]) {
        const a = r.rows.find((x) => x.model === 'a')!.rating!;
        for (const x of r.rows)
          expect(x.rating! - a, `${r.method ?? 'bootstrap'} ${x.model}`).toBeCloseTo(want.get(x.model)!, 4);
        // centred on the four models seen on >= 10 questions
        const mean = r.rows.filter((x) => x.model !== 'rare').reduce((s, x) => s + x.rating!, 0) / 4;
        expect(mean).toBeCloseTo(1000, 6);
        expect(r.prior).toBe(prior);
      }
    });
  }

  it('the sandwich marks a sparse model as the bootstrap does: no interval, a note, preliminary, and it spans the ranks', () => {
    const sand = sandwichBradleyTerry(battleTable([...league(), ...rare()]), { draws: 2000 });
    const x = sand.rows.find((y) => y.model === 'rare')!;
    expect(x).toMatchObject({
      questions: 4,
      sparse: true,
      lo: null,
      hi: null,
      preliminary: true,
      rankBest: 1,
      rankWorst: 5,
      note: 'seen on 4 questions (fewer than 10): interval not estimated',
    });
    expect(sand.minQuestions).toBe(10);
    for (const y of sand.rows.filter((r) => r.model !== 'rare')) {
      expect(y.lo).toEqual(expect.any(Number));
      // the sparse model could sit anywhere: every other model's worst rank allows for it
      expect(y.rankWorst).toBeGreaterThanOrEqual(y.rankBest! + 1);
    }
  });
});

describe('a sparse model beside a model separated above', () => {
  it('cannot rank above the separated model: Rank (UB) and best rank are at least 2', () => {
    const r = bootstrapBradleyTerry(battleTable([...league(), ...rare(), ...top()]), { rounds: 100 });
    expect(r.separated).toEqual(['top']);
    expect(r.rows.find((x) => x.model === 'top')).toMatchObject({
      rating: null,
      rank: 1,
      rankBest: 1,
      rankWorst: 1,
    });
    expect(r.rows.find((x) => x.model === 'rare')).toMatchObject({
      sparse: true,
      rank: 2,
      rankBest: 2,
      rankWorst: 6,
    });
  });
});

describe('sandwich with --prior', () => {
  it('refuses separated data without a prior, naming the model and the way out; fits it with one', () => {
    const t = battleTable([...league(), ...top()]);
    expect(() => sandwichBradleyTerry(t)).toThrow(/top won or lost every game.*--method bootstrap.*--prior/);
    const s = sandwichBradleyTerry(t, { prior: 1, draws: 2000 });
    const b = bootstrapBradleyTerry(t, { prior: 1, rounds: 50 });
    for (const x of s.rows) {
      expect(x.rating!, x.model).toBeCloseTo(b.rows.find((y) => y.model === x.model)!.rating!, 4);
      expect(x.lo! < x.rating! && x.rating! < x.hi!, x.model).toBe(true);
    }
  });
});

describe('site with sandwich intervals on a table separated by a group (two models that only lose to each other)', () => {
  it('falls back to the bootstrap: the page and /api/leaderboard answer, both separated models say why', async () => {
    const dir = tmpDir('arena-i13-site-');
    const db = join(dir, 'arena.db');
    // x and y each beat the other once, and beat a..d every time: no single model has 0 losses, the pair is separated
    const xy: ClusteredBattle[] = [
      { cluster: 1, a: 'x', b: 'y', score: 1 },
      { cluster: 2, a: 'x', b: 'y', score: 0 },
      ...[1, 2, 3, 4, 5, 6].flatMap((q) =>
        ['a', 'b', 'c', 'd'].flatMap((m) => [
          { cluster: q, a: 'x', b: m, score: 1 as const },
          { cluster: q, a: m, b: 'y', score: 0 as const },
        ]),
      ),
    ];
    const rows = ['question_id,model_a,model_b,winner,judge,turn'];
    for (const b of [...league(), ...xy])
      rows.push(
        `${80 + Number(b.cluster)},${b.a},${b.b},${b.score === 1 ? 'model_a' : b.score === 0 ? 'model_b' : 'tie'},synth,1`,
      );
    writeFileSync(join(dir, 'votes.csv'), `${rows.join('\n')}\n`);
    await importVotesWithContext(db, join(dir, 'votes.csv'));
    const store = openSqliteStore(db);
    try {
      const app = createApp({ store, bootstrapRounds: 50, intervals: 'sandwich' });
      const res = await app.request('/api/leaderboard?judge=synth');
      expect(res.status).toBe(200);
      const lb = (await res.json()) as {
        model: string;
        rating: number | null;
        ratingNote: string | null;
        rankBest: number;
      }[];
      for (const m of ['x', 'y'])
        expect(lb.find((r) => r.model === m)).toMatchObject({
          rating: null,
          ratingNote: expect.stringMatching(/^not estimable/),
          rankBest: 1,
        });
      const page = await app.request('/?judge=synth');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('not estimable: 25 wins, 1 losses');
    } finally {
      await store.close();
    }
  }, 60_000);
});

describe('arena intervals on a database of our own votes (separated, sparse, --method, --prior)', () => {
  const dir = tmpDir('arena-i13-cli-');
  const db = join(dir, 'arena.db');
  beforeAll(async () => {
    const rows = ['question_id,model_a,model_b,winner,judge,turn'];
    for (const b of [...league(), ...rare(), ...top()])
      rows.push(
        `${80 + Number(b.cluster)},${b.a},${b.b},${b.score === 1 ? 'model_a' : b.score === 0 ? 'model_b' : 'tie'},synth,1`,
      );
    writeFileSync(join(dir, 'votes.csv'), `${rows.join('\n')}\n`);
    await importVotesWithContext(db, join(dir, 'votes.csv'));
  }, 60_000);

  type Row = {
    model: string;
    rating: number | null;
    lo: number | null;
    hi: number | null;
    note?: string;
    rank: number;
    rankBest: number;
    rankWorst: number;
    preliminary: boolean;
  };
  it('--json rows: null rating and bounds with a note for the separated model, rank bounds and the preliminary mark on every row', async () => {
    const r = await arenaJson<{ ratings: { rows: Row[]; prior: number } }>([
      'intervals',
      '--db',
      db,
      '--judge',
      'synth',
      '--rounds',
      '100',
      '--json',
    ]);
    expect(r.ratings.rows.find((x) => x.model === 'top')).toMatchObject({
      rating: null,
      lo: null,
      hi: null,
      note: expect.stringMatching(/^not estimable: 12 wins, 0 losses/),
      rank: 1,
      rankBest: 1,
      rankWorst: 1,
      preliminary: true,
    });
    expect(r.ratings.rows.find((x) => x.model === 'rare')).toMatchObject({
      lo: null,
      hi: null,
      rank: 2,
      rankBest: 2,
      preliminary: true,
    });
    for (const x of r.ratings.rows)
      expect(Object.keys(x)).toEqual(
        expect.arrayContaining(['rankBest', 'rankWorst', 'preliminary', 'rank']),
      );
  }, 60_000);

  it('--method sandwich: a clear error for the separated model; with --prior 1 it fits, and says so', async () => {
    const bad = await runArena(['intervals', '--db', db, '--judge', 'synth', '--method', 'sandwich']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /sandwich intervals need a finite Bradley–Terry fit, but top won or lost every game/,
    );
    const r = await arenaJson<{ ratings: { method: string; prior: number; rows: Row[] } }>([
      'intervals',
      '--db',
      db,
      '--judge',
      'synth',
      '--method',
      'sandwich',
      '--prior',
      '1',
      '--json',
    ]);
    expect(r.ratings).toMatchObject({ method: 'sandwich', prior: 1 });
    expect(r.ratings.rows.find((x) => x.model === 'top')!.rating).toEqual(expect.any(Number));
    expect(r.ratings.rows.find((x) => x.model === 'rare')).toMatchObject({
      lo: null,
      hi: null,
      note: expect.stringMatching(/fewer than 10/),
    });
    const text = await arenaOk([
      'intervals',
      '--db',
      db,
      '--judge',
      'synth',
      '--method',
      'sandwich',
      '--prior',
      '1',
    ]);
    expect(text).toContain('prior: 1 tie pseudo-game(s) per pair that met');
  }, 60_000);
});

describe('style control beside a sparse model', () => {
  it('the raw column equals arena intervals (same centring) and the sparse model drags no one in the bootstrap', () => {
    const rng = seededRng(3);
    const st = () => ({ length: 500 + 1000 * rng(), headers: 0, lists: Math.floor(4 * rng()), bold: 0 });
    const battles = [...league(), ...rare()];
    const r = styleControl(
      battles.map((b) => ({ ...b, styleA: st(), styleB: st() })),
      ['length', 'markdown'],
      { rounds: 200 },
    );
    const boot = bootstrapBradleyTerry(battleTable(battles), { rounds: 200 });
    for (const x of r.rows) {
      const b = boot.rows.find((y) => y.model === x.model)!;
      expect(x.rawRating, x.model).toBeCloseTo(b.rating!, 1);
      if (x.model === 'rare') continue;
      // the same question draws: the raw bounds are the bootstrap's within Monte Carlo noise, not hundreds of points off
      expect(Math.abs(x.rawLo! - b.lo!), `${x.model} lo`).toBeLessThan(15);
      expect(Math.abs(x.rawHi! - b.hi!), `${x.model} hi`).toBeLessThan(15);
    }
  });
});

describe('arena ratings: options that do not apply are refused, not ignored', () => {
  it('--method elo --prior 1 is a usage error', async () => {
    const dir = tmpDir('arena-i13-elo-');
    const db = join(dir, 'arena.db');
    writeFileSync(
      join(dir, 'votes.csv'),
      'question_id,model_a,model_b,winner,judge,turn\n81,a,b,model_a,synth,1\n',
    );
    await importVotesWithContext(db, join(dir, 'votes.csv'));
    const r = await runArena(['ratings', '--db', db, '--judge', 'synth', '--method', 'elo', '--prior', '1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--prior applies to Bradley–Terry ratings (--method bt), not to online Elo');
  }, 60_000);
});

describe.skipIf(!process.env.MTBENCH_DIR)(
  'arena ratings --style with a model that won every game (needs MTBENCH_DIR for questions and answers)',
  () => {
    it('leaves it out of the fit and names it with its record; --weight and --prior are refused', async () => {
      const dir = tmpDir('arena-i13-style-');
      const db = join(dir, 'arena.db');
      const mt = process.env.MTBENCH_DIR!;
      await arenaOk(['import', 'questions', '--db', db, join(mt, 'question.jsonl')]);
      await arenaOk([
        'import',
        'answers',
        '--db',
        db,
        ...['gpt-4', 'claude-v1', 'gpt-3.5-turbo', 'vicuna-13b-v1.2'].map((m) =>
          join(mt, 'model_answer', `${m}.jsonl`),
        ),
      ]);
      const rng = seededRng(2);
      const rows = ['question_id,model_a,model_b,winner,judge,turn'];
      const others = ['claude-v1', 'gpt-3.5-turbo', 'vicuna-13b-v1.2'];
      for (let q = 81; q <= 160; q++) {
        rows.push(`${q},gpt-4,${others[q % 3]},model_a,synth,1`);
        for (let i = 0; i < 3; i++)
          rows.push(
            `${q},${others[i]},${others[(i + 1) % 3]},${rng() < 0.5 ? 'model_a' : rng() < 0.7 ? 'model_b' : 'tie'},synth,1`,
          );
      }
      writeFileSync(join(dir, 'votes.csv'), `${rows.join('\n')}\n`);
      await importVotesWithContext(db, join(dir, 'votes.csv'));
      const r = await arenaJson<{
        rows: { model: string }[];
        notEstimable: { model: string; note: string }[];
      }>(['ratings', '--db', db, '--judge', 'synth', '--style', 'length', '--rounds', '50', '--json']);
      expect(r.notEstimable).toEqual([
        { model: 'gpt-4', note: expect.stringMatching(/^not estimable: 80 wins, 0 losses/) },
      ]);
      expect(r.notEstimable[0]!.note).not.toContain('--prior');
      expect(r.rows.map((x) => x.model).sort()).toEqual([...others].sort());
      for (const extra of [
        ['--weight', 'arena-hard'],
        ['--prior', '1'],
      ]) {
        const bad = await runArena([
          'ratings',
          '--db',
          db,
          '--judge',
          'synth',
          '--style',
          'length',
          ...extra,
        ]);
        expect(bad.code).toBe(1);
        expect(bad.stderr).toContain('--style fits its own unweighted model: drop --weight and --prior');
      }
    }, 120_000);
  },
);
