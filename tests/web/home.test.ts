// The home page read in a minute (issue 38, item 1): one judge's board, the default judge picked by the rule, at
// most six columns, the rest one link away. In-process over the site's test database; layout and axe: a11y.test.ts.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderRow } from '../../src/reports/site/leaderboards.ts';
import { boardMatches, defaultJudge } from '../../src/reports/site/home.ts';
import type { SqliteStore } from '../../src/storage/sqlite.ts';
import { createJudge } from '../../src/judges/registry.ts';
import { loadRefreshConfig } from '../../src/ops/config.ts';
import { refresh } from '../../src/ops/refresh/index.ts';
import { createApp } from '../../src/web/app.ts';
import { tmpDir } from '../support/cli.ts';
import { writeConfig } from '../ops/helpers.ts';
import { buildFixture, MTBENCH_DIR } from './fixture.ts';

/** A board row with `n` matches (all won: only the count matters here). */
const row = (model: string, n: number) => ({ model, win: n, loss: 0, tie: 0, error: 0 }) as LeaderRow;
const board = (judge: string, ...counts: number[]) => ({
  judge,
  rows: counts.map((n, k) => row(`m${k}`, n)),
});

describe('the default judge', () => {
  const boards = [board('human', 50, 50), board('gpt-4', 10, 10), board('judge-b', 20, 20)];
  it('is the one with the most matches, never the people', () => {
    expect(boardMatches(boards[0]!.rows)).toBe(50);
    expect(defaultJudge(boards, {})).toBe('judge-b');
    expect(defaultJudge([board('human', 5), board('annotators', 9)], {})).toBe('human');
    expect(defaultJudge([], {})).toBeUndefined();
  });
  it('ties keep the order of the judges', () => {
    expect(defaultJudge([board('human', 9), board('a', 4), board('b', 4)], {})).toBe('a');
  });
  it("a publisher's choice comes first, then the board a succession made current", () => {
    const notes = { 'gpt-4': { state: 'current', since: 1, other: 'x', why: '' } } as const;
    expect(defaultJudge(boards, notes)).toBe('gpt-4');
    expect(defaultJudge(boards, notes, 'human')).toBe('human');
    // a name the database does not know is no choice
    expect(defaultJudge(boards, {}, 'nobody')).toBe('judge-b');
  });
});

const headers = (html: string) =>
  [...html.slice(0, html.indexOf('</thead>')).matchAll(/<th scope="col"[^>]*>([\s\S]*?)<\/th>/g)].map((m) =>
    m[1]!.replace(/<[^>]+>/g, ''),
  );
const caption = (html: string) => html.match(/<caption[^>]*>([^<]*)<\/caption>/)?.[1];

describe.skipIf(!existsSync(MTBENCH_DIR))('the home page', () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = (await buildFixture()).store;
  }, 200_000);
  afterAll(async () => {
    await store?.close();
  });

  it("shows gpt-4's board in five columns, though the experts have more matches", async () => {
    const app = createApp({ store, bootstrapRounds: 20 });
    const lb = async (j: string) =>
      (await (await app.request(`/api/leaderboard?judge=${j}`)).json()) as LeaderRow[];
    expect(boardMatches(await lb('human'))).toBeGreaterThan(boardMatches(await lb('gpt-4')));
    const html = await (await app.request('/')).text();
    expect(caption(html)).toBe('Judge gpt-4 · both turns');
    expect(headers(html)).toEqual(['rank', 'model', 'rating', '95% interval', 'matches']);
    expect(html.match(/<table/g)).toHaveLength(1);
    // each row: rank, model, rating, interval, matches (800 for every model of the release: 80 questions,
    // 2 turns, 5 opponents)
    const rows = [
      ...html.matchAll(/<tr><td[^>]*>(\d+)[^<]*(?:<span[^>]*>[^<]*<\/span>)?<\/td><th[\s\S]*?<\/tr>/g),
    ];
    expect(rows).toHaveLength(6);
    for (const r of rows) expect(r[0]).toMatch(/<td>800<\/td><\/tr>$/);
    // every other figure one link away: the details, the model pages, the judges, and each explanation once
    expect(html).toContain('href="/leaderboard?judge=gpt-4"');
    expect(html).toContain('href="/models/gpt-4?judge=gpt-4"');
    expect(html).toContain('href="/judges"');
    for (const id of ['about-rank', 'about-rating', 'about-interval', 'about-matches']) {
      expect(html.split(`id="${id}"`)).toHaveLength(2);
      expect(html).toContain(`href="#${id}"`);
    }
  });

  it('shows the judge the visitor names; the details page keeps every table', async () => {
    const app = createApp({ store, bootstrapRounds: 20 });
    expect(caption(await (await app.request('/?judge=human&turn=2')).text())).toBe('Judge human · turn 2');
    expect((await app.request('/?judge=nobody')).status).toBe(404);
    const details = await (await app.request('/leaderboard')).text();
    for (const j of ['human', 'gpt-4', 'mock/longer']) expect(details).toContain(`<h2 id="judge-${j}">`);
    expect(headers(details)).toHaveLength(13);
  });

  it('the judge a refresh config names (publish.judge) is the default, though it has fewer matches', async () => {
    const file = writeConfig(tmpDir('arena-home-'), {
      url: 'http://127.0.0.1:9/v1',
      models: ['alpaca-13b', 'claude-v1'],
      judge: { id: 'mock/longer', baseURL: undefined },
      extra: { publish: { judge: 'mock/longer' } },
    });
    const config = loadRefreshConfig(file);
    await refresh({ store, judges: (j) => createJudge(j.id), config });
    const app = createApp({ store, bootstrapRounds: 20 });
    expect(caption(await (await app.request('/')).text())).toBe('Judge mock/longer · both turns');
  });

  it('a publish.judge that names no judge is said in the refresh log, and the default board stays', async () => {
    const file = writeConfig(tmpDir('arena-home-'), {
      url: 'http://127.0.0.1:9/v1',
      models: ['alpaca-13b', 'claude-v1'],
      judge: { id: 'mock/longer', baseURL: undefined },
      extra: { publish: { judge: 'gpt-4o-typo' } },
    });
    const lines: string[] = [];
    await refresh({
      store,
      judges: (j) => createJudge(j.id),
      config: loadRefreshConfig(file),
      log: (m) => lines.push(m),
    });
    expect(lines.filter((l) => l.includes('publish.judge "gpt-4o-typo"'))).toHaveLength(1);
    expect(lines.join('\n')).toContain('has no games in the database');
  });
});
