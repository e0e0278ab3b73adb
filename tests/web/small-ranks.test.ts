// Ranks and the ratings chart with 5 questions, a model that lost every game and one that never lost: ranks follow
// ratings, marked "by rating", never all 1; no "NaN", separated models as arrows at the edges.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoteWinner } from '../../src/core/types.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { arenaJson, arenaOk, tmpDir } from '../support/cli.ts';

const QUESTIONS = [81, 82, 83, 84, 85];

/** Expert-style votes on `questions`: a ahead of b ahead of c, z that never wins, top that never loses. */
function votes(
  questions = QUESTIONS,
): { questionId: number; turn: number; model1: string; model2: string; winner: VoteWinner }[] {
  const out: { questionId: number; turn: number; model1: string; model2: string; winner: VoteWinner }[] = [];
  const add = (m1: string, m2: string, w: (q: number, t: number) => VoteWinner) => {
    questions.forEach((q, k) =>
      [1, 2].forEach((t) => out.push({ questionId: q, turn: t, model1: m1, model2: m2, winner: w(k, t) })),
    );
  };
  add('a', 'b', (k, t) => ((k + t) % 3 ? 'model_1' : 'model_2')); // a ahead of b
  add('b', 'c', (k, t) => ((k + t) % 3 ? 'model_1' : 'model_2')); // b ahead of c
  add('a', 'c', (k) => (k % 4 ? 'model_1' : 'tie'));
  add('z', 'a', () => 'model_2'); // z never wins: 0 wins, 20 losses
  add('z', 'b', () => 'model_2');
  add('top', 'c', () => 'model_1'); // top never loses
  return out;
}

/** A SQLite file at `db` holding `votes(questions)` as the judge `human`. */
async function votesDb(db: string, questions = QUESTIONS): Promise<SqliteStore> {
  const store = openSqliteStore(db);
  await store.importBundle({
    votes: [
      {
        source: 'votes.csv',
        items: votes(questions).map((v, k) => ({ judge: 'human', voter: 'e1', line: k + 2, ...v })),
      },
    ],
  });
  return store;
}

describe('a win rate at 1 on 30 questions', () => {
  it('gets the exact one-sided interval, never the point [1, 1]', async () => {
    const db = join(tmpDir('arena-win-alike-'), 'alike.db');
    const questions = Array.from({ length: 30 }, (_, k) => 81 + k);
    (await votesDb(db, questions)).close();
    const r = await arenaJson<{ winRates: { model: string; winRate: number; lo: number; hi: number }[] }>([
      'intervals',
      ...['--judge', 'human', '--db', db, '--rounds', '100', '--json'],
    ]);
    const top = r.winRates.find((w) => w.model === 'top')!;
    const z = r.winRates.find((w) => w.model === 'z')!;
    // Clopper–Pearson at x = n: the lower end solves p^n = 0.025 (at x = 0 the upper end 1 - 0.025^(1/n))
    expect([top.winRate, top.lo, top.hi]).toEqual([1, expect.closeTo(0.025 ** (1 / 30), 9), 1]);
    expect([z.winRate, z.lo, z.hi]).toEqual([0, 0, expect.closeTo(1 - 0.025 ** (1 / 30), 9)]);
  });
});

describe('ranks and the ratings chart without intervals', () => {
  const db = join(tmpDir('arena-small-ranks-'), 'small.db');
  let store: SqliteStore;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    store = await votesDb(db);
    app = createApp({ store, bootstrapRounds: 100 });
  });
  afterAll(() => store?.close());

  it('arena intervals ranks by rating, marked, with the model that never won last and the one that never lost first', async () => {
    const r = await arenaJson<{
      ratings: {
        fewQuestions?: number;
        rows: { model: string; rating: number | null; rank: number; rankFromPoint?: boolean }[];
      };
    }>(['intervals', '--judge', 'human', '--db', db, '--rounds', '100', '--json']);
    expect(r.ratings.fewQuestions).toBe(5);
    const rank = Object.fromEntries(r.ratings.rows.map((x) => [x.model, x.rank]));
    expect(rank).toEqual({ top: 1, a: 2, b: 3, c: 4, z: 5 });
    expect(r.ratings.rows.every((x) => x.rankFromPoint)).toBe(true);
    const text = await arenaOk(['intervals', '--judge', 'human', '--db', db, '--rounds', '100']);
    expect(text).toMatch(/^\s*5 \(by rating\)\s.*\bz\b/m);
    expect(text).toMatch(/^\s*1 \(by rating\)\s.*\btop\b/m);
    expect(text).toContain('each rank follows the ratings alone ("by rating")');
  });

  it('the leaderboard shows the same ranks, marked † (by rating)', async () => {
    const page = await (await app.request('/leaderboard?judge=human')).text();
    const ranks = Object.fromEntries(
      [
        ...page.matchAll(
          /<tr><td>(\d+)(<abbr class="by-point" title="by rating alone: too few questions for intervals">†<\/abbr>)?<\/td><th scope="row"><a href="\/models\/([^?]+)\?judge=human">/g,
        ),
      ].map((m) => [m[3]!, `${m[1]}${m[2] ? ' by rating' : ''}`]),
    );
    expect(ranks).toEqual({
      top: '1 by rating',
      a: '2 by rating',
      b: '3 by rating',
      c: '4 by rating',
      z: '5 by rating',
    });
    expect(page).toContain('† With too few questions for intervals, each rank follows the ratings alone');
    // the home page's board marks them the same way
    const home = await (await app.request('/?judge=human')).text();
    const marked = [...home.matchAll(/<tr><td class="nowrap">(\d+)<a class="by-point"[^>]*>†<\/a>/g)].map(
      (m) => m[1],
    );
    expect(marked).toEqual(['1', '2', '3', '4', '5']);
  });

  it('the ratings chart: no NaN, arrows for no wins and no losses, each value beside its dot', async () => {
    for (const narrow of ['', '&size=narrow']) {
      const svg = await (await app.request(`/charts/ratings.svg?judge=human${narrow}`)).text();
      expect(svg).toMatch(/^<svg/);
      expect(svg).not.toContain('NaN');
      expect(svg).toContain('>no wins<');
      expect(svg).toContain('>no losses<');
      // each rated model's value is written beside its own dot: just right of and above its centre
      const rows = (await (await app.request('/api/leaderboard?judge=human')).json()) as {
        model: string;
        rating: number | null;
      }[];
      const dots = [...svg.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)].map((m) => [
        Number(m[1]),
        Number(m[2]),
      ]);
      const labels = [...svg.matchAll(/<text[^>]* x="([\d.]+)" y="([\d.]+)"[^>]*>(\d+)<\/text>/g)].map(
        (m) => ({
          x: Number(m[1]),
          y: Number(m[2]),
          v: Number(m[3]),
        }),
      );
      const rated = rows.filter((x) => x.rating !== null);
      expect(rated.map((x) => x.model).sort()).toEqual(['a', 'b', 'c']);
      expect(dots).toHaveLength(3);
      for (const x of rated) {
        const label = labels.find((l) => l.v === Math.round(x.rating!));
        expect(label, x.model).toBeDefined();
        const near = dots.filter(
          ([cx, cy]) =>
            label!.x - cx! >= 0 && label!.x - cx! <= 8 && cy! - label!.y > 0 && cy! - label!.y < 16,
        );
        expect(near, x.model).toHaveLength(1);
      }
    }
  });
});
