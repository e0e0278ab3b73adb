// One database, several tournaments (issue 12, item 17): results are computed and shown per group of models that
// played one another, never ranking or rating models of different groups together.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { battleSides, connectedModelGroups, ratingsByGroup } from '../../src/core/groups.ts';
import { openSqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { arenaJson, arenaOk, playOwn, tmpDir } from '../support/cli.ts';
import { mtbenchReleaseDb } from '../support/mtbench-release.ts';

const DIR = process.env.MTBENCH_DIR;
if (!DIR) console.warn('[tournaments] skipped: MTBENCH_DIR is not set (set it to ../shared/mt_bench)');
const MT = ['alpaca-13b', 'gpt-4', 'llama-13b'];
const OURS = ['arena-drift', 'arena-echo', 'arena-sage', 'arena-swift'];

describe('connectedModelGroups', () => {
  it('links models that played, directly or through others; the largest group first', () => {
    expect(
      connectedModelGroups([
        { model1: 'a', model2: 'b' },
        { model1: 'x', model2: 'y' },
        { model1: 'c', model2: 'b' },
      ]),
    ).toEqual([
      ['a', 'b', 'c'],
      ['x', 'y'],
    ]);
    expect(connectedModelGroups([])).toEqual([]);
  });

  it('ratingsByGroup fits each group apart, in the given order, and tags rows only when there are several', () => {
    const battles = [
      { a: 'x', b: 'y' },
      { a: 'a', b: 'b' },
      { a: 'y', b: 'x' },
      { a: 'c', b: 'b' },
    ];
    const seen: string[][] = [];
    const fit = (part: typeof battles) => {
      seen.push(part.map((b) => b.a + b.b));
      return [{ model: part[0]!.a, n: part.length }];
    };
    const split = ratingsByGroup(battles, battleSides, fit, (rows) => rows);
    expect(seen).toEqual([
      ['ab', 'cb'],
      ['xy', 'yx'],
    ]);
    expect(split.rows).toEqual([
      { model: 'a', n: 2, group: 1 },
      { model: 'x', n: 2, group: 2 },
    ]);
    expect(split.groups).toEqual([
      ['a', 'b', 'c'],
      ['x', 'y'],
    ]);
    // one group (and no battles at all) is fitted whole, its rows untagged
    expect(ratingsByGroup(battles.slice(1, 2), battleSides, fit, (rows) => rows).rows).toEqual([
      { model: 'a', n: 1 },
    ]);
    expect(
      ratingsByGroup(
        [],
        battleSides,
        () => 'none',
        () => [],
      ).parts,
    ).toEqual(['none']);
  });
});

describe.skipIf(!DIR)('one judge, two tournaments that never met', { timeout: 300_000 }, () => {
  let db: string;
  beforeAll(async () => {
    db = join(tmpDir(), 'arena.db');
    await mtbenchReleaseDb(db, DIR);
    await arenaOk(['run', '--db', db, '--judge', 'mock/longer', '--models', MT.join(','), '--turn', '1']);
    await playOwn(db, 'mock/longer', OURS.join(','), ['--turn', '1']);
  }, 300_000);

  it('standings: one table per group; rows name their group', async () => {
    const rows = await arenaJson<{ model: string; group: number; win: number; loss: number; tie: number }[]>([
      'standings',
      '--db',
      db,
      '--judge',
      'mock/longer',
    ]);
    const byGroup = (g: number) =>
      rows
        .filter((r) => r.group === g)
        .map((r) => r.model)
        .sort();
    expect(byGroup(1)).toEqual(OURS);
    expect(byGroup(2)).toEqual(MT);
    // within a group every match is between its own models: wins and losses balance
    for (const g of [1, 2]) {
      const rs = rows.filter((r) => r.group === g);
      expect(rs.reduce((s, r) => s + r.win, 0)).toBe(rs.reduce((s, r) => s + r.loss, 0));
    }
    const text = await arenaOk(['standings', '--db', db, '--judge', 'mock/longer']);
    expect(text).toMatch(/^group 1 of 2: 4 models that played one another, on 24 question\(s\)/m);
    expect(text).toMatch(/^group 2 of 2: 3 models that played one another, on 80 question\(s\)/m);
  });

  it('ratings and intervals are fitted per group: each group has mean 1000 and its own rank 1', async () => {
    const ratings = await arenaJson<{ model: string; rating: number | null; note?: string; group: number }[]>(
      ['ratings', '--db', db, '--judge', 'mock/longer'],
    );
    for (const [g, models] of [
      [1, OURS],
      [2, MT],
    ] as const) {
      const rs = ratings.filter((r) => r.group === g);
      expect(rs.map((r) => r.model).sort()).toEqual(models);
      // mock/longer always prefers the longer answer, so a model may win (or lose) every match: it has no
      // finite rating (null, with a note), and the group's other models are centred on 1000 without it
      for (const r of rs.filter((x) => x.rating === null))
        expect(r.note).toMatch(/^not estimable: \d+ wins?, \d+ loss/);
      const rated = rs.filter((r) => r.rating !== null);
      expect(rated.length).toBeGreaterThan(1);
      expect(rated.reduce((s, r) => s + r.rating!, 0) / rated.length).toBeCloseTo(1000, 6);
    }
    const iv = await arenaJson<{
      ratings: { rows: { model: string; rank: number; group: number }[]; disconnected: string[][] };
    }>(['intervals', '--db', db, '--judge', 'mock/longer', '--rounds', '30']);
    expect(iv.ratings.disconnected).toEqual([OURS, MT]);
    for (const g of [1, 2])
      expect(Math.min(...iv.ratings.rows.filter((r) => r.group === g).map((r) => r.rank))).toBe(1);
  });

  it("the site shows one leaderboard table per group, and the API names each row's group", async () => {
    const store = openSqliteStore(db, { readonly: true });
    try {
      const app = createApp({ store, bootstrapRounds: 30 });
      const html = await (await app.request('/leaderboard?judge=mock%2Flonger')).text();
      const captions = [...html.matchAll(/<caption[^>]*>([^<]*)<\/caption>/g)]
        .map((m) => m[1]!)
        .filter((c) => c.includes('mock/longer') && c.includes('pairwise-all'));
      expect(captions).toHaveLength(2);
      expect(captions[0]).toMatch(/group 1/);
      expect(captions[1]).toMatch(/group 2/);
      const tables = [...html.matchAll(/<table>[\s\S]*?<\/table>/g)]
        .map((m) => m[0])
        .filter((t) => t.includes('mock/longer · pairwise-all'));
      expect(
        OURS.every((m) => tables[0]!.includes(`>${m}<`)) && MT.every((m) => !tables[0]!.includes(`>${m}<`)),
      ).toBe(true);
      expect(
        MT.every((m) => tables[1]!.includes(`>${m}<`)) && OURS.every((m) => !tables[1]!.includes(`>${m}<`)),
      ).toBe(true);
      // the introduction describes the data shown, not a fixed release
      expect(html).toMatch(
        /<p class="lead">Pairwise matches of 7 models on 104 questions, as judged by mock\/longer \(some judges saw groups of models that never met; each group has its own table\)\./,
      );
      const all = await (await app.request('/leaderboard')).text();
      expect(all).toMatch(
        /<p class="lead">Pairwise matches of 10 models on 104 questions, as judged by human experts, gpt-4 and mock\/longer/,
      );
      expect(all).not.toMatch(/six chat models/);
      const api = (await (await app.request('/api/leaderboard?judge=mock%2Flonger')).json()) as {
        model: string;
        group: number;
        rank: number;
        win: number;
        loss: number;
        rating: number | null;
        ratingLo: number | null;
        ratingHi: number | null;
      }[];
      // ranks as lmarena shows them: 1 + the models of the same group whose interval lies wholly above; a
      // model that never lost (no finite rating) lies above every rated one, one that never won below
      const lo = (o: (typeof api)[number]) => o.ratingLo ?? (o.loss === 0 ? Infinity : -Infinity);
      const rated = api.filter((r) => r.ratingLo !== null && r.ratingHi !== null);
      expect(rated.length).toBeGreaterThan(0);
      for (const r of rated)
        expect(r.rank, r.model).toBe(
          1 + api.filter((o) => o.group === r.group && lo(o) > r.ratingHi!).length,
        );
      expect(
        api
          .filter((r) => r.group === 2)
          .map((r) => r.model)
          .sort(),
      ).toEqual(MT);
      // group 2 (MT-Bench's 80 questions) has one rank 1; group 1, our own 24 questions, is below the small-sample
      // minimum: no intervals, so its ranks follow the ratings alone, marked as such
      expect(api.filter((r) => r.group === 2 && r.rank === 1)).toHaveLength(1);
      const ours = api.filter((r) => r.group === 1);
      const oursRated = ours.filter((r) => r.rating !== null);
      expect(oursRated.length).toBe(3);
      expect(oursRated.map((r) => [r.rank, r.ratingLo, r.ratingHi])).toEqual(
        oursRated.map((r) => [1 + oursRated.filter((o) => o.rating! > r.rating!).length, null, null]),
      );
    } finally {
      await store.close();
    }
  });
});
