// The read-only leaderboard site over any Store: SQLite on Node (src/entry/node.ts, `arena serve`),
// D1 on Workers (src/entry/worker.ts). Pages are server-rendered from compiled EJS views; every table
// is also served as JSON and CSV under /api. Responses are cached per data version with an ETag.
import * as figures from '../core/format.ts';
import { Hono, type Context } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { HTTPException } from 'hono/http-exception';
import { duelPair, judgeDuel } from '../reports/judge-duel.ts';
import { standings } from '../reports/results.ts';
import type { Store } from '../storage/store.ts';
import { ResultCache, fnv1a, type CacheOptions } from './cache.ts';
import { categoryBars, checkpointChart, judgeLines, matrixHeatmap, winRateBars } from './charts.ts';
import { toCsv } from './csv.ts';
import { checkpointTableRow, SiteData, type Filter } from './data.ts';
import { BOARD_COLUMNS, flatBoardRow } from '../reports/judge-board.ts';
import { markdown } from './markdown.ts';
import { HEALTH_COLUMNS, healthSection, healthTableRows, STYLE_COLUMNS, styleSection } from './reports.ts';
import { clip } from './clip.ts';
import { assets, render } from './views.ts';
import { HUMAN, REFERENCE_JUDGE } from '../core/constants.ts';

export interface AppOptions {
  store: Store;
  /** enables POST /api/admin/purge (Authorization: Bearer <token>); without it every write is refused */
  adminToken?: string;
  cache?: CacheOptions;
  /** a result cache to use (tests read its stats); default: one built from `cache` */
  resultCache?: ResultCache;
  /** bootstrap rounds behind the rating intervals (default 1000) */
  bootstrapRounds?: number;
  /** how the leaderboard's rating intervals are made: 'bootstrap' (default) or 'sandwich' (one fit, no resampling: for a Worker short of CPU) */
  intervals?: 'bootstrap' | 'sandwich';
}

/** The Content-Security-Policy of every page: nothing but this origin, no inline script or style. */
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** Hono's secureHeaders defaults, with the CSP above, no framing at all and no powerful features. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CSP,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Origin-Agent-Cluster': '?1',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=15552000; includeSubDomains',
  'X-Content-Type-Options': 'nosniff',
  'X-DNS-Prefetch-Control': 'off',
  'X-Download-Options': 'noopen',
  'X-Frame-Options': 'DENY',
  'X-Permitted-Cross-Domain-Policies': 'none',
  'X-XSS-Protection': '0',
};

const TYPES = { html: 'text/html; charset=utf-8', json: 'application/json; charset=utf-8', csv: 'text/csv; charset=utf-8', svg: 'image/svg+xml', css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8' } as const;
type Kind = keyof typeof TYPES;

/** A table served at /api/<name> (JSON) and /api/<name>.csv: its columns fix the shape of both. */
interface Table {
  /** the query parameters it reads (any other is a 400) */
  params?: readonly string[];
  columns: readonly string[];
  describe: string;
  rows(c: Context): Promise<object[]>;
}

const STANDING = ['model', 'win', 'loss', 'tie', 'inconsistent', 'error', 'winRate', 'lossRate', 'winRateAdjusted'] as const;

export function createApp(o: AppOptions) {
  const { store } = o;
  const cache = o.resultCache ?? new ResultCache(store, o.cache);
  const data = new SiteData(store, cache, { bootstrapRounds: o.bootstrapRounds ?? 1000, ...(o.intervals ? { intervals: o.intervals } : {}) });
  const app = new Hono();

  // Security headers on every response. Responses from `send` carry them already (precomputed per
  // cache entry, so the hot path builds no headers); everything else gets them here.
  const prebuilt = new WeakSet<Response>();
  app.use(async (c, next) => {
    await next();
    if (prebuilt.has(c.res)) return;
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) if (!c.res.headers.has(k)) c.res.headers.set(k, v);
  });

  // The public site is read-only: only the token-protected admin endpoints accept a write.
  app.use('*', async (c, next) => {
    const m = c.req.method;
    if (m === 'GET' || m === 'HEAD' || c.req.path.startsWith('/api/admin/')) return next();
    return c.json({ error: `${m} is not allowed: the site is read-only` }, 405, { Allow: 'GET, HEAD' });
  });
  app.use('/api/admin/*', async (c, next) => {
    if (!o.adminToken) return c.json({ error: 'write endpoints are disabled (no admin token configured)' }, 403);
    return bearerAuth({ token: o.adminToken })(c, next);
  });
  app.post('/api/admin/purge', (c) => {
    cache.clear();
    return c.json({ purged: true });
  });

  /**
   * Serve `compute()`'s bytes, cached per path, known query parameters and data version, with an ETag
   * and 304s. A query parameter the endpoint does not read is a 400 (and never part of a cache key); the
   * handlers check the values, and a failed check is never cached.
   */
  async function send(c: Context, kind: Kind, compute: () => Promise<string>, extra: Record<string, string> = {}): Promise<Response> {
    const known = queryParams(c);
    for (const name of Object.keys(c.req.queries())) {
      if (!known.includes(name)) throw new HTTPException(400, { message: `unknown query parameter "${name}" (${c.req.path} takes ${known.length ? known.map((k) => `"${k}"`).join(', ') : 'none'})` });
    }
    await cache.fresh();
    const key = JSON.stringify([kind, c.req.path, ...known.map((k) => c.req.query(k) ?? null)]);
    const entry = await cache.get(`resp:${key}`, async () => {
      const body = await compute();
      const etag = `"${fnv1a(body)}-${body.length.toString(36)}"`;
      const headers: Record<string, string> = { ...SECURITY_HEADERS, 'Content-Type': TYPES[kind], 'Cache-Control': 'public, max-age=0, must-revalidate', ETag: etag, ...extra };
      // ECharts writes inline style attributes; an SVG shown through <img> never runs script anyway
      if (kind === 'svg') headers['Content-Security-Policy'] = "default-src 'none'; style-src 'unsafe-inline'";
      // encoded once: the hot path hands the same bytes to every response
      return { body: new TextEncoder().encode(body), etag, headers };
    });
    const inm = c.req.header('If-None-Match');
    const notModified = inm !== undefined && inm.split(',').some((t) => t.trim() === entry.etag || t.trim() === `W/${entry.etag}`);
    const res = new Response(notModified ? null : entry.body, { status: notModified ? 304 : 200, headers: entry.headers });
    prebuilt.add(res);
    return res;
  }

  // ---- query parameters, checked against the data (an unknown value is a 404, a malformed one a 400)
  const FILTER = ['judge', 'turn', 'category'] as const;
  const MATCH = ['question', 'a', 'b'] as const;
  /** the query parameters each endpoint reads (a table's are listed with it) */
  const QUERY: Record<string, readonly string[]> = {
    '/': FILTER,
    '/matrix': FILTER,
    '/models/:model': ['judge'],
    '/matches': MATCH,
    '/refreshes': ['limit'],
    '/checkpoints': ['series'],
    '/charts/winrate.svg': [...FILTER, 'size'],
    '/charts/matrix.svg': FILTER,
    '/charts/checkpoints.svg': ['series', 'size'],
    '/charts/model.svg': ['judge', 'model'],
    '/api/standings': ['judge', 'mode', 'turn', 'baseline'],
    '/api/match': MATCH,
    '/style': ['judge'],
  };
  function queryParams(c: Context): readonly string[] {
    const table = /^\/api\/([a-z-]+)(\.csv)?$/.exec(c.req.path)?.[1];
    if (table && tables[table]) return tables[table]!.params ?? [];
    return QUERY[c.req.routePath] ?? [];
  }
  async function judgeParam(c: Context, fallback = true): Promise<string> {
    const judges = await data.rankedJudges();
    const j = c.req.query('judge');
    if (j === undefined || j === '') {
      const first = judges.includes(REFERENCE_JUDGE) ? REFERENCE_JUDGE : judges[0];
      if (fallback && first) return first;
      throw new HTTPException(400, { message: 'query parameter "judge" is required' });
    }
    if (!judges.includes(j)) throw new HTTPException(404, { message: `no judge named "${j}" (judges: ${judges.join(', ') || 'none'})` });
    return j;
  }
  async function filterParam(c: Context): Promise<Filter> {
    const f: Filter = {};
    const turn = c.req.query('turn');
    if (turn !== undefined && turn !== '' && turn !== 'both') {
      if (turn !== '1' && turn !== '2') throw new HTTPException(400, { message: `query parameter "turn": expected 1, 2 or both, got "${turn}"` });
      f.turn = Number(turn);
    }
    const category = c.req.query('category');
    if (category) {
      const cats = await data.categories();
      if (!cats.includes(category)) throw new HTTPException(404, { message: `no category named "${category}" (categories: ${cats.join(', ')})` });
      f.category = category;
    }
    return f;
  }
  async function modelParam(c: Context, name: string, value = c.req.query(name)): Promise<string> {
    const models = await allModels();
    if (!value) throw new HTTPException(400, { message: `query parameter "${name}" is required` });
    if (!models.includes(value)) throw new HTTPException(404, { message: `no model named "${value}"` });
    return value;
  }
  /** Models with answers, plus models that appear only in recorded verdicts. */
  async function allModels(): Promise<string[]> {
    return cache.get('allModels', async () => {
      const set = new Set(await data.models());
      for (const j of await data.rankedJudges()) for (const r of await data.leaderboard(j)) set.add(r.model);
      return [...set].sort();
    });
  }

  // ---- tables: /api/<name> and /api/<name>.csv
  const tables: Record<string, Table> = {
    leaderboard: {
      params: FILTER,
      describe: 'one judge\'s standings with Bradley–Terry rating and 95% interval (a note where not estimable), Rank (UB), the rank range from simultaneous intervals and the preliminary mark; ?judge=&turn=1|2|both&category= (group: set when the judge\'s models form groups that never met; ranks and ratings are per group)',
      columns: ['rank', ...STANDING, 'rating', 'ratingLo', 'ratingHi', 'ratingNote', 'rankUB', 'rankBest', 'rankWorst', 'preliminary', 'group'],
      rows: async (c) => data.leaderboard(await judgeParam(c), await filterParam(c)),
    },
    single: {
      params: ['turn', 'category'],
      describe: 'single-answer grading: each model\'s mean score (1–10) per turn and overall, per judge; ?turn=&category=',
      columns: ['judge', 'model', 'turn1', 'turn2', 'score', 'n', 'error'],
      rows: async (c) => (await data.single(await filterParam(c))).flatMap((t) => t.rows.map((r) => ({ judge: t.judge, ...r }))),
    },
    judges: { describe: 'every judge with its stored games and recorded votes', columns: ['judge', 'games', 'votes'], rows: () => data.judges() },
    consistency: {
      describe: 'each judge\'s consistency across the two orders of a match',
      columns: ['judge', 'matches', 'consistent', 'inconsistent', 'error', 'consistency'],
      rows: () => data.consistency(),
    },
    agreement: {
      describe: 'agreement of every pair of judges per turn, with ties (S1) and without (S2)',
      columns: ['judge1', 'judge2', 'turn', 'setup', 'total', 'agree', 'ratio', 'kappa', 'kappaLo', 'kappaHi', 'level'],
      rows: () => data.agreement(),
    },
    'position-bias': {
      describe: 'each judge\'s position bias: share of decisive games picking the first-shown answer, and how often the two orders conflict',
      columns: ['judge', 'source', 'games', 'errors', 'positionA', 'matches', 'conflicts', 'conflict', 'favoursFirst', 'favoursSecond', 'withTie', 'signTestP'],
      rows: () => data.bias(),
    },
    matrix: {
      params: FILTER,
      describe: 'the pairwise win matrix and battle counts of one judge; ?judge=&turn=&category=',
      columns: ['model', 'opponent', 'battles', 'win', 'loss', 'tie', 'error', 'winRateAdjusted'],
      rows: async (c) => (await data.matrix(await judgeParam(c), await filterParam(c))).cells,
    },
    'model-categories': {
      params: ['judge', 'model'],
      describe: 'one model\'s standing per category; ?model=&judge=',
      columns: ['category', ...STANDING],
      rows: async (c) => (await data.model(await judgeParam(c), await modelParam(c, 'model'))).byCategory,
    },
    'model-turns': {
      params: ['judge', 'model'],
      describe: 'one model\'s standing per turn; ?model=&judge=',
      columns: ['turn', ...STANDING],
      rows: async (c) => (await data.model(await judgeParam(c), await modelParam(c, 'model'))).byTurn,
    },
    'model-opponents': {
      params: ['judge', 'model'],
      describe: 'one model against each opponent, strongest showing first; ?model=&judge=',
      columns: ['model', 'opponent', 'battles', 'win', 'loss', 'tie', 'error', 'winRateAdjusted'],
      rows: async (c) => (await data.model(await judgeParam(c), await modelParam(c, 'model'))).opponents,
    },
    games: {
      params: MATCH,
      describe: 'the stored games of one question and two models, with full judge texts; ?question=&a=&b=',
      columns: ['id', 'judge', 'turn', 'order', 'model1', 'model2', 'verdict', 'parser', 'promptName', 'reply', 'createdAt', 'source'],
      rows: async (c) => ((await matchParam(c))?.games ?? []).map((g) => ({ ...g, turn: g.match.turn, model1: g.match.model1, model2: g.match.model2 })),
    },
    runs: {
      describe: 'the runs: when, which judge, how many games, tokens',
      columns: ['id', 'startedAt', 'finishedAt', 'judge', 'mode', 'status', 'planned', 'toPlay', 'played', 'failed', 'tokensIn', 'tokensOut', 'cost'],
      rows: () => data.runs(),
    },
    questions: { describe: 'the questions', columns: ['id', 'category', 'turns'], rows: () => data.questions() },
    'judge-board': {
      describe: 'the judge leaderboard: accuracy on labelled sets (overall and per set), agreement with the experts (S1 kappa, S2, per turn in `experts`), consistency, first-position preference, error, tie and longer-answer rates, cost and seconds per 1,000 games; `Lo`/`Hi` are 95% intervals',
      columns: BOARD_COLUMNS,
      rows: async () => (await data.judgeBoard()).map(flatBoardRow),
    },
    accuracy: {
      describe: 'accuracy of every judge on every labelled pair set (`arena accuracy`): items correct in each order and in both, order agreement, Cohen\'s kappa, with 95% intervals over items in `intervals`',
      columns: ['set', 'judge', 'prompt', 'total', 'missing', 'correctAB', 'correctBA', 'correctBoth', 'agreeOrders', 'errors', 'accuracyAB', 'accuracyBA', 'accuracy', 'accuracyBoth', 'agreeRate', 'kappaAB', 'kappaBA', 'kappaOrders', 'intervals', 'level'],
      rows: () => data.accuracy(),
    },
    refreshes: {
      params: ['limit'],
      describe: 'the last refreshes (`arena refresh`), newest first: status, why degraded, games played, calls, cost; ?limit= (default 30)',
      columns: ['id', 'startedAt', 'finishedAt', 'status', 'reasons', 'newModels', 'changedAnswers', 'played', 'failed', 'skipped', 'calls', 'cost', 'estCost', 'line'],
      rows: async (c) => data.refreshes(limitParam(c)),
    },
    checkpoints: {
      params: ['series'],
      describe: 'checkpoint tracking (`arena checkpoints`): per series, judge and checkpoint, the win rate vs the baseline and the paired differences vs the previous and the best earlier checkpoint, with 95% intervals; ?series=',
      columns: ['series', 'baseline', 'judge', 'checkpoint', 'step', 'model', 'n', 'winRate', 'winRateLo', 'winRateHi', 'previous', 'vsPrevious', 'vsPreviousLo', 'vsPreviousHi', 'bestSoFar', 'vsBest', 'vsBestLo', 'vsBestHi', 'best'],
      rows: async (c) => (await seriesParam(c)).flatMap((x) => x.rows.map((r) => checkpointTableRow(x.series, x.baseline, r))),
    },
  };

  // benchmark health and style control (src/web/reports.ts, views/health-table.ejs, views/style-table.ejs)
  const rounds = o.bootstrapRounds ?? 1000;
  tables.health = {
    describe: 'benchmark health of every judge against the experts: separability and agreement with confidence, pair-rank Brier score, Spearman and Kendall of the ratings with 95% intervals',
    columns: HEALTH_COLUMNS,
    rows: async () => healthTableRows(await healthSection(store, cache, { rounds })),
  };
  tables.style = {
    params: ['judge'],
    describe: 'one judge\'s Bradley–Terry ratings controlled for length and markdown, beside the raw ones, with 95% intervals and Rank (UB); ?judge=',
    columns: STYLE_COLUMNS,
    rows: async (c) => (await styleSection(store, cache, await judgeParam(c), { rounds })).rows,
  };
  tables['style-features'] = {
    params: ['judge'],
    describe: 'the style coefficients of one judge (log-odds per standard deviation) with 95% intervals; ?judge=',
    columns: ['feature', 'coefficient', 'lo', 'hi'],
    rows: async (c) => (await styleSection(store, cache, await judgeParam(c), { rounds })).features,
  };

  function limitParam(c: Context): number {
    const v = c.req.query('limit');
    if (v === undefined || v === '') return 30;
    if (!/^[1-9]\d{0,3}$/.test(v) || Number(v) > 1000) throw new HTTPException(400, { message: `query parameter "limit": expected a number from 1 to 1000, got "${v}"` });
    return Number(v);
  }
  /** All checkpoint series, or the one named by ?series= (404 when there is none of that name). */
  async function seriesParam(c: Context) {
    const all = await data.checkpoints();
    const name = c.req.query('series');
    if (name === undefined || name === '') return all;
    const one = all.filter((x) => x.series === name);
    if (!one.length) throw new HTTPException(404, { message: `no checkpoint series named "${name}" (series: ${all.map((x) => x.series).join(', ') || 'none'})` });
    return one;
  }

  async function matchParam(c: Context) {
    const q = c.req.query('question');
    if (!q || !/^(0|[1-9]\d{0,8})$/.test(q)) throw new HTTPException(400, { message: 'query parameter "question": expected a question id' });
    const a = await modelParam(c, 'a');
    const b = await modelParam(c, 'b');
    const m = await data.match(Number(q), a, b);
    if (!m) throw new HTTPException(404, { message: `no question ${q}` });
    return m;
  }

  const project = (rows: object[], columns: readonly string[]) => rows.map((r) => Object.fromEntries(columns.map((k) => [k, (r as Record<string, unknown>)[k] ?? null])));

  app.get('/api', (c) => send(c, 'json', async () => JSON.stringify({ tables: Object.fromEntries(Object.entries(tables).map(([k, t]) => [k, { json: `/api/${k}`, csv: `/api/${k}.csv`, columns: t.columns, describe: t.describe }])), other: { '/api/standings': 'FastChat-shaped standings (?judge=&mode=&turn=&baseline=)', '/api/match': 'one question and two models, everything (?question=&a=&b=)' } }, null, 1)));
  app.get('/api/:table{[a-z-]+\\.csv}', async (c) => {
    const name = c.req.param('table').replace(/\.csv$/, '');
    const t = tables[name];
    if (!t) throw new HTTPException(404, { message: `no table named "${name}" (see /api)` });
    return send(c, 'csv', async () => toCsv(await t.rows(c), t.columns), { 'Content-Disposition': `inline; filename="${name}.csv"` });
  });
  app.get('/api/standings', (c) =>
    send(c, 'json', async () => {
      const judge = c.req.query('judge');
      if (!judge) return JSON.stringify(await leaderboardTables({}));
      const m = c.req.query('mode');
      if (m !== undefined && m !== 'pairwise-all' && m !== 'pairwise-baseline') throw new HTTPException(400, { message: `query parameter "mode": expected pairwise-all or pairwise-baseline, got "${m}"` });
      const mode = m ?? 'pairwise-all';
      const t = c.req.query('turn');
      if (t !== undefined && t !== '1' && t !== '2') throw new HTTPException(400, { message: `query parameter "turn": expected 1 or 2, got "${t}"` });
      const turn = t ? Number(t) : undefined;
      const baseline = c.req.query('baseline') ? await modelParam(c, 'baseline') : undefined;
      return JSON.stringify(await standings(store, { judge, mode, ...(turn ? { turn } : {}), ...(baseline ? { baseline } : {}) }));
    }),
  );
  app.get('/api/match', (c) => send(c, 'json', async () => JSON.stringify(await matchParam(c))));
  app.get('/api/:table{[a-z-]+}', async (c) => {
    const name = c.req.param('table');
    const t = tables[name];
    if (!t) throw new HTTPException(404, { message: `no table named "${name}" (see /api)` });
    return send(c, 'json', async () => JSON.stringify(project(await t.rows(c), t.columns)));
  });

  // ---- pages
  const NAV = [
    ['/', 'Leaderboard'],
    ['/judges', 'Judges'],
    ['/matrix', 'Win matrix'],
    ['/matches', 'Matches'],
    ['/runs', 'Runs'],
    ['/refreshes', 'Refreshes'],
    ['/checkpoints', 'Checkpoints'],
    ['/health', 'Health'],
    ['/style', 'Style'],
    ['/api', 'API'],
  ] as const;
  const page = (c: Context, view: string, title: string, d: object) => render(view, { title, nav: NAV, path: c.req.path, css: assets.path('site.css'), js: assets.path('site.js'), f: FORMAT, md: (t: string) => markdown(clip(t)), clip, ...d });

  async function leaderboardTables(f: Filter, only?: string) {
    const out = [];
    for (const judge of only ? [only] : await data.rankedJudges()) {
      const rows = await data.leaderboard(judge, f);
      // one table per group of models that played one another (rows carry `group` only when there are several)
      const groups = [...new Set(rows.map((r) => r.group ?? 0))];
      for (const g of groups) out.push({ judge, mode: 'pairwise-all', rows: rows.filter((r) => (r.group ?? 0) === g), group: g, groups: groups.length });
    }
    return out;
  }
  /** What the leaderboard's introduction says about the data shown (never a hard-coded description). */
  async function introFacts(shown: { judge: string; rows: { model: string }[] }[], f: Filter) {
    const questions = (await data.questions()).filter((q) => !f.category || q.category === f.category).length;
    const judges = [...new Set(shown.map((t) => t.judge))];
    return { models: new Set(shown.flatMap((t) => t.rows.map((r) => r.model))).size, questions, judges: judges.map((j) => (j === HUMAN ? 'human experts' : j)), category: f.category, groups: shown.length > judges.length };
  }
  const qs = (p: Record<string, string | number | undefined>) => {
    const s = new URLSearchParams(Object.entries(p).filter(([, v]) => v !== undefined && v !== '') as [string, string][]).toString();
    return s ? `?${s}` : '';
  };

  app.get('/', (c) =>
    send(c, 'html', async () => {
      const f = await filterParam(c);
      const judge = c.req.query('judge') ? await judgeParam(c) : undefined;
      const tablesShown = await leaderboardTables(f, judge);
      const [latest] = await data.refreshes(1);
      // GPT-4 beside the Llama-2-70B judge (issue #10), when the database has both
      const pair = judge ? undefined : duelPair(await data.rankedJudges());
      const duel = pair ? await cache.get(`duel:${pair.join(':')}`, () => judgeDuel(store, ...pair, { judgeData: (j) => data.judgeData(j) })) : undefined;
      const duelBoards = pair ? Object.fromEntries(await Promise.all(pair.map(async (j) => [j, await data.leaderboard(j, f)] as const))) : {};
      return page(c, 'leaderboard', 'Leaderboard', {
        duel,
        duelBoards,
        refresh: latest && ALERT.has(latest.status) ? latest : undefined,
        tables: tablesShown,
        intro: await introFacts(tablesShown, f),
        single: (await data.single(f)).filter((t) => !judge || t.judge === judge),
        judges: await data.rankedJudges(),
        categories: await data.categories(),
        sel: { judge: judge ?? '', turn: f.turn ?? '', category: f.category ?? '' },
        chartQuery: qs({ turn: f.turn, category: f.category }),
        qs,
      });
    }),
  );
  app.get('/judges', (c) =>
    send(c, 'html', async () => {
      const judges = await data.rankedJudges();
      const boards = [];
      for (const judge of judges) boards.push({ judge, rows: await data.leaderboard(judge) });
      const models = (boards.find((b) => b.judge === HUMAN) ?? boards[0])?.rows.map((r) => r.model) ?? [];
      // the page's sections before the side-by-side tables: each a view and its data (add one here)
      const sections = [{ id: 'board', title: 'Judge leaderboard', view: 'judge-board', data: { board: await data.judgeBoard() } }];
      return page(c, 'judges', 'Judges', { sections, health: await healthSection(store, cache, { rounds }), boards, models, consistency: await data.consistency(), agreement: await data.agreement(), bias: await data.bias() });
    }),
  );
  app.get('/matrix', (c) =>
    send(c, 'html', async () => {
      const judge = await judgeParam(c);
      const f = await filterParam(c);
      const m = await data.matrix(judge, f);
      return page(c, 'matrix', `Win matrix · ${judge}`, { judge, ...m, judges: await data.rankedJudges(), categories: await data.categories(), sel: { judge, turn: f.turn ?? '', category: f.category ?? '' }, chartQuery: qs({ judge, turn: f.turn, category: f.category }) });
    }),
  );
  app.get('/models/:model', (c) =>
    send(c, 'html', async () => {
      const model = await modelParam(c, 'model', c.req.param('model'));
      const judge = await judgeParam(c);
      const m = await data.model(judge, model);
      const rated = m.opponents.filter((x) => x.winRateAdjusted !== null);
      return page(c, 'model', model, { model, judge, judges: await data.rankedJudges(), ...m, strongest: rated.at(-1), weakest: rated[0], chartQuery: qs({ judge, model }) });
    }),
  );
  app.get('/matches', (c) =>
    send(c, 'html', async () => {
      const questions = await data.questions();
      const models = await data.models();
      const hasPick = c.req.query('question') !== undefined;
      const match = hasPick ? await matchParam(c) : undefined;
      for (const k of ['a', 'b']) if (!hasPick && c.req.query(k)) await modelParam(c, k);
      const sel = { question: c.req.query('question') ?? '', a: c.req.query('a') ?? models[0] ?? '', b: c.req.query('b') ?? models[1] ?? '' };
      return page(c, 'matches', match ? `Question ${match.question.id}: ${match.modelA} vs ${match.modelB}` : 'Match browser', { questions, models, sel, match });
    }),
  );
  app.get('/health', (c) => send(c, 'html', async () => page(c, 'health', 'Benchmark health', { health: await healthSection(store, cache, { rounds }) })));
  app.get('/style', (c) =>
    send(c, 'html', async () => {
      const judge = await judgeParam(c);
      return page(c, 'style', `Style control · ${judge}`, { style: await styleSection(store, cache, judge, { rounds }), judges: await data.rankedJudges(), qs });
    }),
  );
  app.get('/runs', (c) => send(c, 'html', async () => page(c, 'runs', 'Runs', { runs: await data.runs() })));
  app.get('/refreshes', (c) => send(c, 'html', async () => page(c, 'refreshes', 'Refreshes', { refreshes: await data.refreshes(limitParam(c)), alert: ALERT })));
  app.get('/checkpoints', (c) =>
    send(c, 'html', async () => {
      const series = await seriesParam(c);
      return page(c, 'checkpoints', series.length === 1 && c.req.query('series') ? `Checkpoints · ${series[0]!.series}` : 'Checkpoints', { series, qs });
    }),
  );

  // ---- charts (SVG images; each page shows the numbers in a table next to them)
  const narrow = (c: Context) => {
    const s = c.req.query('size');
    if (s !== undefined && s !== 'narrow') throw new HTTPException(400, { message: `query parameter "size": expected narrow, got "${s}"` });
    return s === 'narrow';
  };
  app.get('/charts/winrate.svg', (c) => send(c, 'svg', async () => winRateBars(await data.leaderboard(await judgeParam(c), await filterParam(c)), narrow(c))));
  app.get('/charts/matrix.svg', (c) =>
    send(c, 'svg', async () => {
      const m = await data.matrix(await judgeParam(c), await filterParam(c));
      return matrixHeatmap(m.models, m.cells);
    }),
  );
  app.get('/charts/judges.svg', (c) =>
    send(c, 'svg', async () => {
      const boards = [];
      for (const judge of await data.rankedJudges()) boards.push({ judge, rows: await data.leaderboard(judge) });
      const models = (boards.find((b) => b.judge === HUMAN) ?? boards[0])?.rows.map((r) => r.model) ?? [];
      return judgeLines(models, boards);
    }),
  );
  app.get('/charts/checkpoints.svg', (c) =>
    send(c, 'svg', async () => {
      if (!c.req.query('series')) throw new HTTPException(400, { message: 'query parameter "series" is required' });
      const [x] = await seriesParam(c);
      return checkpointChart({ series: x!.series, baseline: x!.baseline ?? '?', rows: x!.rows }, { narrow: narrow(c) });
    }),
  );
  app.get('/charts/model.svg', (c) => send(c, 'svg', async () => categoryBars((await data.model(await judgeParam(c), await modelParam(c, 'model'))).byCategory)));

  // ---- the app's own stylesheet and script (no external requests); immutable under their hashed URL
  app.get('/static/:name', (c) => {
    const a = assets.get(c.req.param('name'));
    if (!a) return c.notFound();
    return c.body(a.body, 200, { 'Content-Type': TYPES[a.kind], 'Cache-Control': 'public, max-age=31536000, immutable', ETag: `"${a.hash}"` });
  });
  app.get('/healthz', (c) => c.text('ok'));

  app.notFound((c) => (c.req.path.startsWith('/api/') ? c.json({ error: `no such endpoint: ${c.req.path} (see /api)` }, 404) : c.html(page(c, 'error', 'Not found', { status: 404, message: `No page at ${c.req.path}.` }), 404)));
  app.onError((e, c) => {
    const status = e instanceof HTTPException ? e.status : 500;
    if (e instanceof HTTPException && e.res) return e.res;
    const message = status === 500 ? 'Internal error.' : e.message;
    if (status === 500) console.error(`[web] ${c.req.method} ${c.req.path}:`, e);
    const wantsJson = c.req.path.startsWith('/api') || c.req.path.startsWith('/charts');
    return wantsJson ? c.json({ error: message }, status) : c.html(page(c, 'error', `Error ${status}`, { status, message }), status);
  });
  return app;
}

/** Refresh statuses the leaderboard warns about: the numbers below may be stale or incomplete. */
const ALERT: ReadonlySet<string> = new Set(['degraded', 'budget', 'failed', 'interrupted']);

/** The views' number formats: core/format.ts's, the ones the CLI prints (one spelling per kind of figure). */
const FORMAT = {
  ...figures,
  num: (x: number | null | undefined, d = 0) => (x === null || x === undefined ? '–' : x.toFixed(d)),
  int: figures.count,
};
