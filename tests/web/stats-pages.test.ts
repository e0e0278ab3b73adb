// The site's rank intervals, health and style control show what the CLI prints for the same data, seed and rounds;
// the Worker's INTERVALS var gives `arena intervals --method sandwich`'s intervals.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFiles, mtbenchSources } from '../../src/importers/import.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { arenaJson, tmpDir } from '../support/cli.ts';
import { MTBENCH_DIR } from './fixture.ts';

const ROUNDS = 100;

describe.skipIf(!process.env.MTBENCH_DIR)(
  'rank intervals, health and style on the site (MT-Bench release)',
  () => {
    const file = join(tmpDir('arena-stats-web-'), 'site.db');
    let store: SqliteStore;
    let app: ReturnType<typeof createApp>;
    beforeAll(async () => {
      store = openSqliteStore(file);
      await importFiles(store, mtbenchSources(MTBENCH_DIR));
      app = createApp({ store, bootstrapRounds: ROUNDS });
    }, 120_000);
    afterAll(async () => {
      await store?.close();
    });
    const json = async <T>(path: string) => {
      const r = await app.request(path);
      expect(r.status, path).toBe(200);
      return (await r.json()) as T;
    };
    const html = async (path: string) => {
      const r = await app.request(path);
      expect(r.status, path).toBe(200);
      return r.text();
    };

    it('/api/leaderboard carries Rank (UB), the rank range and the preliminary mark of `arena intervals`', async () => {
      type Row = {
        model: string;
        rank: number;
        rankUB: number;
        rankBest: number;
        rankWorst: number;
        marginalRankBest: number;
        marginalRankWorst: number;
        preliminary: boolean;
        ratingLo: number;
        ratingHi: number;
      };
      const cli = await arenaJson<{
        ratings: {
          rows: {
            model: string;
            rank: number;
            rankBest: number;
            rankWorst: number;
            marginalRankBest: number;
            marginalRankWorst: number;
            preliminary: boolean;
            lo: number;
          }[];
        };
      }>(['intervals', '--db', file, '--judge', 'human', '--rounds', String(ROUNDS)]);
      const site = await json<Row[]>('/api/leaderboard?judge=human');
      for (const c of cli.ratings.rows) {
        const s = site.find((r) => r.model === c.model)!;
        expect(s, c.model).toMatchObject({
          rankUB: c.rank,
          rankBest: c.rankBest,
          rankWorst: c.rankWorst,
          marginalRankBest: c.marginalRankBest,
          marginalRankWorst: c.marginalRankWorst,
          preliminary: c.preliminary,
        });
        expect(s.ratingLo).toBeCloseTo(c.lo, 9);
      }
      // the experts cannot tell gpt-4, claude-v1 and gpt-3.5-turbo apart with confidence
      expect(site.find((r) => r.model === 'claude-v1')!.rankWorst).toBeGreaterThan(
        site.find((r) => r.model === 'claude-v1')!.rankBest,
      );
      // a category has 10 questions: too few for the question bootstrap, so no interval and no rank range, saying why
      const writing = await json<Row[]>('/api/leaderboard?judge=human&category=writing');
      expect(writing.length).toBe(6);
      for (const r of writing) {
        expect(
          [r.ratingLo, r.ratingHi, r.rankBest, r.rankWorst, r.marginalRankBest, r.marginalRankWorst],
          r.model,
        ).toEqual([null, null, null, null, null, null]);
        // a model the experts saw on fewer than 10 of the category's questions keeps its own (sparse) note
        expect((r as unknown as { ratingNote: string }).ratingNote).toMatch(
          /^(rated on 10 questions \(fewer than 30\): the question bootstrap needs about 30|seen on \d questions \(fewer than 10\))/,
        );
      }
      expect(
        writing.filter((r) => (r as unknown as { ratingNote: string }).ratingNote.startsWith('rated on 10'))
          .length,
      ).toBeGreaterThan(0);
      expect(await html('/leaderboard?judge=human&category=writing')).toContain('not estimated');
      const page = await html('/leaderboard?judge=human');
      expect(page).toContain('rank range (joint)');
      // the # column says which rank it is, and the range says it is joint (arena intervals has the marginal one)
      expect(page).toContain('# is the rank LMArena shows, Rank (UB)');
      expect(page).toMatch(/<td class="opt nowrap">1–3<\/td>/);
      // and the marginal range beside it: the experts' gpt-4 is 1–2 jointly, 1 on its own comparisons
      expect(page).toContain('rank range (marginal)');
      const g = site.find((r) => r.model === 'gpt-4')!;
      expect([g.rankBest, g.rankWorst, g.marginalRankBest, g.marginalRankWorst]).toEqual([1, 2, 1, 1]);
      expect(page).toMatch(
        /gpt-4<\/a><\/th>.*?<td class="opt nowrap">1–2<\/td><td class="opt nowrap">1<\/td><\/tr>/,
      );
    }, 180_000);

    it('with intervals = sandwich (the Worker var INTERVALS), the leaderboard shows `arena intervals --method sandwich`', async () => {
      const sandwich = createApp({ store, intervals: 'sandwich' });
      const cli = await arenaJson<{
        ratings: { rows: { model: string; lo: number; hi: number; rankBest: number; rankWorst: number }[] };
      }>(['intervals', '--db', file, '--judge', 'gpt-4', '--method', 'sandwich']);
      const site = (await (await sandwich.request('/api/leaderboard?judge=gpt-4')).json()) as {
        model: string;
        ratingLo: number;
        ratingHi: number;
        rankBest: number;
        rankWorst: number;
      }[];
      for (const c of cli.ratings.rows) {
        const s = site.find((r) => r.model === c.model)!;
        expect(s.ratingLo).toBeCloseTo(c.lo, 9);
        expect(s.ratingHi).toBeCloseTo(c.hi, 9);
        expect([s.rankBest, s.rankWorst]).toEqual([c.rankBest, c.rankWorst]);
      }
    }, 180_000);

    it('/health and /api/health show `arena health --judges gpt-4 --reference human`', async () => {
      const [cli] = await arenaJson<
        {
          judge: string;
          separability: number;
          separated: number;
          separatedMonteCarlo: { lo: number; hi: number };
          referenceSeparatedMonteCarlo: { lo: number; hi: number };
          agreementWithConfidence: number;
          brier: number;
          brierReferenceBootstrap: number;
          referenceSeparated: number;
          referenceSeparability: number;
          spearman: { value: number; lo: number; hi: number };
          kendall: { value: number; lo: number };
        }[]
      >(['health', '--db', file, '--judges', 'gpt-4', '--reference', 'human', '--rounds', String(ROUNDS)]);
      const rows = await json<Record<string, number | string | null>[]>('/api/health');
      expect(rows.map((r) => r.judge)).toEqual(['gpt-4']);
      expect(rows[0]).toMatchObject({
        judge: 'gpt-4',
        reference: 'human',
        separated: cli!.separated,
        separability: cli!.separability,
        agreementWithConfidence: cli!.agreementWithConfidence,
        brier: cli!.brier,
        brierReferenceBootstrap: cli!.brierReferenceBootstrap,
        referenceSeparated: cli!.referenceSeparated,
        spearman: cli!.spearman.value,
        spearmanLo: cli!.spearman.lo,
        kendallLo: cli!.kendall.lo,
        // how stable each count is over the bootstrap's own rounds (Monte-Carlo range)
        separatedMcLo: cli!.separatedMonteCarlo.lo,
        separatedMcHi: cli!.separatedMonteCarlo.hi,
        referenceSeparatedMcLo: cli!.referenceSeparatedMonteCarlo.lo,
        referenceSeparatedMcHi: cli!.referenceSeparatedMonteCarlo.hi,
      });
      const mc = (m: { lo: number; hi: number }) =>
        m.lo === m.hi ? '' : `<br><span class="muted">MC ${m.lo}–${m.hi}</span>`;
      // at 100 rounds at least one of the two counts is not settled, so the page must show a range
      expect(mc(cli!.separatedMonteCarlo) + mc(cli!.referenceSeparatedMonteCarlo)).not.toBe('');
      const csv = await (await app.request('/api/health.csv')).text();
      expect(csv.split('\r\n')[0]).toMatch(
        /^judge,reference,models,pairs,separated,separability,referenceSeparated,referenceSeparability,agreedPairs,opposedPairs,agreementWithConfidence,brier,brierReferenceBootstrap,spearman/,
      );
      const page = await html('/health');
      expect(page).toContain('Benchmark health against the experts');
      // the judge's separability, then the experts' own beside it; agreement in Arena-Hard's [−1, 1]; both Briers
      expect(page).toContain(
        `${(100 * cli!.separability).toFixed(1)}% (${cli!.separated}/15)${mc(cli!.separatedMonteCarlo)}</td><td>${(100 * cli!.referenceSeparability).toFixed(1)}% (${cli!.referenceSeparated}/15)${mc(cli!.referenceSeparatedMonteCarlo)}</td><td>${cli!.agreementWithConfidence.toFixed(3)}</td><td>${cli!.brier.toFixed(4)}</td><td>${cli!.brierReferenceBootstrap.toFixed(4)}</td>`,
      );
      expect(page).toMatch(/<a href="\/health"[^>]*>Health<\/a>/);
      // the same table on /judges, beside the judge board
      const judges = await html('/judges');
      expect(judges).toContain('Benchmark health against the experts');
      expect(judges).toContain(
        `${(100 * cli!.separability).toFixed(1)}% (${cli!.separated}/15)${mc(cli!.separatedMonteCarlo)}`,
      );
    }, 180_000);

    it('/style and /api/style show `arena ratings --style length,markdown`, ranks side by side, coefficients with intervals', async () => {
      const cli = await arenaJson<{
        rows: { model: string; rating: number; rank: number; rawRank: number }[];
        features: { feature: string; coefficient: number; se: number; lo: number; hi: number }[];
      }>([
        'ratings',
        '--db',
        file,
        '--judge',
        'gpt-4',
        '--style',
        'length,markdown',
        '--rounds',
        String(ROUNDS),
      ]);
      const rows =
        await json<{ model: string; rating: number; rank: number; rawRank: number }[]>(
          '/api/style?judge=gpt-4',
        );
      expect(rows).toEqual(
        cli.rows.map((r) =>
          expect.objectContaining({ model: r.model, rating: r.rating, rank: r.rank, rawRank: r.rawRank }),
        ),
      );
      const features = await json<{ feature: string; coefficient: number; lo: number; hi: number }[]>(
        '/api/style-features?judge=gpt-4',
      );
      expect(features).toEqual(
        cli.features.map(({ feature, coefficient, se, lo, hi }) => ({ feature, coefficient, se, lo, hi })),
      );
      const page = await html('/style?judge=gpt-4');
      expect(page).toContain('rank (UB), style-controlled');
      expect(page).toContain('rank (UB), raw');
      for (const f of cli.features)
        expect(page).toContain(`<th scope="row">${f.feature}</th><td>${f.coefficient.toFixed(3)}</td>`);
      expect(page).toContain('Left out (the same in every battle): bold');
      // headers rest on a single answer under GPT-4: listed as not estimable, with the reason
      expect(page).toContain(
        '<th scope="row">headers</th><td colspan="4">not estimable: 1 answer carries it',
      );
      expect(cli.features.map((f) => f.feature)).not.toContain('headers');
      expect((await app.request('/style?judge=nobody')).status).toBe(404);
    }, 180_000);
  },
);
