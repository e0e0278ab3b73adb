// The HTML pages: server-rendered from the compiled views (views/*.ejs), each with the numbers in tables and
// its charts as <img> of /charts/*.svg.
import { HUMAN } from '../../core/constants.ts';
import type { Hono } from 'hono';
import { duelPair, judgeDuel } from '../../reports/judge-duel.ts';
import type { Filter } from '../../reports/site-data.ts';
import { query, QUERY, validQuery } from '../params.ts';
import { healthSection, styleSection } from '../reports.ts';
import { ALERT, page, qs, type Site } from '../site.ts';

export function pageRoutes(app: Hono, s: Site): void {
  const { send, check, data, store, cache, rounds } = s;

  /** What the leaderboard's introduction says about the data shown (never a hard-coded description). */
  async function introFacts(shown: { judge: string; rows: { model: string }[] }[], f: Filter) {
    const questions = (await data.questions()).filter((q) => !f.category || q.category === f.category).length;
    const judges = [...new Set(shown.map((t) => t.judge))];
    return {
      models: new Set(shown.flatMap((t) => t.rows.map((r) => r.model))).size,
      questions,
      judges: judges.map((j) => (j === HUMAN ? 'human experts' : j)),
      category: f.category,
      groups: shown.length > judges.length,
    };
  }

  app.get('/', validQuery(QUERY.filter), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const f = await check.filter(q);
      const judge = q.judge ? await check.judge(q) : undefined;
      const tablesShown = await data.boards(f, judge);
      const [latest] = await data.refreshes(1);
      // GPT-4 beside the Llama-2-70B judge (issue #10), when the database has both
      const pair = judge ? undefined : duelPair(await data.rankedJudges());
      const duel = pair
        ? await cache.get(`duel:${pair.join(':')}`, () =>
            judgeDuel(store, ...pair, { judgeData: (j) => data.judgeData(j) }),
          )
        : undefined;
      const duelBoards = pair
        ? Object.fromEntries(
            await Promise.all(pair.map(async (j) => [j, await data.leaderboard(j, f)] as const)),
          )
        : {};
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
  app.get('/judges', validQuery(QUERY.none), (c) =>
    send(c, 'html', async () => {
      const { models, boards } = await data.judgeBoards();
      // the page's sections before the side-by-side tables: each a view and its data (add one here)
      const sections = [
        {
          id: 'board',
          title: 'Judge leaderboard',
          view: 'judge-board',
          data: { board: await data.judgeBoard() },
        },
      ];
      return page(c, 'judges', 'Judges', {
        sections,
        health: await healthSection(store, cache, { rounds }),
        boards,
        models,
        consistency: await data.consistency(),
        agreement: await data.agreement(),
        bias: await data.bias(),
        qs,
      });
    }),
  );
  app.get('/matrix', validQuery(QUERY.filter), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const judge = await check.judge(q);
      const f = await check.filter(q);
      const m = await data.matrix(judge, f);
      return page(c, 'matrix', `Win matrix · ${judge}`, {
        judge,
        ...m,
        judges: await data.rankedJudges(),
        categories: await data.categories(),
        sel: { judge, turn: f.turn ?? '', category: f.category ?? '' },
        chartQuery: qs({ judge, turn: f.turn, category: f.category }),
        qs,
      });
    }),
  );
  app.get('/models/:model', validQuery(QUERY.judge), (c) =>
    send(c, 'html', async () => {
      const model = await check.model('model', c.req.param('model'));
      const judge = await check.judge(query(c));
      const m = await data.model(judge, model);
      const rated = m.opponents.filter((x) => x.winRateAdjusted !== null);
      return page(c, 'model', model, {
        model,
        judge,
        judges: await data.rankedJudges(),
        ...m,
        strongest: rated.at(-1),
        weakest: rated[0],
        chartQuery: qs({ judge, model }),
        qs,
      });
    }),
  );
  app.get('/matches', validQuery(QUERY.matches), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const questions = await data.questions();
      const models = await data.models();
      const match = q.question !== undefined ? await check.match(q) : undefined;
      // without a question, a model named in a or b must still exist
      if (!match) for (const k of ['a', 'b'] as const) if (q[k]) await check.model(k, q[k]);
      const sel = {
        question: q.question === undefined ? '' : String(q.question),
        a: q.a ?? models[0] ?? '',
        b: q.b ?? models[1] ?? '',
      };
      return page(
        c,
        'matches',
        match ? `Question ${match.question.id}: ${match.modelA} vs ${match.modelB}` : 'Match browser',
        { questions, models, sel, match },
      );
    }),
  );
  app.get('/health', validQuery(QUERY.none), (c) =>
    send(c, 'html', async () =>
      page(c, 'health', 'Benchmark health', { health: await healthSection(store, cache, { rounds }) }),
    ),
  );
  app.get('/style', validQuery(QUERY.judge), (c) =>
    send(c, 'html', async () => {
      const judge = await check.judge(query(c));
      return page(c, 'style', `Style control · ${judge}`, {
        style: await styleSection(store, cache, judge, { rounds }),
        judges: await data.rankedJudges(),
        qs,
      });
    }),
  );
  app.get('/runs', validQuery(QUERY.none), (c) =>
    send(c, 'html', async () => page(c, 'runs', 'Runs', { runs: await data.runs() })),
  );
  app.get('/refreshes', validQuery(QUERY.limit), (c) =>
    send(c, 'html', async () =>
      page(c, 'refreshes', 'Refreshes', { refreshes: await data.refreshes(query(c).limit), alert: ALERT }),
    ),
  );
  app.get('/checkpoints', validQuery(QUERY.series), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const series = await check.series(q);
      return page(
        c,
        'checkpoints',
        series.length === 1 && q.series ? `Checkpoints · ${series[0]!.series}` : 'Checkpoints',
        { series, qs },
      );
    }),
  );
}
