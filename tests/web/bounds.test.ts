// The site under junk and huge data: unknown query parameters are 400s on tables, charts and endpoints and never
// cached; pages by key are never held; a page shows at most MAX_PAGE_TEXT characters, the JSON all.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/web/app.ts';
import { MAX_PAGE_TEXT } from '../../src/web/clip.ts';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { ANSWERS, makeGame, PROMPTS, QUESTIONS } from '../storage/contract.ts';

async function site(o: { reply?: string } = {}) {
  const store = openMemoryStore();
  const games = [
    makeGame({ reply: o.reply ?? 'A is better. [[A]]', verdict: 'model_1' }),
    makeGame({ order: 'BA', reply: 'B. [[B]]', verdict: 'model_1' }),
  ];
  await store.importBundle({
    questions: { source: 'q.jsonl', items: QUESTIONS },
    answers: [{ source: 'a.jsonl', items: ANSWERS }],
    prompts: PROMPTS,
    games,
  });
  const app = createApp({ store, cache: { checkMs: 60_000 }, bootstrapRounds: 20, adminToken: 't' });
  /** how many values the site's data cache holds (its admin endpoint says) */
  const held = async () =>
    (
      (await (
        await app.request('/api/admin/reports', { headers: { Authorization: 'Bearer t' } })
      ).json()) as {
        cached: number;
      }
    ).cached;
  return { store, held, app };
}

describe('query parameters and the result cache', () => {
  it('an unknown query parameter is a 400 naming it on tables, charts and endpoints, ignored on pages; 2,000 junk URLs add nothing to the cache', async () => {
    const { app, held, store } = await site();
    for (const path of ['/', '/judges', '/matrix', '/runs', '/matches']) {
      expect((await app.request(`${path}?nocache=1`)).status, path).toBe(200);
    }
    for (const path of [
      '/api/leaderboard',
      '/api/runs.csv',
      '/api/standings',
      '/charts/winrate.svg',
      '/api',
    ]) {
      const ok = await app.request(path);
      expect(ok.status, path).toBe(200);
      const r = await app.request(`${path}?nocache=1`);
      expect(r.status, path).toBe(400);
      expect((await r.text()).replace(/&#34;|\\"/g, '"')).toContain('unknown query parameter "nocache"');
    }
    expect((await app.request('/?judge=judge-x')).status).toBe(200);
    const before = await held();
    for (let i = 0; i < 2000; i++)
      expect((await app.request(`/?judge=judge-x&junk${i}=${i}`)).status).toBe(200);
    // values the endpoint reads but refuses are not cached either
    for (let i = 0; i < 200; i++)
      expect((await app.request(`/api/standings?judge=judge-x&mode=junk${i}`)).status).toBe(400);
    for (let i = 0; i < 200; i++)
      expect((await app.request(`/refreshes?limit=${'0'.repeat(i + 1)}5`)).status).toBe(400);
    expect(await held()).toBe(before);
    // the known parameters still work, in any order, and share one entry
    const a = await app.request('/?turn=1&judge=judge-x');
    const b = await app.request('/?judge=judge-x&turn=1');
    expect(a.status).toBe(200);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    await store.close();
  });

  it('a match, read by key, is never held: browsing matches adds nothing to the cache', async () => {
    const { app, held, store } = await site({ reply: `${'long judge text '.repeat(20_000)}[[A]]` });
    // what every match reads (the questions, the judges' votes) is held once
    expect((await app.request('/matches?question=81&a=alpha&b=beta')).status).toBe(200);
    const before = await held();
    for (let round = 0; round < 3; round++)
      for (const path of [
        '/api/games?question=81&a=alpha&b=beta',
        '/api/match?question=81&a=alpha&b=beta',
        '/matches?question=81&a=beta&b=alpha',
        '/api/match?question=81&a=beta&b=alpha',
      ])
        expect((await app.request(path)).status, path).toBe(200);
    expect(await held()).toBe(before);
    await store.close();
  });
});

describe('huge texts on pages', () => {
  it(`a 10 MB judge reply: /matches shows ${MAX_PAGE_TEXT.toLocaleString('en-US')} characters of it and says how much is left out; /api/match has all of it`, async () => {
    const reply = `${'x'.repeat(10_000_000)} [[A]]`;
    const { app, store } = await site({ reply });
    const page = await (await app.request('/matches?question=81&a=alpha&b=beta')).text();
    expect(page.length).toBeLessThan(1_000_000);
    expect(page).toContain(
      `[… ${(reply.length - MAX_PAGE_TEXT).toLocaleString('en-US')} more characters not shown`,
    );
    const json = (await (await app.request('/api/match?question=81&a=alpha&b=beta')).json()) as {
      games: { reply: string }[];
    };
    expect(json.games.map((g) => g.reply.length)).toContain(reply.length);
    await store.close();
  });
});
