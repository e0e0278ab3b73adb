// Shared links: pages ignore unread query parameters (utm_*, fbclid) and are never cached under them; the JSON API
// stays strict; unknown judges and prototype names are 404s; data sources shown; costs private.
import { describe, expect, it } from 'vitest';
import { serveNode } from '../../src/entry/node.ts';
import { openMemoryStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { ANSWERS, makeGame, PROMPTS, QUESTIONS } from '../storage/contract.ts';

async function site(siteUrl?: string) {
  const store = openMemoryStore();
  await store.importBundle({
    questions: { source: 'q.jsonl', items: QUESTIONS },
    answers: [{ source: 'a.jsonl', items: ANSWERS }],
    prompts: PROMPTS,
    games: [
      makeGame({ reply: 'A. [[A]]', verdict: 'model_1' }),
      makeGame({ order: 'BA', reply: 'B. [[B]]', verdict: 'model_1' }),
    ],
  });
  const o = { cache: { checkMs: 60_000 }, bootstrapRounds: 20, adminToken: 't' };
  const app = createApp({ store, ...o, ...(siteUrl ? { siteUrl } : {}) });
  /** how many values the site's data cache holds (its admin endpoint says) */
  const held = async () =>
    (
      (await (
        await app.request('/api/admin/reports', { headers: { Authorization: 'Bearer t' } })
      ).json()) as {
        cached: number;
      }
    ).cached;
  return { store, o, app, held };
}
const JUNK = 'utm_source=x&utm_medium=social&fbclid=abc&gclid=1&ref=hn';

describe('shared links', () => {
  it('pages ignore unknown parameters: 200, the canonical page byte for byte, no new cache entry', async () => {
    const { app, held, store } = await site('https://arena.example/');
    for (const path of [
      '/',
      '/judges',
      '/matrix?judge=judge-x',
      '/runs',
      '/refreshes',
      '/health',
      '/variants',
      '/matches',
    ]) {
      const plain = await app.request(path);
      expect(plain.status, path).toBe(200);
      const body = await plain.text();
      const sep = path.includes('?') ? '&' : '?';
      const shared = await app.request(`${path}${sep}${JUNK}`);
      expect(shared.status, path).toBe(200);
      expect(await shared.text(), path).toBe(body);
      expect(body).toContain(`<link rel="canonical" href="https://arena.example${path}">`);
      expect(body).toContain('<meta property="og:title"');
      expect(body).toMatch(/<meta name="description" content="[^"]{20,}">/);
    }
    const before = await held();
    for (let i = 0; i < 500; i++)
      expect((await app.request(`/?utm_campaign=c${i}&fbclid=${i}`)).status).toBe(200);
    expect(await held()).toBe(before);
    // known parameters are still checked, and the canonical link keeps them (in the schema's order)
    expect((await app.request(`/?turn=3&${JUNK}`)).status).toBe(400);
    const filtered = await (await app.request(`/?turn=1&${JUNK}&judge=judge-x`)).text();
    expect(filtered).toContain(
      '<link rel="canonical" href="https://arena.example/?judge=judge-x&amp;turn=1">',
    );
    await store.close();
  });

  it('the JSON API stays strict; unknown judges and prototype names are 404; /api/games says what it needs', async () => {
    const { app, store } = await site();
    const r = await app.request(`/api/leaderboard?${JUNK}`);
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('unknown query parameter');
    const nope = await app.request('/api/standings?judge=nope');
    expect(nope.status).toBe(404);
    expect(await nope.text()).toContain('no judge named \\"nope\\"');
    for (const p of [
      '/api/constructor',
      '/api/constructor.csv',
      '/api/__proto__',
      '/api/tostring',
      '/api/hasownproperty',
      '/api/valueof',
    ]) {
      const x = await app.request(p);
      expect(x.status, p).toBe(404);
    }
    const games = await app.request('/api/games');
    expect(games.status).toBe(400);
    const msg = ((await games.json()) as { error: string }).error;
    expect(msg).toContain('/api/games needs "question", "a", "b" (missing: question, a, b)');
    expect(msg).toContain('for example /api/games?question=81&a=gpt-4&b=claude-v1');
    const index = (await (await app.request('/api')).json()) as {
      tables: Record<string, { needs?: string[] }>;
    };
    expect(index.tables.games!.needs).toEqual(['question', 'a', 'b']);
    expect((await app.request('/api/games?question=81&a=alpha&b=beta')).status).toBe(200);
    await store.close();
  });

  it('over real HTTP, junk URLs get the canonical bytes', async () => {
    const { store, o } = await site();
    const server = await serveNode(store, { port: 0, ...o });
    try {
      const a = await fetch(`${server.url}/judges`);
      const body = await a.text();
      for (let i = 0; i < 50; i++) {
        const b = await fetch(`${server.url}/judges?utm_source=${i}`);
        expect(b.status).toBe(200);
        expect(await b.text()).toBe(body);
      }
      expect((await fetch(`${server.url}/api/judges?fbclid=1`)).status).toBe(400);
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe('what browsers and crawlers ask for', () => {
  it('/favicon.ico is an ICO, /robots.txt answers, /models lists every model with a link; Node compresses', async () => {
    const { store, o, app } = await site();
    const ico = new Uint8Array(await (await app.request('/favicon.ico')).arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image of 16 x 16 at 32 bits per pixel
    expect([...ico.slice(0, 8)]).toEqual([0, 0, 1, 0, 1, 0, 16, 16]);
    expect(ico.length).toBe(6 + 16 + 40 + 16 * 16 * 4 + 16 * 4);
    expect(await (await app.request('/robots.txt')).text()).toMatch(/^User-agent: \*$/m);
    const models = await (await app.request('/models')).text();
    expect(models).toContain('<a href="/models/alpha">alpha</a>');
    expect(models).toContain('<a href="/models" aria-current="page">Models</a>');
    const server = await serveNode(store, { port: 0, ...o });
    try {
      const plain = await fetch(`${server.url}/`, { headers: { 'Accept-Encoding': 'identity' } });
      const body = await plain.text();
      expect(plain.headers.get('content-encoding')).toBeNull();
      for (let i = 0; i < 2; i++) {
        // fetch decodes the body itself; the header says it came compressed, and the bytes are the same page
        const gz = await fetch(`${server.url}/`, { headers: { 'Accept-Encoding': 'gzip' } });
        expect(gz.headers.get('content-encoding')).toBe('gzip');
        expect(await gz.text()).toBe(body);
      }
      expect(
        (await app.request('/', { headers: { 'Accept-Encoding': 'gzip' } })).headers.get('content-encoding'),
      ).toBeNull();
    } finally {
      await server.close();
      await store.close();
    }
  });
});

describe('provenance and cost', () => {
  it('the footer names the newest run; /refreshes publishes cost only when the refresh config opts in', async () => {
    const { app, store } = await site();
    expect(await (await app.request('/')).text()).toContain('no run or refresh recorded yet');
    const { store: s2, app: app2 } = await site();
    await s2.runs.save({
      id: 'run-7',
      startedAt: Date.UTC(2026, 0, 2),
      finishedAt: Date.UTC(2026, 0, 2, 1),
      judge: 'judge-x',
      mode: 'pairwise-all',
      config: {},
      planned: 1,
      toPlay: 1,
      played: 1,
      failed: 0,
      tokensIn: 1,
      tokensOut: 1,
      status: 'done',
    });
    const refresh = (showCost?: boolean) => ({
      id: `refresh-${String(showCost)}`,
      startedAt: Date.UTC(2026, 0, 2),
      finishedAt: Date.UTC(2026, 0, 2, 2),
      status: 'ok' as const,
      config: { file: 'r.json', config: showCost === undefined ? {} : { publish: { showCost } } },
      summary: { played: 1, failed: 0, estCost: 7.77 },
      degraded: null,
      cost: 12.34,
    });
    await s2.refreshes.save(refresh());
    for (const path of ['/', '/judges', '/runs', '/health']) {
      const html = await (await app2.request(path)).text();
      expect(html, path).toMatch(
        /Data last changed [^<]+ by refresh <a href="\/refreshes">refresh-undefined<\/a> \(ok\), newest run <a href="\/runs">run-7<\/a>/,
      );
    }
    const hidden = await (await app2.request('/refreshes')).text();
    expect(hidden).not.toContain('12.34');
    expect(hidden).not.toContain('7.77');
    expect(
      ((await (await app2.request('/api/refreshes')).json()) as { cost: unknown }[])[0]!.cost,
    ).toBeNull();
    const { store: s3, app: app3 } = await site();
    await s3.refreshes.save(refresh(true));
    expect(await (await app3.request('/refreshes')).text()).toContain('12.34');
    await Promise.all([store.close(), s2.close(), s3.close()]);
  });

  it("a refresh's cost stays private everywhere: its cron line and its runs' costs too, unless it opts in", async () => {
    const save = async (showCost: boolean | undefined) => {
      const { store, app } = await site();
      const id = `refresh-${String(showCost)}`;
      await store.refreshes.save({
        id,
        startedAt: Date.UTC(2026, 0, 2),
        finishedAt: Date.UTC(2026, 0, 2, 2),
        status: 'ok',
        config: { file: 'r.json', config: showCost === undefined ? {} : { publish: { showCost } } },
        summary: {
          played: 3,
          failed: 0,
          estCost: 7.77,
          line: `refresh ${id.slice(0, 8)}: OK; 0 new model(s), 0 changed answer(s); 3 played, 0 failed; $12.3456 spent, $0.0100 of it estimated (cost not reported) (est. $7.7700); canary change 0%; 4.2 s`,
        },
        degraded: null,
        cost: 12.3456,
      });
      const run = { startedAt: Date.UTC(2026, 0, 2, 1), judge: 'judge-x', mode: 'pairwise-all' } as const;
      const counts = { planned: 3, toPlay: 3, played: 3, failed: 0, tokensIn: 10, tokensOut: 10 } as const;
      // played by the refresh (its run config names it), and one played by hand (`arena run`)
      await store.runs.save({
        id: 'run-r',
        ...run,
        ...counts,
        config: { refresh: id },
        status: 'done',
        cost: 5.4321,
      });
      await store.runs.save({ id: 'run-h', ...run, ...counts, config: {}, status: 'done', cost: 0.9876 });
      return { store, app };
    };
    for (const showCost of [undefined, false, true]) {
      const { store, app } = await save(showCost);
      const shown = showCost === true;
      const pages = await Promise.all(
        ['/refreshes', '/api/refreshes', '/api/refreshes.csv', '/runs', '/api/runs', '/api/runs.csv'].map(
          async (p) => [p, await (await app.request(p)).text()] as const,
        ),
      );
      for (const [p, body] of pages) {
        if (!shown)
          for (const cost of ['12.34', '7.77', '5.43', '0.0100'])
            expect(body, `${p} (showCost ${String(showCost)})`).not.toContain(cost);
        // a run played by hand is the operator's own page's business: its cost shows either way
        if (p.includes('runs')) expect(body, p).toContain('0.9876');
      }
      const line = ((await (await app.request('/api/refreshes')).json()) as { line: string }[])[0]!.line;
      expect(line).toContain('3 played, 0 failed');
      expect(line).toContain('canary change 0%; 4.2 s');
      expect(line.includes('$12.3456 spent, $0.0100 of it estimated')).toBe(shown);
      const runs = (await (await app.request('/api/runs')).json()) as { id: string; cost: number | null }[];
      expect(runs.find((r) => r.id === 'run-r')!.cost).toBe(shown ? 5.4321 : null);
      await store.close();
    }
  });
});
