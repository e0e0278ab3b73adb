// The charts as served: the whiskers sit where the leaderboard's JSON puts each 95% interval (read back through the
// SVG's own ticks), and every chart's phone variant keeps its text at 11 px or more.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqliteStore } from '../../src/storage/sqlite.ts';
import { createApp } from '../../src/web/app.ts';
import { buildFixture, MTBENCH_DIR } from './fixture.ts';

const ok = existsSync(MTBENCH_DIR);
if (!ok) console.warn(`[charts] skipped: no MT-Bench release at ${MTBENCH_DIR} (set MTBENCH_DIR)`);

/** The x pixel of a rating on the chart: a linear map through the value axis' first and last tick labels. */
function xScale(svg: string): (v: number) => number {
  const ticks = [
    ...svg.matchAll(
      /text-anchor="middle"[^>]*transform="translate\(([\d.]+) [\d.]+\)"[^>]*>([\d,]+)<\/text>/g,
    ),
  ].map((m) => ({ x: Number(m[1]), v: Number(m[2]!.replace(/,/g, '')) }));
  expect(ticks.length).toBeGreaterThanOrEqual(2);
  const [a, b] = [ticks[0]!, ticks.at(-1)!];
  return (v) => a.x + ((v - a.v) * (b.x - a.x)) / (b.v - a.v);
}

/** Horizontal black segments (the error bars' bodies): [x1, x2, y]. */
const bars = (svg: string) =>
  [...svg.matchAll(/<path d="M([\d.]+) ([\d.]+)L([\d.]+) ([\d.]+)"[^>]*stroke="#1b1b1b"/g)]
    .map((m) => m.slice(1).map(Number) as [number, number, number, number])
    .filter(([, y1, , y2]) => y1 === y2)
    .map(([x1, y, x2]) => [Math.min(x1, x2), Math.max(x1, x2), y] as const);

/** WCAG's contrast ratio of an sRGB colour (#rrggbb) against white. */
function contrastOnWhite(hex: string): number {
  const lin = [1, 3, 5]
    .map((k) => parseInt(hex.slice(k, k + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 1.05 / (0.2126 * lin[0]! + 0.7152 * lin[1]! + 0.0722 * lin[2]! + 0.05);
}

const fontSizes = (svg: string) => [...svg.matchAll(/font-size:([\d.]+)px/g)].map((m) => Number(m[1]));
const width = (svg: string) => Number(/^<svg width="(\d+)"/.exec(svg)?.[1]);

describe.skipIf(!ok)('charts', () => {
  let store: SqliteStore;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    store = (await buildFixture()).store;
    app = createApp({ store, bootstrapRounds: 100 });
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });
  const text = async (path: string) => {
    const r = await app.request(path);
    expect(r.status, path).toBe(200);
    return r.text();
  };

  for (const size of ['', '&size=narrow'])
    it(`the leaderboard's chart draws every model's rating interval as an error bar at its values${size ? ' (narrow)' : ''}`, async () => {
      const rows = JSON.parse(await text('/api/leaderboard?judge=gpt-4')) as {
        model: string;
        rating: number;
        ratingLo: number;
        ratingHi: number;
      }[];
      const svg = await text(`/charts/ratings.svg?judge=gpt-4${size}`);
      const x = xScale(svg);
      const drawn = bars(svg).sort((a, b) => a[2] - b[2]); // top to bottom: the leaderboard's order
      expect(drawn).toHaveLength(rows.length);
      rows.forEach((r, k) => {
        // the bar's ends sit at the interval's ends (rounded to whole rating points: within 1.5 px)
        expect(Math.abs(drawn[k]![0] - x(r.ratingLo)), r.model).toBeLessThan(1.5);
        expect(Math.abs(drawn[k]![1] - x(r.ratingHi)), r.model).toBeLessThan(1.5);
        expect(svg).toContain(`>${Math.round(r.rating)}</text>`);
      });
      // every model's name is on the chart, or its start with an ellipsis
      for (const r of rows)
        expect(svg.includes(`>${r.model}</text>`) || svg.includes(`>${r.model.slice(0, 6)}`), r.model).toBe(
          true,
        );
    });

  it("the leaderboard's chart is a dot-and-whisker plot: a dot at each rating (3:1 or more against white), no bars; no interval named where none is drawn", async () => {
    const rows = JSON.parse(await text('/api/leaderboard?judge=gpt-4')) as {
      model: string;
      rating: number;
    }[];
    for (const size of ['', '&size=narrow']) {
      const svg = await text(`/charts/ratings.svg?judge=gpt-4${size}`);
      const x = xScale(svg);
      const dots = [...svg.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)" r="[\d.]+" fill="(#[0-9a-f]{6})"/g)]
        .map((m) => ({ x: Number(m[1]), y: Number(m[2]), fill: m[3]! }))
        .sort((a, b) => a.y - b.y);
      expect(dots).toHaveLength(rows.length);
      rows.forEach((r, k) => expect(Math.abs(dots[k]!.x - x(r.rating)), r.model).toBeLessThan(1.5));
      for (const d of dots) expect(contrastOnWhite(d.fill)).toBeGreaterThanOrEqual(3);
      // no filled shape other than the dots: the bars (light blue, 2.08:1, from an axis at 400-700) are gone
      expect(svg).not.toMatch(/<path d="M[\d.]+ [\d.]+l[\d.]+ 0l0 [\d.]+/);
      expect(svg).toContain('>Bradley–Terry rating, 95% interval</text>');
    }
    // mock/longer judged 2 questions: too few for an interval, so the chart names none
    const few = JSON.parse(await text('/api/leaderboard?judge=mock/longer')) as { ratingLo: number | null }[];
    expect(few.every((r) => r.ratingLo === null)).toBe(true);
    const svg = await text('/charts/ratings.svg?judge=mock/longer');
    expect(svg).toContain('>Bradley–Terry rating</text>');
    expect(svg).not.toContain('95% interval');
  });

  it('one group per chart: a group that does not exist is a 404, a malformed one a 400', async () => {
    expect((await app.request('/charts/ratings.svg?judge=gpt-4&group=1')).status).toBe(200);
    expect((await app.request('/charts/ratings.svg?judge=gpt-4&group=7')).status).toBe(404);
    const bad = await app.request('/charts/ratings.svg?judge=gpt-4&group=x');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe(
      'query parameter "group": expected a group number, got "x"',
    );
  });

  it('every chart has a 360 px variant whose texts stay at 11 px or more; the wide ones keep 12 px', async () => {
    const charts = [
      '/charts/ratings.svg?judge=gpt-4',
      '/charts/winrate.svg?judge=gpt-4',
      '/charts/matrix.svg?judge=gpt-4',
      '/charts/judges.svg',
      '/charts/model.svg?judge=gpt-4&model=gpt-4',
    ];
    for (const c of charts) {
      const wide = await text(c);
      const narrow = await text(`${c}${c.includes('?') ? '&' : '?'}size=narrow`);
      expect(width(narrow), c).toBe(360);
      expect(width(wide), c).toBeGreaterThanOrEqual(700);
      expect(Math.min(...fontSizes(narrow)), c).toBeGreaterThanOrEqual(11);
      expect(Math.min(...fontSizes(wide)), c).toBeGreaterThanOrEqual(12);
    }
    expect((await app.request('/charts/judges.svg?size=wide')).status).toBe(400);
  });
});
