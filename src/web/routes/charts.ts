// The charts: SVG images rendered on the server (src/reports/charts.ts); each page shows their numbers in a table
// next to them. `?size=narrow` is the phone variant (360 px wide, labels kept readable), chosen by <picture>.
import type { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import {
  categoryBars,
  checkpointChart,
  judgeLines,
  matrixHeatmap,
  ratingDots,
  winRateBars,
} from '../../reports/charts.ts';
import { query, QUERY, validQuery } from '../params.ts';
import type { Site } from '../site.ts';

export function chartRoutes(app: Hono, s: Site): void {
  const { send, check } = s;
  const { leaderboards } = s.data;
  app.get('/charts/winrate.svg', validQuery(QUERY.filterChart), (c) =>
    send(c, 'svg', async () => {
      const q = query(c);
      return winRateBars(await leaderboards.leaderboard(await check.judge(q), await check.filter(q)), q.size);
    }),
  );
  app.get('/charts/ratings.svg', validQuery(QUERY.ratingsChart), (c) =>
    send(c, 'svg', async () => {
      const q = query(c);
      const rows = await leaderboards.leaderboard(await check.judge(q), await check.filter(q));
      // ratings of groups that never met are not comparable: one group's chart, as its table
      const shown =
        q.group === undefined
          ? rows.filter((r) => (r.group ?? 1) === 1)
          : rows.filter((r) => (r.group ?? 1) === q.group);
      if (!shown.length) throw new HTTPException(404, { message: `no group ${q.group} under this judge` });
      return ratingDots(shown, { narrow: q.size });
    }),
  );
  app.get('/charts/matrix.svg', validQuery(QUERY.filterChart), (c) =>
    send(c, 'svg', async () => {
      const q = query(c);
      const m = await leaderboards.matrix(await check.judge(q), await check.filter(q));
      return matrixHeatmap(m.models, m.cells, q.size);
    }),
  );
  app.get('/charts/judges.svg', validQuery(QUERY.size), (c) =>
    send(c, 'svg', async () => {
      const { models, boards } = await leaderboards.judgeBoards();
      return judgeLines(models, boards, query(c).size);
    }),
  );
  app.get('/charts/checkpoints.svg', validQuery(QUERY.seriesChart), (c) =>
    send(c, 'svg', async () => {
      const q = query(c);
      if (!q.series) throw new HTTPException(400, { message: 'query parameter "series" is required' });
      const [x] = await check.series(q);
      return checkpointChart(
        { series: x!.series, baseline: x!.baseline ?? '?', rows: x!.rows },
        { narrow: q.size },
      );
    }),
  );
  app.get('/charts/model.svg', validQuery(QUERY.modelChart), (c) =>
    send(c, 'svg', async () => {
      const q = query(c);
      return categoryBars(
        (await leaderboards.model(await check.judge(q), await check.model('model', q.model))).byCategory,
        q.size,
      );
    }),
  );
}
