// /api: every table as JSON (/api/<name>) and CSV (/api/<name>.csv) with the same columns, the FastChat-shaped
// standings, one match with everything, and the index of all of them.
import type { Context, Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ACCURACY_STATS } from '../../core/stats/pair-accuracy.ts';
import { BOARD_COLUMNS, flatBoardRow } from '../../reports/judge-board.ts';
import { standings } from '../../reports/results.ts';
import { checkpointTableRow } from '../../reports/site-data.ts';
import { toCsv } from '../csv.ts';
import { query, QUERY, validQuery, type Query, type QuerySchema } from '../params.ts';
import { HEALTH_COLUMNS, healthSection, healthTableRows, STYLE_COLUMNS, styleSection } from '../reports.ts';
import type { Site } from '../site.ts';

/** A table served at /api/<name> (JSON) and /api/<name>.csv: its columns fix the shape of both. */
interface Table {
  /** the query parameters it reads (any other is a 400) */
  query: QuerySchema;
  columns: readonly string[];
  describe: string;
  rows(q: Query): Promise<object[]>;
}

const STANDING = [
  'model',
  'win',
  'loss',
  'tie',
  'inconsistent',
  'error',
  'winRate',
  'lossRate',
  'winRateAdjusted',
] as const;

function tables(s: Site): Record<string, Table> {
  const { data, check, store, cache, rounds } = s;
  const model = async (q: Query) => data.model(await check.judge(q), await check.model('model', q.model));
  return {
    leaderboard: {
      query: QUERY.filter,
      describe:
        "one judge's standings with Bradley–Terry rating and 95% interval (a note where not estimable), Rank (UB), the rank range from simultaneous intervals and the preliminary mark; ?judge=&turn=1|2|both&category= (group: set when the judge's models form groups that never met; ranks and ratings are per group)",
      columns: [
        'rank',
        ...STANDING,
        'rating',
        'ratingLo',
        'ratingHi',
        'ratingNote',
        'rankUB',
        'rankBest',
        'rankWorst',
        'preliminary',
        'group',
      ],
      rows: async (q) => data.leaderboard(await check.judge(q), await check.filter(q)),
    },
    single: {
      query: QUERY.filterNoJudge,
      describe:
        "single-answer grading: each model's mean score (1–10) per turn and overall, per judge; ?turn=&category=",
      columns: ['judge', 'model', 'turn1', 'turn2', 'score', 'n', 'error'],
      rows: async (q) =>
        (await data.single(await check.filter(q))).flatMap((t) =>
          t.rows.map((r) => ({ judge: t.judge, ...r })),
        ),
    },
    judges: {
      query: QUERY.none,
      describe: 'every judge with its stored games and recorded votes',
      columns: ['judge', 'games', 'votes'],
      rows: () => data.judges(),
    },
    consistency: {
      query: QUERY.none,
      describe: "each judge's consistency across the two orders of a match",
      columns: ['judge', 'matches', 'consistent', 'inconsistent', 'error', 'consistency'],
      rows: () => data.consistency(),
    },
    agreement: {
      query: QUERY.none,
      describe: 'agreement of every pair of judges per turn, with ties (S1) and without (S2)',
      columns: [
        'judge1',
        'judge2',
        'turn',
        'setup',
        'total',
        'agree',
        'ratio',
        'kappa',
        'kappaLo',
        'kappaHi',
        'level',
      ],
      rows: () => data.agreement(),
    },
    'position-bias': {
      query: QUERY.none,
      describe:
        "each judge's position bias: share of decisive games picking the first-shown answer, and how often the two orders conflict",
      columns: [
        'judge',
        'source',
        'games',
        'errors',
        'positionA',
        'matches',
        'conflicts',
        'conflict',
        'favoursFirst',
        'favoursSecond',
        'withTie',
        'signTestP',
      ],
      rows: () => data.bias(),
    },
    matrix: {
      query: QUERY.filter,
      describe: 'the pairwise win matrix and battle counts of one judge; ?judge=&turn=&category=',
      columns: ['model', 'opponent', 'battles', 'win', 'loss', 'tie', 'error', 'winRateAdjusted'],
      rows: async (q) => (await data.matrix(await check.judge(q), await check.filter(q))).cells,
    },
    'model-categories': {
      query: QUERY.model,
      describe: "one model's standing per category; ?model=&judge=",
      columns: ['category', ...STANDING],
      rows: async (q) => (await model(q)).byCategory,
    },
    'model-turns': {
      query: QUERY.model,
      describe: "one model's standing per turn; ?model=&judge=",
      columns: ['turn', ...STANDING],
      rows: async (q) => (await model(q)).byTurn,
    },
    'model-opponents': {
      query: QUERY.model,
      describe: 'one model against each opponent, strongest showing first; ?model=&judge=',
      columns: ['model', 'opponent', 'battles', 'win', 'loss', 'tie', 'error', 'winRateAdjusted'],
      rows: async (q) => (await model(q)).opponents,
    },
    games: {
      query: QUERY.match,
      describe: 'the stored games of one question and two models, with full judge texts; ?question=&a=&b=',
      columns: [
        'id',
        'judge',
        'turn',
        'order',
        'model1',
        'model2',
        'verdict',
        'parser',
        'promptName',
        'reply',
        'createdAt',
        'source',
      ],
      rows: async (q) =>
        (await check.match(q)).games.map((g) => ({
          ...g,
          turn: g.match.turn,
          model1: g.match.model1,
          model2: g.match.model2,
        })),
    },
    runs: {
      query: QUERY.none,
      describe: 'the runs: when, which judge, how many games, tokens',
      columns: [
        'id',
        'startedAt',
        'finishedAt',
        'judge',
        'mode',
        'status',
        'planned',
        'toPlay',
        'played',
        'failed',
        'tokensIn',
        'tokensOut',
        'cost',
      ],
      rows: () => data.runs(),
    },
    questions: {
      query: QUERY.none,
      describe: 'the questions',
      columns: ['id', 'category', 'turns'],
      rows: () => data.questions(),
    },
    'judge-board': {
      query: QUERY.none,
      describe:
        'the judge leaderboard: accuracy on labelled sets (overall and per set), agreement with the experts (S1 kappa, S2, per turn in `experts`), consistency, first-position preference, error, tie and longer-answer rates, cost and seconds per 1,000 games; `Lo`/`Hi` are 95% intervals',
      columns: BOARD_COLUMNS,
      rows: async () => (await data.judgeBoard()).map(flatBoardRow),
    },
    accuracy: {
      query: QUERY.none,
      describe:
        "accuracy of every judge on every labelled pair set (`arena accuracy`): items correct in each order and in both, order agreement, Cohen's kappa, with 95% intervals over items in `intervals`",
      columns: [
        'set',
        'judge',
        'prompt',
        'total',
        'missing',
        'correctAB',
        'correctBA',
        'correctBoth',
        'agreeOrders',
        'errors',
        ...ACCURACY_STATS,
        'intervals',
        'level',
      ],
      rows: () => data.accuracy(),
    },
    refreshes: {
      query: QUERY.limit,
      describe:
        'the last refreshes (`arena refresh`), newest first: status, why degraded, games played, calls, cost; ?limit= (default 30)',
      columns: [
        'id',
        'startedAt',
        'finishedAt',
        'status',
        'reasons',
        'newModels',
        'changedAnswers',
        'played',
        'failed',
        'skipped',
        'calls',
        'cost',
        'estCost',
        'line',
      ],
      rows: async (q) => data.refreshes(q.limit),
    },
    checkpoints: {
      query: QUERY.series,
      describe:
        'checkpoint tracking (`arena checkpoints`): per series, judge and checkpoint, the win rate vs the baseline and the paired differences vs the previous and the best earlier checkpoint, with 95% intervals; ?series=',
      columns: [
        'series',
        'baseline',
        'judge',
        'checkpoint',
        'step',
        'model',
        'n',
        'winRate',
        'winRateLo',
        'winRateHi',
        'previous',
        'vsPrevious',
        'vsPreviousLo',
        'vsPreviousHi',
        'bestSoFar',
        'vsBest',
        'vsBestLo',
        'vsBestHi',
        'best',
      ],
      rows: async (q) =>
        (await check.series(q)).flatMap((x) =>
          x.rows.map((r) => checkpointTableRow(x.series, x.baseline, r)),
        ),
    },
    // benchmark health and style control (src/web/reports.ts, views/health-table.ejs, views/style-table.ejs)
    health: {
      query: QUERY.none,
      describe:
        'benchmark health of every judge against the experts: separability and agreement with confidence, pair-rank Brier score, Spearman and Kendall of the ratings with 95% intervals',
      columns: HEALTH_COLUMNS,
      rows: async () => healthTableRows(await healthSection(store, cache, { rounds })),
    },
    style: {
      query: QUERY.judge,
      describe:
        "one judge's Bradley–Terry ratings controlled for length and markdown, beside the raw ones, with 95% intervals and Rank (UB); ?judge=",
      columns: STYLE_COLUMNS,
      rows: async (q) => (await styleSection(store, cache, await check.judge(q), { rounds })).rows,
    },
    'style-features': {
      query: QUERY.judge,
      describe:
        'the style coefficients of one judge (log-odds per standard deviation) with their question-clustered standard errors and 95% intervals; features with too little support are left out (see /style); ?judge=',
      columns: ['feature', 'coefficient', 'se', 'lo', 'hi'],
      rows: async (q) => (await styleSection(store, cache, await check.judge(q), { rounds })).features,
    },
  };
}

const project = (rows: object[], columns: readonly string[]) =>
  rows.map((r) => Object.fromEntries(columns.map((k) => [k, (r as Record<string, unknown>)[k] ?? null])));

export function apiRoutes(app: Hono, s: Site): void {
  const { send, check, data, store } = s;
  const all = tables(s);
  const validators = new Map(Object.entries(all).map(([k, t]) => [k, validQuery(t.query)]));
  /** the table the path names (404 when there is none), its query validated by the table's own schema */
  const table = (c: Context) => {
    const name = c.req.param('table')!.replace(/\.csv$/, '');
    const t = all[name];
    if (!t) throw new HTTPException(404, { message: `no table named "${name}" (see /api)` });
    return { name, t };
  };
  const tableQuery = async (c: Context, next: () => Promise<void>) => validators.get(table(c).name)!(c, next);

  const index = JSON.stringify(
    {
      tables: Object.fromEntries(
        Object.entries(all).map(([k, t]) => [
          k,
          { json: `/api/${k}`, csv: `/api/${k}.csv`, columns: t.columns, describe: t.describe },
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
      if (!q.judge) return JSON.stringify(await data.boards({}));
      const baseline = q.baseline ? await check.model('baseline', q.baseline) : undefined;
      return JSON.stringify(
        await standings(store, {
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
