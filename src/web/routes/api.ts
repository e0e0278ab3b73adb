// /api: every table as JSON (/api/<name>) and CSV (/api/<name>.csv) with the same columns, the FastChat-shaped
// standings, one match with everything, and the index of all of them.
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { toCsv } from '../csv.ts';
import { query, QUERY, validQuery } from '../params.ts';
import type { Site } from '../site.ts';
import { checkpointTables } from './tables/checkpoints.ts';
import { healthStyleTables } from './tables/health-style.ts';
import { judgeTables } from './tables/judges.ts';
import { leaderboardTables } from './tables/leaderboards.ts';
import { matchTables } from './tables/matches.ts';
import { runTables } from './tables/runs.ts';
import type { Tables } from './tables/table.ts';
import { variantTables } from './tables/variants.ts';

/** The order /api lists the tables in: clients read the index, so a new table goes at the end. */
const ORDER = [
  'leaderboard',
  'single',
  'judges',
  'consistency',
  'agreement',
  'position-bias',
  'matrix',
  'model-categories',
  'model-turns',
  'model-opponents',
  'games',
  'runs',
  'questions',
  'judge-board',
  'accuracy',
  'refreshes',
  'checkpoints',
  'health',
  'style',
  'style-features',
  'variants',
  'variant-terms',
  'power',
] as const;

/** Every table, one family of pages per file (src/web/routes/tables/), in the index's order. */
function tables(s: Site): Tables {
  const all: Tables = {
    ...leaderboardTables(s),
    ...judgeTables(s),
    ...matchTables(s),
    ...runTables(s),
    ...checkpointTables(s),
    ...healthStyleTables(s),
    ...variantTables(s),
  };
  const listed: readonly string[] = ORDER;
  const unlisted = Object.keys(all).filter((k) => !listed.includes(k));
  if (unlisted.length || Object.keys(all).length !== ORDER.length)
    throw new Error(
      `[web] the /api tables and ORDER differ (not in ORDER: ${unlisted.join(', ') || 'none'})`,
    );
  return Object.fromEntries(ORDER.map((k) => [k, all[k]!]));
}

const project = (rows: object[], columns: readonly string[]) =>
  rows.map((r) => Object.fromEntries(columns.map((k) => [k, (r as Record<string, unknown>)[k] ?? null])));

export function apiRoutes(app: Hono, s: Site): void {
  const { send, check } = s;
  const { leaderboards } = s.data;
  const all = tables(s);
  const validators = new Map(Object.entries(all).map(([k, t]) => [k, validQuery(t.query)]));
  /** the table the path names (404 when there is none), its query validated by the table's own schema */
  const table = (c: Context) => {
    const name = c.req.param('table')!.replace(/\.csv$/, '');
    // an own property only: /api/constructor names no table
    const t = Object.hasOwn(all, name) ? all[name] : undefined;
    if (!t) throw new HTTPException(404, { message: `no table named "${name}" (see /api)` });
    return { name, t };
  };
  const tableQuery = async (c: Context, next: () => Promise<void>) => {
    const { name, t } = table(c);
    if (t.needs) {
      const missing = t.needs.params.filter((p) => !c.req.query(p));
      if (missing.length)
        throw new HTTPException(400, {
          message:
            `/api/${name} needs ${t.needs.params.map((p) => `"${p}"`).join(', ')} ` +
            `(missing: ${missing.join(', ')}): ${t.describe}; for example ${t.needs.example}`,
        });
    }
    return validators.get(name)!(c, next);
  };

  const index = JSON.stringify(
    {
      tables: Object.fromEntries(
        Object.entries(all).map(([k, t]) => [
          k,
          {
            json: `/api/${k}`,
            csv: `/api/${k}.csv`,
            columns: t.columns,
            describe: t.describe,
            ...(t.needs ? { needs: t.needs.params, example: t.needs.example } : {}),
          },
        ]),
      ),
      other: {
        '/api/standings': 'FastChat-shaped standings (?judge=&mode=&turn=&baseline=)',
        '/api/match': 'one question and two models, everything (?question=&a=&b=)',
      },
    },
    null,
    1,
  );
  app.get('/api', validQuery(QUERY.none), (c) => send(c, 'json', async () => index));
  app.get('/api/:table{[a-z-]+\\.csv}', tableQuery, (c) => {
    const { name, t } = table(c);
    return send(c, 'csv', async () => toCsv(await t.rows(query(c)), t.columns), {
      'Content-Disposition': `inline; filename="${name}.csv"`,
    });
  });
  app.get('/api/standings', validQuery(QUERY.standings), (c) =>
    send(c, 'json', async () => {
      const q = query(c);
      if (!q.judge) return JSON.stringify(await leaderboards.boards({}));
      await check.judge(q);
      const baseline = q.baseline ? await check.model('baseline', q.baseline) : undefined;
      return JSON.stringify(
        await leaderboards.standings({
          judge: q.judge,
          mode: q.mode ?? 'pairwise-all',
          ...(q.turn ? { turn: q.turn } : {}),
          ...(baseline ? { baseline } : {}),
        }),
      );
    }),
  );
  app.get('/api/match', validQuery(QUERY.match), (c) =>
    send(c, 'json', async () => JSON.stringify(await check.match(query(c)))),
  );
  app.get('/api/:table{[a-z-]+}', tableQuery, (c) => {
    const { t } = table(c);
    return send(c, 'json', async () => JSON.stringify(project(await t.rows(query(c)), t.columns)));
  });
}
