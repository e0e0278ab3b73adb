// Charts rendered on the server to SVG with ECharts' SSR mode (no DOM, no code generation: it runs on Workers), shown
// with <img> so pages keep a strict CSP. Each has a narrow variant, 360 px wide, that a phone shows unscaled.
import type { CheckpointRow } from '../core/stats/checkpoints.ts';
import { MIN_QUESTIONS_FOR_INTERVALS } from '../core/stats/rating-rows.ts';
import type { LeaderRow, MatrixCell } from './site/leaderboards.ts';

/** ECharts, imported on the first chart: a cost (bench/README.md) that a process drawing none does not pay. */
let echartsLoaded: Promise<typeof import('./echarts.ts')> | undefined;
const loadEcharts = () => (echartsLoaded ??= import('./echarts.ts'));

const FONT = { fontFamily: 'system-ui, sans-serif', fontSize: 12, color: '#1b1b1b' };
const COLORS = ['#2f5fb3', '#c2571a', '#2a7f3f', '#8a3ea8', '#a1132d', '#5c6470'];
/** the width of a narrow chart: a 390 px phone shows it unscaled beside the page's margins */
const NARROW = 360;
/** a category label cut to `width` px with an ellipsis (the full name is in the table next to the chart) */
const cut = (width: number, extra: Record<string, unknown> = {}) => ({
  ...FONT,
  width,
  overflow: 'truncate',
  ellipsis: '…',
  ...extra,
});

async function svg(width: number, height: number, option: Record<string, unknown>): Promise<string> {
  const { init } = await loadEcharts();
  const chart = init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, color: COLORS, textStyle: FONT, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** Horizontal bars: each model's adjusted win rate under one judge. */
export function winRateBars(rows: LeaderRow[], narrow = false): Promise<string> {
  const r = [...rows].reverse();
  return svg(narrow ? NARROW : 720, 60 + 34 * rows.length, {
    grid: { left: narrow ? 120 : 150, right: narrow ? 40 : 60, top: 20, bottom: 30 },
    xAxis: { type: 'value', min: 0, max: 1, axisLabel: FONT },
    yAxis: { type: 'category', data: r.map((x) => x.model), axisLabel: cut(narrow ? 110 : 140) },
    series: [
      {
        type: 'bar',
        data: r.map((x) => round(x.winRateAdjusted)),
        label: { show: true, position: 'right', ...FONT },
        barMaxWidth: 22,
      },
    ],
  });
}

/**
 * Each model's Bradley–Terry rating under one judge, best first, as a dot (a position, not a length: the axis may
 * start near the lowest interval) with its value and its 95% interval as a whisker, as LMArena draws it. A one-sided
 * interval runs to the edge with an arrow; a model with no finite rating is an arrow at its edge ("no losses").
 */
export function ratingDots(rows: LeaderRow[], o: { narrow?: boolean } = {}): Promise<string> {
  const r = [...rows].reverse();
  const values = r.flatMap((x) => [x.rating, x.ratingLo, x.ratingHi]).filter(finite);
  const narrow = o.narrow ?? false;
  const intervals = r.some((x) => finite(x.ratingLo) && finite(x.ratingHi));
  // round ticks, at most 3 of them on a phone and 6 on a laptop
  const min = values.length ? Math.min(...values) - 10 : 0;
  const max = values.length ? Math.max(...values) + 10 : 1;
  const step = [25, 50, 100, 200, 250, 500, 1000].find((x) => x >= (max - min) / (narrow ? 3 : 6)) ?? 2000;
  const lo = Math.floor(min / step) * step;
  const hi = Math.ceil(max / step) * step;
  // ECharts hands a custom series' values back as numbers (null as NaN): read each row itself, by its index
  const data = r.map((_x, k) => [k, lo, hi]);
  return svg(narrow ? NARROW : 720, 70 + 34 * rows.length, {
    grid: { left: narrow ? 112 : 150, right: narrow ? 40 : 50, top: 14, bottom: 46 },
    xAxis: {
      type: 'value',
      min: lo,
      max: hi,
      interval: step,
      axisLabel: FONT,
      name: intervals ? 'Bradley–Terry rating, 95% interval' : 'Bradley–Terry rating',
      nameLocation: 'middle',
      nameGap: 28,
      nameTextStyle: FONT,
    },
    yAxis: { type: 'category', data: r.map((x) => x.model), axisLabel: cut(narrow ? 100 : 140) },
    series: [
      {
        type: 'custom',
        z: 3,
        data,
        encode: { x: [1, 2], y: 0 },
        renderItem: (_p: unknown, api: CustomApi) => dotItem(r[Number(api.value(0))]!, api, lo, hi),
      },
    ],
  });
}

/** One model's mark on the rating chart (ratingDots): dot, whisker or edge arrow, and its value beside the dot. */
function dotItem(x: LeaderRow, api: CustomApi, lo: number, hi: number): object | null {
  const k = Number(api.value(0));
  const at = (v: number) => api.coord([v, k])[0] ?? 0;
  const [, y = 0] = api.coord([lo, k]);
  const style = { stroke: '#1b1b1b', lineWidth: 1.5 };
  const text = (t: string, tx: number, align: 'left' | 'right' = 'left') => ({
    type: 'text',
    style: { text: t, x: tx, y: y - 4, align, verticalAlign: 'bottom', ...FONT, fill: FONT.color },
  });
  /** an arrowhead at the axis's edge, pointing out of the chart */
  const arrow = (ex: number, dir: -1 | 1) => ({
    type: 'polygon',
    shape: {
      points: [
        [ex, y],
        [ex - dir * 8, y - 5],
        [ex - dir * 8, y + 5],
      ],
    },
    style: { fill: DOT },
  });
  if (!finite(x.rating)) {
    const side = x.ratingNote?.includes('never lost') ? 1 : x.ratingNote?.includes('never beat') ? -1 : 0;
    if (!side) return null;
    const ex = at(side > 0 ? hi : lo);
    return {
      type: 'group',
      children: [
        arrow(ex, side),
        text(side > 0 ? 'no losses' : 'no wins', ex - side * 12, side > 0 ? 'right' : 'left'),
      ],
    };
  }
  const xr = at(x.rating);
  const children: object[] = [];
  const [l, h] = [x.ratingLo, x.ratingHi];
  // a one-sided interval (unbounded below or above) runs to the edge; none at all (too few questions): no whisker
  if (finite(l) || finite(h)) {
    const [x1, x2] = [at(finite(l) ? l : lo), at(finite(h) ? h : hi)];
    const cap = (cx: number) => ({ type: 'line', shape: { x1: cx, y1: y - 7, x2: cx, y2: y + 7 }, style });
    children.push({ type: 'line', shape: { x1, y1: y, x2, y2: y }, style });
    children.push(finite(l) ? cap(x1) : arrow(x1, -1), finite(h) ? cap(x2) : arrow(x2, 1));
  }
  children.push({ type: 'circle', shape: { cx: xr, cy: y, r: 5 }, style: { fill: DOT }, z2: 2 });
  // the value sits just above and right of its own dot, clear of the whisker
  children.push(text(String(Math.round(x.rating)), xr + 4));
  return { type: 'group', children };
}
const finite = (v: number | null): v is number => v !== null && Number.isFinite(v);
/** The rating dots' colour: the site's accent, 7:1 against the chart's white. */
const DOT = '#1f4fa3';
/** What ECharts hands a custom series' renderItem (the part used here). */
interface CustomApi {
  value(dim: number): number | string | null;
  coord(v: (number | string | null)[]): number[];
}

/** Heat map of the pairwise win matrix: row model's adjusted win rate against the column model. */
export function matrixHeatmap(models: string[], cells: MatrixCell[], narrow = false): Promise<string> {
  const idx = new Map(models.map((m, k) => [m, k]));
  // narrow: the cells share what is left of 360 px beside the row labels; their numbers show while they fit
  const left = narrow ? 92 : 150;
  const cell = narrow ? Math.max(12, Math.floor((NARROW - left - 8) / Math.max(1, models.length))) : 78;
  const labels = cell >= 34;
  // each label black or white, whichever contrasts more with its cell's colour (4.58:1 at the least)
  const data = cells
    .filter((c) => c.winRateAdjusted !== null)
    .map((c) => ({
      value: [idx.get(c.opponent)!, idx.get(c.model)!, round(c.winRateAdjusted!)],
      label: { color: labelOn(scaleColor(HEAT, round(c.winRateAdjusted!)!)) },
    }));
  const bottom = narrow ? 104 : 110;
  const side = 20 + cell * models.length + bottom;
  return svg(narrow ? NARROW : side - bottom + 70 + 160, side, {
    grid: { left, right: narrow ? 8 : 20, top: 20, bottom },
    xAxis: {
      type: 'category',
      data: models,
      axisLabel: cut(narrow ? 84 : 120, { rotate: narrow ? 60 : 35, interval: 0 }),
      name: 'opponent',
      nameLocation: 'middle',
      nameGap: 90,
      nameTextStyle: FONT,
    },
    yAxis: { type: 'category', data: models, inverse: true, axisLabel: cut(left - 10, { interval: 0 }) },
    visualMap: { show: false, min: 0, max: 1, inRange: { color: HEAT } },
    series: [
      {
        type: 'heatmap',
        data,
        label: {
          show: labels,
          ...FONT,
          fontSize: narrow ? 11 : 12,
          formatter: (p: { value: number[] }) => p.value[2]!.toFixed(2),
        },
      },
    ],
  });
}

/** The heat map's scale, from a win rate of 0 (red) through 0.5 (near white) to 1 (blue). */
const HEAT = ['#b2182b', '#f7f7f7', '#2166ac'];

/** The colour a linear scale through `stops` (spread evenly over 0..1) gives `v`, as ECharts interpolates it. */
function scaleColor(stops: string[], v: number): number[] {
  const rgb = stops.map((h) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16)));
  const t = Math.min(1, Math.max(0, v)) * (rgb.length - 1);
  const k = Math.min(rgb.length - 2, Math.floor(t));
  return rgb[k]!.map((c, i) => Math.round(c + (rgb[k + 1]![i]! - c) * (t - k)));
}

/** WCAG's relative luminance of an sRGB colour. */
function luminance(rgb: number[]): number {
  const lin = rgb.map((c) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4));
  return 0.2126 * lin[0]! + 0.7152 * lin[1]! + 0.0722 * lin[2]!;
}

/** Black or white text, whichever has the higher contrast on `rgb` (never below 4.58:1, WCAG AA asks 4.5). */
function labelOn(rgb: number[]): string {
  const l = luminance(rgb);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** Lines: each judge's adjusted win rate of the same models (one line per judge). */
export function judgeLines(
  models: string[],
  byJudge: { judge: string; rows: LeaderRow[] }[],
  narrow = false,
): Promise<string> {
  // the legend wraps: about two judges a row on a phone, four on a laptop
  const legendRows = Math.ceil(byJudge.length / (narrow ? 2 : 4));
  const top = 16 + 22 * legendRows;
  return svg(narrow ? NARROW : 720, (narrow ? 250 : 290) + top, {
    grid: { left: narrow ? 40 : 50, right: narrow ? 12 : 20, top, bottom: narrow ? 96 : 70 },
    legend: { top: 0, left: 0, right: 0, textStyle: FONT, itemGap: narrow ? 10 : 18 },
    xAxis: {
      type: 'category',
      data: models,
      axisLabel: cut(narrow ? 84 : 110, { rotate: narrow ? 60 : 20, interval: 0 }),
    },
    yAxis: { type: 'value', min: 0, max: 1, axisLabel: FONT },
    series: byJudge.map((j) => ({
      type: 'line',
      name: j.judge,
      symbolSize: 8,
      data: models.map((m) => round(j.rows.find((r) => r.model === m)?.winRateAdjusted ?? null)),
    })),
  });
}

/** Bars per category for one model. */
export function categoryBars(
  rows: { category: string; winRateAdjusted: number }[],
  narrow = false,
): Promise<string> {
  return svg(narrow ? NARROW : 720, 300, {
    grid: { left: narrow ? 40 : 50, right: narrow ? 8 : 20, top: 24, bottom: narrow ? 84 : 60 },
    xAxis: {
      type: 'category',
      data: rows.map((r) => r.category),
      axisLabel: cut(narrow ? 76 : 100, { rotate: narrow ? 60 : 20, interval: 0 }),
    },
    yAxis: { type: 'value', min: 0, max: 1, axisLabel: FONT },
    series: [
      {
        type: 'bar',
        data: rows.map((r) => round(r.winRateAdjusted)),
        label: {
          show: true,
          position: 'top',
          ...FONT,
          fontSize: narrow ? 11 : 12,
          formatter: (p: { value: number }) => p.value.toFixed(2),
        },
        barMaxWidth: 40,
      },
    ],
  });
}

/** A checkpoint series: win rate vs the baseline against step, one line per judge, its 95% interval a band. */
export function checkpointChart(
  report: { series: string; baseline: string; rows: CheckpointRow[] },
  o: { width?: number; height?: number; title?: boolean; narrow?: boolean } = {},
): Promise<string> {
  const judges = [...new Set(report.rows.map((r) => r.judge))];
  // point labels only where they cannot collide with another judge's
  const labels = !o.narrow && judges.length === 1;
  const series = judges.flatMap((j, k) => {
    const rows = report.rows.filter((r) => r.judge === j && r.winRate.n);
    const color = COLORS[k % COLORS.length];
    // the interval is an invisible line at its low end with the band's width stacked on it, filled
    const band = (data: (number | null)[][], areaStyle?: { color: string | undefined; opacity: number }) => ({
      name: `${j} (95% interval)`,
      type: 'line',
      stack: `band-${j}`,
      symbol: 'none',
      color,
      lineStyle: { opacity: 0 },
      ...(areaStyle ? { areaStyle } : {}),
      data,
      silent: true,
    });
    return [
      band(rows.map((r) => [r.step, round(r.winRate.lo)])),
      band(
        rows.map((r) => [
          r.step,
          r.winRate.lo === null || r.winRate.hi === null ? null : round(r.winRate.hi - r.winRate.lo),
        ]),
        { color, opacity: 0.12 },
      ),
      {
        name: j,
        type: 'line',
        symbol: 'circle',
        symbolSize: 7,
        color,
        lineStyle: { width: 2.5 },
        data: rows.map((r) => [r.step, round(r.winRate.mean)]),
        label: { show: labels, ...FONT, formatter: (p: { value: number[] }) => p.value[1]!.toFixed(2) },
      },
    ];
  });
  // a point without its interval (too few questions) says so on the chart: a line alone is not a sure trend
  const bare = report.rows.find((r) => r.winRate.n && r.winRate.lo === null);
  const top = (o.title ? 50 : 20) + (bare ? 18 : 0);
  const titles = [
    ...(o.title
      ? [
          {
            text: `${report.series}: win rate vs ${report.baseline}`,
            left: 'center',
            textStyle: { ...FONT, fontSize: 14 },
          },
        ]
      : []),
    ...(bare
      ? [
          {
            text: `no 95% intervals: ${bare.winRate.n} question${bare.winRate.n === 1 ? '' : 's'} (fewer than ${MIN_QUESTIONS_FOR_INTERVALS})`,
            right: o.narrow ? 15 : 30,
            top: top - 22,
            textStyle: { ...FONT, fontWeight: 'normal' },
          },
        ]
      : []),
  ];
  return svg(o.width ?? (o.narrow ? NARROW : 720), o.height ?? (o.narrow ? 320 : 400), {
    ...(titles.length ? { title: titles } : {}),
    legend: { bottom: 0, data: judges, textStyle: FONT, itemGap: 24 },
    grid: {
      left: o.narrow ? 50 : 60,
      right: o.narrow ? 15 : 30,
      top,
      bottom: 24 + 22 * Math.ceil(judges.length / (o.narrow ? 1 : 3)) + 16,
    },
    xAxis: {
      type: 'value',
      name: 'step',
      nameLocation: 'middle',
      nameGap: 26,
      min: 'dataMin',
      max: 'dataMax',
      axisLabel: FONT,
      nameTextStyle: FONT,
    },
    yAxis: { type: 'value', name: 'win rate (ties ½)', min: 0, max: 1, axisLabel: FONT, nameTextStyle: FONT },
    series,
  });
}

function round(x: number | null): number | null {
  return x === null ? null : Math.round(x * 1000) / 1000;
}
