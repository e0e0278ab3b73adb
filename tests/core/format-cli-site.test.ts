// One number format per kind of figure: the same database through the CLI's tables and the site's pages spells
// every figure identically, because both call src/core/format.ts.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as figures from '../../src/core/format.ts';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { arenaOk, playOwn, tmpDir } from '../support/cli.ts';

const MODELS = ['arena-sage', 'arena-echo', 'arena-drift', 'arena-swift'];
const ROUNDS = 1000; // the CLI's default, which `arena judges --board` uses

/** The text of every cell (td) of the table row whose header cell names `model`, tags stripped. */
function siteRow(html: string, model: string): string[] {
  const row = [...html.matchAll(/<tr>(.*?)<\/tr>/gs)]
    .map((m) => m[1]!)
    .find((r) => new RegExp(`<th scope="row"[^>]*>(<a [^>]*>)?${model}(</a>)?`).test(r));
  expect(row, `a row for ${model}`).toBeDefined();
  return [...row!.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());
}

/** The cells of the CLI table row with a cell `model` (columns are two or more spaces apart; " *" marks a preliminary model). */
function cliRow(text: string, model: string): string[] {
  const row = text
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/))
    .find((cells) => cells.includes(model) || cells.includes(`${model} *`));
  expect(row, `a line for ${model}`).toBeDefined();
  return row!;
}

describe('the CLI and the site spell the same figures identically', { timeout: 300_000 }, () => {
  let db: string;
  let store: SqliteStore;
  let app: ReturnType<typeof createApp>;
  const page = async (path: string) => {
    const r = await app.request(path);
    expect(r.status, path).toBe(200);
    return r.text();
  };
  beforeAll(async () => {
    db = join(tmpDir('arena-format-'), 'arena.db');
    await playOwn(db, 'mock/longer', MODELS.join(','));
    store = openSqliteStore(db, { readonly: true });
    app = createApp({ store, bootstrapRounds: ROUNDS });
  }, 200_000);
  afterAll(async () => {
    await store?.close();
  });

  it('standings, ratings and intervals: the leaderboard row and the CLI rows', async () => {
    const html = await page('/leaderboard?judge=mock/longer');
    const standings = await arenaOk(['standings', '--db', db, '--judge', 'mock/longer']);
    const ratings = await arenaOk(['ratings', '--db', db, '--judge', 'mock/longer']);
    const intervals = await arenaOk([
      'intervals',
      '--db',
      db,
      '--judge',
      'mock/longer',
      '--rounds',
      String(ROUNDS),
    ]);
    const header = intervals
      .split('\n')
      .find((l) => l.includes('rank (UB)'))!
      .trim()
      .split(/\s{2,}/);
    let decimals = 0;
    let bounded = 0;
    for (const model of MODELS) {
      const site = siteRow(html, model); // rank, win, loss, tie, inconsistent, error, win rate, adjusted, rating, interval, rank range
      const cli = cliRow(standings, model); // model, win, loss, tie, error, inconsistent, winRate, lossRate, winRateAdjusted
      expect(cli[6]).toBe(site[6]);
      expect(cli[8]).toBe(site[7]);
      expect(cli[6]).toMatch(/^\d\.\d{4}$/);
      if (!/^[01]\.0000$/.test(cli[8]!)) decimals++;
      const r = cliRow(ratings, model)[1];
      if (r === '–') {
        expect(site[8]).toMatch(/^(–|not estimable)/); // no rating: the site names why in the cell
        continue;
      }
      expect(r).toBe(site[8]);
      expect(site[8]).toMatch(/^\d+$/);
      const iv = cliRow(intervals, model);
      expect(iv[header.indexOf('rating')]).toBe(site[8]);
      const [lo, hi] = [iv[header.indexOf('95% lo')], iv[header.indexOf('95% hi')]];
      if (lo === '–' || hi === '–')
        expect(['–', 'not estimated']).toContain(site[9]); // a note, not a figure
      else {
        expect(`${lo} – ${hi}`).toBe(site[9]);
        bounded++;
      }
    }
    // our own question set has 24 questions, below the small-sample minimum (MIN_QUESTIONS_FOR_INTERVALS): no
    // interval on either side, and the CLI says why
    expect(bounded).toBe(0);
    expect(intervals).toContain('(fewer than 30): the question bootstrap needs about 30');
    expect(decimals).toBeGreaterThan(0); // the rates differ from 0 and 1, so their decimals are really compared
  });

  it('runs: counts with thousands separators and the cost, as on /runs', async () => {
    const html = await page('/runs');
    const text = await arenaOk(['runs', '--db', db]);
    const [run] = await store.runs.list();
    expect(run!.tokensIn).toBeGreaterThan(999);
    const site = siteRow(html, figures.time(run!.startedAt).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const cli = text.split('\n')[2]!;
    for (const shown of [
      figures.count(run!.tokensIn),
      figures.count(run!.tokensOut),
      figures.usd(run!.cost),
      figures.time(run!.startedAt),
    ]) {
      expect(site.join(' | ') + ` | ${figures.time(run!.startedAt)}`).toContain(shown);
      expect(cli).toContain(shown);
    }
    expect(cli).toMatch(/\d,\d{3}/);
  });

  it('the judge board: shares with their intervals, counts, cost and seconds per 1,000 games', async () => {
    const html = await page('/judges');
    const text = await arenaOk(['judges', '--db', db, '--board']);
    const behaviour = text.slice(text.indexOf('behaviour'));
    const site = siteRow(html.slice(html.indexOf('Behaviour, from each judge')), 'mock/longer'); // games, 5 shares, $/1k, s/1k
    const cli = cliRow(behaviour, 'mock/longer'); // judge, games, from, 5 shares, $/1k, s/1k
    expect(cli[1]).toBe(site[0]);
    expect(cli.slice(3, 8)).toEqual(site.slice(1, 6));
    expect(cli.slice(8, 10)).toEqual(site.slice(6, 8));
    expect(site.slice(1, 6).some((s) => /^\d+\.\d% \(\d+\.\d% – \d+\.\d%\)$/.test(s))).toBe(true);
    expect(site[7]).toMatch(/^\d+\.\d s$/);
  });
});

describe('core/format.ts', () => {
  it('one spelling per kind of figure', () => {
    expect([
      figures.rate(0.625),
      figures.pct(0.625),
      figures.rating(1043.49),
      figures.interval(997.6, 1043.4),
      figures.kappa(0.61234),
    ]).toEqual(['0.6250', '62.5%', '1043', '998 – 1043', '0.612']);
    expect([
      figures.count(12345),
      figures.usd(0.01234),
      figures.usd(1234.5),
      figures.seconds(1.25),
      figures.time(Date.UTC(2026, 10, 22, 19, 51, 42)),
    ]).toEqual(['12,345', '$0.0123', '$1,234.5000', '1.3 s', '2026-11-22 19:51 UTC']);
    for (const f of [
      figures.rate,
      figures.pct,
      figures.rating,
      figures.kappa,
      figures.count,
      figures.usd,
      figures.seconds,
    ]) {
      expect([f(null), f(undefined), f(NaN)]).toEqual(['–', '–', '–']);
    }
    expect(figures.interval(null, 3)).toBe('–');
    expect(figures.interval(0.1, 0.25, figures.pct)).toBe('10.0% – 25.0%');
  });
});
