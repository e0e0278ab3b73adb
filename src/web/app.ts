import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { standings } from '../engine/results.ts';
import type { Store } from '../storage/store.ts';
import { render } from './views.ts';

/** The read-only leaderboard site over any Store (SQLite on Node, D1 on Workers). */
export function createApp({ store }: { store: Store }) {
  const app = new Hono();
  app.use(secureHeaders({ contentSecurityPolicy: { defaultSrc: ["'self'"], styleSrc: ["'self'", "'unsafe-inline'"], scriptSrc: ["'self'"], imgSrc: ["'self'", 'data:'] } }));

  const tables = async () => {
    const judges = (await store.listJudges()).filter((j) => j.judge !== 'author');
    const out = [];
    for (const j of judges) {
      const rows = await standings(store, { judge: j.judge, mode: 'pairwise-all' });
      if (rows.length) out.push({ judge: j.judge, mode: 'pairwise-all', rows });
    }
    return out;
  };

  app.get('/', async (c) => c.html(render('leaderboard', { tables: await tables() })));
  app.get('/api/standings', async (c) => {
    const judge = c.req.query('judge');
    const mode = c.req.query('mode') === 'pairwise-baseline' ? 'pairwise-baseline' : 'pairwise-all';
    const turn = c.req.query('turn') ? Number(c.req.query('turn')) : undefined;
    if (!judge) return c.json(await tables());
    return c.json(await standings(store, { judge, mode, ...(turn ? { turn } : {}), ...(c.req.query('baseline') ? { baseline: c.req.query('baseline')! } : {}) }));
  });
  app.get('/healthz', (c) => c.text('ok'));
  return app;
}
