// The HTML pages, rendered from views/*.ejs (charts as <img> of /charts/*.svg); one function per family of pages.
import { ANNOTATORS, HUMAN } from '../../core/constants.ts';
import { RETIREMENT_WARN_DAYS, retirementOf } from '../../core/retirement.ts';
import type { Hono } from 'hono';
import { duelPair } from '../../reports/judge-quality/duel.ts';
import type { Filter } from '../../reports/site/catalog.ts';
import { query, QUERY, validPage } from '../params.ts';
import { ALERT, qs, type Site } from '../site.ts';
import { matching, sortHeaders, sortRows } from '../sort.ts';
import { storyOrder } from '../../reports/site/succession.ts';
import { defaultJudge, homeRows } from '../../reports/site/home.ts';

export function pageRoutes(app: Hono, s: Site): void {
  leaderboardPages(app, s);
  judgePages(app, s);
  matrixAndModelPages(app, s);
  matchPages(app, s);
  healthStylePages(app, s);
  runPages(app, s);
}

/** `/`: one judge's board in a few columns; `/leaderboard`: every judge's full tables and single-answer grading. */
function leaderboardPages(app: Hono, s: Site): void {
  const { send, page, check } = s;
  const { catalog, leaderboards, history } = s.data;

  /** What the leaderboard's introduction says about the data shown (never a hard-coded description). */
  async function introFacts(shown: { judge: string; rows: { model: string }[] }[], f: Filter) {
    const questions = (await catalog.questions()).filter(
      (q) => !f.category || q.category === f.category,
    ).length;
    const judges = [...new Set(shown.map((t) => t.judge))];
    return {
      models: new Set(shown.flatMap((t) => t.rows.map((r) => r.model))).size,
      questions,
      judges: judges.map((j) => (j === HUMAN ? 'human experts' : j)),
      category: f.category,
      groups: shown.length > judges.length,
    };
  }

  app.get('/', validPage(QUERY.filter), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const f = await check.filter(q);
      // asked together: one round trip where the store batches reads (D1)
      const [{ boards: all }, [latest], story, judges, categories] = await Promise.all([
        leaderboards.judgeBoards(),
        history.refreshes(1),
        history.story(),
        catalog.rankedJudges(),
        catalog.categories(),
        catalog.questions(),
      ]);
      const judge = q.judge ? await check.judge(q) : defaultJudge(all, story.notes, story.named);
      const tables = judge ? await leaderboards.boards(f, judge) : [];
      return page(c, 'home', 'Leaderboard', {
        judge,
        note: judge ? story.notes[judge] : undefined,
        refresh: latest && ALERT.has(latest.status) ? latest : undefined,
        tables: tables.map((t) => ({ ...t, rows: homeRows(t.rows) })),
        intro: await introFacts(tables, f),
        judges,
        categories,
        sel: { judge: judge ?? '', turn: f.turn ?? '', category: f.category ?? '' },
        qs,
      });
    }),
  );

  app.get('/leaderboard', validPage(QUERY.leaderboard), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const f = await check.filter(q);
      const judge = q.judge ? await check.judge(q) : undefined;
      const [boards, [latest], single, story] = await Promise.all([
        leaderboards.boards(f, judge),
        history.refreshes(1),
        leaderboards.single(f),
        history.story(),
        catalog.questions(),
      ]);
      // the current judges' boards first, retired ones last (a succession: src/reports/site/succession.ts)
      const tablesShown = storyOrder(boards, story.notes);
      const base = { judge, turn: f.turn, category: f.category, q: q.q };
      return page(c, 'leaderboard', 'Leaderboard details', {
        story: story.notes,
        refresh: latest && ALERT.has(latest.status) ? latest : undefined,
        // every table's rows in the order asked for, those matching the search (intro: counted before either)
        tables: tablesShown.map((t) => ({ ...t, rows: sortRows(matching(t.rows, q.q), q.sort, q.dir) })),
        intro: await introFacts(tablesShown, f),
        search: q.q ?? '',
        order: { sort: q.sort ?? '', dir: q.dir ?? '' },
        sortBy: sortHeaders(q.sort, q.dir, (p) => `/leaderboard${qs({ ...base, ...p })}`),
        single: single.filter((t) => !judge || t.judge === judge),
        judges: await catalog.rankedJudges(),
        categories: await catalog.categories(),
        sel: { judge: judge ?? '', turn: f.turn ?? '', category: f.category ?? '' },
        qs,
      });
    }),
  );
}

/** `/judges`: the judge leaderboard, health, every judge's leaderboard side by side, consistency, agreement, bias. */
function judgePages(app: Hono, s: Site): void {
  const { send, page } = s;
  const { leaderboards, judges, health } = s.data;
  app.get('/judges', validPage(QUERY.none), (c) =>
    send(c, 'html', async () => {
      // annotatorVotes is read on every /judges, so that it is stored with the reports before any annotator voted
      const [
        { models, boards },
        board,
        annotators,
        counted,
        known,
        agreement,
        healthRows,
        consistency,
        bias,
      ] = await Promise.all([
        leaderboards.judgeBoards(),
        judges.judgeBoard(),
        judges.annotators(),
        judges.annotatorVotes(),
        s.data.catalog.judges(),
        judges.agreement(),
        health.health(),
        judges.consistency(),
        judges.bias(),
      ]);
      // GPT-4 beside the Llama-2-70B judge, when the database has both
      const pair = duelPair(boards.map((b) => b.judge));
      const duel = pair ? await judges.duel(pair) : undefined;
      // the page's sections before the side-by-side tables: each a view and its data (add one here)
      const sections: { id: string; title: string; view: string; data: object }[] = [
        { id: 'board', title: 'Judge leaderboard', view: 'judge-board', data: { board } },
      ];
      const cast = known.find((j) => j.judge === ANNOTATORS)?.votes ?? 0;
      if (annotators.length)
        sections.push({
          id: 'annotators',
          title: 'Annotators',
          view: 'annotators',
          data: {
            annotators,
            counted,
            cast,
            inter: agreement.filter((r) => r.judge1 === ANNOTATORS && r.judge2 === ANNOTATORS),
          },
        });
      return page(c, 'judges', 'Judges', {
        retiring: retiringJudges(known.map((j) => j.judge)),
        sections,
        health: healthRows,
        boards,
        models,
        consistency,
        agreement,
        bias,
        duel,
        duelBoards: Object.fromEntries(boards.map((b) => [b.judge, b.rows] as const)),
        sel: { turn: '', category: '' },
        qs,
      });
    }),
  );
}

/** The `openai/` judges whose model is retired within 30 days, or was (the day only: a stored page stays true). */
function retiringJudges(judges: string[]) {
  const now = Date.now();
  return judges.flatMap((judge) => {
    if (!judge.startsWith('openai/')) return [];
    const r = retirementOf(judge, judge.slice('openai/'.length), undefined, true, now);
    if (!r || r.daysLeft > RETIREMENT_WARN_DAYS) return [];
    const { shutdown, successor } = r;
    return [{ judge, shutdown, past: r.daysLeft < 0, ...(successor ? { successor } : {}) }];
  });
}

/** `/matrix` (one judge's win matrix), `/models` (every model) and `/models/:model` (one model under one judge). */
function matrixAndModelPages(app: Hono, s: Site): void {
  const { send, page, check } = s;
  const { catalog, leaderboards } = s.data;
  app.get('/matrix', validPage(QUERY.filter), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const judge = await check.judge(q);
      const f = await check.filter(q);
      const m = await leaderboards.matrix(judge, f);
      return page(c, 'matrix', `Win matrix · ${judge}`, {
        judge,
        ...m,
        adaptive: (await leaderboards.adaptive(judge)) ?? '',
        judges: await catalog.rankedJudges(),
        categories: await catalog.categories(),
        sel: { judge, turn: f.turn ?? '', category: f.category ?? '' },
        chartQuery: qs({ judge, turn: f.turn, category: f.category }),
        qs,
      });
    }),
  );
  app.get('/models', validPage(QUERY.none), (c) =>
    send(c, 'html', async () => page(c, 'models', 'Models', { models: await check.models() })),
  );
  app.get('/models/:model', validPage(QUERY.judge), (c) =>
    send(c, 'html', async () => {
      const model = await check.model('model', c.req.param('model'));
      const judge = await check.judge(query(c));
      const m = await leaderboards.model(judge, model);
      const rated = m.opponents.filter((x) => x.winRateAdjusted !== null);
      return page(c, 'model', model, {
        model,
        judge,
        judges: await catalog.rankedJudges(),
        ...m,
        strongest: rated.at(-1),
        weakest: rated[0],
        chartQuery: qs({ judge, model }),
        qs,
      });
    }),
  );
}

/** `/matches`: the match browser. */
function matchPages(app: Hono, s: Site): void {
  const { send, page, check } = s;
  const { catalog } = s.data;
  app.get('/matches', validPage(QUERY.matches), (c) =>
    send(c, 'html', async () => {
      const q = query(c);
      const questions = await catalog.questions();
      const models = await catalog.models();
      const match = q.question !== undefined ? await check.match(q) : undefined;
      // without a question, a model named in a or b must still exist
      if (!match) for (const k of ['a', 'b'] as const) if (q[k]) await check.model(k, q[k]);
      const sel = {
        question: q.question === undefined ? '' : String(q.question),
        a: q.a ?? models[0] ?? '',
        b: q.b ?? models[1] ?? '',
        view: q.view,
      };
      return page(
        c,
        'matches',
        match ? `Question ${match.question.id}: ${match.modelA} vs ${match.modelB}` : 'Match browser',
        { questions, models, sel, match },
      );
    }),
  );
}

/** `/health` (benchmark health), `/style` (style control) and `/variants` (rating variants and power). */
function healthStylePages(app: Hono, s: Site): void {
  const { send, page, check } = s;
  const { catalog, health } = s.data;
  app.get('/health', validPage(QUERY.none), (c) =>
    send(c, 'html', async () => page(c, 'health', 'Benchmark health', { health: await health.health() })),
  );
  app.get('/style', validPage(QUERY.judge), (c) =>
    send(c, 'html', async () => {
      const judge = await check.judge(query(c));
      return page(c, 'style', `Style control · ${judge}`, {
        style: await health.style(judge),
        judges: await catalog.rankedJudges(),
        qs,
      });
    }),
  );
  app.get('/variants', validPage(QUERY.judge), (c) =>
    send(c, 'html', async () => {
      const judge = await check.judge(query(c));
      const [variants, judges] = await Promise.all([s.data.variants.of(judge), catalog.rankedJudges()]);
      return page(c, 'variants', `Rating variants · ${judge}`, { v: variants, judges, qs });
    }),
  );
}

/** `/runs`, `/refreshes`, `/succession` (the bridge reports of judges' successions) and `/checkpoints`. */
function runPages(app: Hono, s: Site): void {
  const { send, page, check } = s;
  const { history } = s.data;
  app.get('/runs', validPage(QUERY.limit), (c) =>
    send(c, 'html', async () => {
      const { limit } = query(c);
      return page(c, 'runs', 'Runs', { runs: await history.runs(limit), limit });
    }),
  );
  app.get('/succession', validPage(QUERY.none), (c) =>
    send(c, 'html', async () =>
      page(c, 'succession', 'Succession', { successions: (await history.story()).successions }),
    ),
  );
  app.get('/refreshes', validPage(QUERY.limit), (c) =>
    send(c, 'html', async () =>
      page(c, 'refreshes', 'Refreshes', { refreshes: await history.refreshes(query(c).limit), alert: ALERT }),
    ),
  );
  app.get('/checkpoints', validPage(QUERY.series), (c) =>
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
