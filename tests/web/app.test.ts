// The site in-process (`app.request`) over a real SQLite file with the MT-Bench release and played games.
import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../src/web/result-cache.ts';
import { toCsv } from '../../src/web/csv.ts';
import { markdown } from '../../src/web/markdown.ts';
import { createApp } from '../../src/web/app.ts';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { buildFixture } from './fixture.ts';
import { describeRoutes } from './routes.ts';

describeRoutes('in-process over SQLite', async () => {
  const { store } = await buildFixture();
  const app = createApp({ store, bootstrapRounds: 200 });
  return { request: async (path, init) => app.request(path, init), close: () => store.close() };
});

describe('single-answer grading against the stored games', () => {
  it('/api/single is the mean of the stored grades per model and turn', async () => {
    const { store } = await buildFixture();
    const app = createApp({ store, bootstrapRounds: 50 });
    const rows = (await (await app.request('/api/single?turn=1')).json()) as {
      judge: string;
      model: string;
      turn1: number;
      score: number;
      n: number;
    }[];
    const games = await store.games.list({ judge: 'mock/longer', kind: 'single' });
    for (const model of ['gpt-4', 'claude-v1']) {
      const grades = games
        .filter((g) => g.match.model1 === model && g.match.turn === 1)
        .map((g) => Number(g.verdict));
      expect(grades).toHaveLength(2);
      const row = rows.find((r) => r.judge === 'mock/longer' && r.model === model)!;
      expect(row.turn1).toBe((grades[0]! + grades[1]!) / 2);
      expect(row.score).toBe(row.turn1);
      expect(row.n).toBe(2);
    }
    await store.close();
  });
});

describe('site pieces', () => {
  it('fnv1a is FNV-1a 64 (published test vectors)', () => {
    expect(fnv1a('')).toBe('cbf29ce484222325');
    expect(fnv1a('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a('foobar')).toBe('85944171f73967e8');
  });

  it('CSV quotes what needs quoting and defuses spreadsheet formulas', () => {
    expect(
      toCsv(
        [
          { a: 'x,y', b: 'say "hi"', c: '=SUM(A1)' },
          { a: null, b: 1.5, c: 'line\nbreak' },
        ],
        ['a', 'b', 'c'],
      ),
    ).toBe('a,b,c\r\n"x,y","say ""hi""",\'=SUM(A1)\r\n,1.5,"line\nbreak"\r\n');
  });

  it('Markdown keeps formatting but never raw HTML or javascript: links', () => {
    const html = markdown(
      '**bold** `code` [ok](https://example.org) [bad](javascript:alert(1)) <b onclick=x>raw</b> ![i](http://x/y.png)',
    );
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="https://example.org" rel="nofollow noopener noreferrer ugc">ok</a>');
    expect(html).not.toContain('href="javascript:');
    expect(html).toContain('&lt;b onclick=x&gt;raw&lt;/b&gt;');
    expect(html).not.toContain('<img');
    // math keeps its characters: an operator between operands and TeX spans are never emphasis or escapes
    expect(markdown('17*20 = 340, plus 17*3 and $a*b*c$ and \\(x_1*y_1\\)')).toBe(
      '<p>17*20 = 340, plus 17*3 and $a*b*c$ and \\(x_1*y_1\\)</p>\n',
    );
  });

  it('a configured admin token opens the purge endpoint, and new data shows after a purge', async () => {
    const store = openMemoryStore();
    const app = createApp({ store, adminToken: 's3cret', cache: { checkMs: 60_000 } });
    expect(await (await app.request('/api/judges')).json()).toEqual([]);
    await store.importBundle({
      votes: [
        {
          source: 'v.csv',
          items: [
            {
              judge: 'human',
              voter: 'e1',
              questionId: 81,
              turn: 1,
              model1: 'a',
              model2: 'b',
              winner: 'model_1',
              line: 2,
            },
          ],
        },
      ],
    });
    // within checkMs the cached answer stands
    expect(await (await app.request('/api/judges')).json()).toEqual([]);
    expect(
      (await app.request('/api/admin/purge', { method: 'POST', headers: { Authorization: 'Bearer nope' } }))
        .status,
    ).toBe(401);
    expect(
      (await app.request('/api/admin/purge', { method: 'POST', headers: { Authorization: 'Bearer s3cret' } }))
        .status,
    ).toBe(200);
    expect(await (await app.request('/api/judges')).json()).toEqual([{ judge: 'human', games: 0, votes: 1 }]);
    await store.close();
  });

  it('new games show up by themselves once the data fingerprint is re-read', async () => {
    const store = openMemoryStore();
    const app = createApp({ store, cache: { checkMs: 0 } });
    expect(await (await app.request('/api/judges')).json()).toEqual([]);
    await store.importBundle({
      votes: [
        {
          source: 'v.csv',
          items: [
            {
              judge: 'gpt-4',
              voter: 'gpt4_pair',
              questionId: 81,
              turn: 1,
              model1: 'a',
              model2: 'b',
              winner: 'tie',
              line: 2,
            },
          ],
        },
      ],
    });
    expect(await (await app.request('/api/judges')).json()).toEqual([{ judge: 'gpt-4', games: 0, votes: 1 }]);
    await store.close();
  });
});
