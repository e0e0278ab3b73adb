// Charts rendered on the server to SVG with Apache ECharts (its SSR mode needs no DOM, and no runtime
// code generation, so it runs on Workers too). Served as image/svg+xml and shown with <img>, so the
// pages keep a strict CSP (ECharts writes inline style attributes into its SVG).
import * as echarts from 'echarts/core';
import { BarChart, HeatmapChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent, VisualMapComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';
import type { CheckpointRow } from '../core/stats/checkpoints.ts';
import type { LeaderRow, MatrixCell } from './data.ts';

echarts.use([BarChart, HeatmapChart, LineChart, GridComponent, LegendComponent, TitleComponent, VisualMapComponent, SVGRenderer]);

const FONT = { fontFamily: 'system-ui, sans-serif', fontSize: 12, color: '#1b1b1b' };
const COLORS = ['#2f5fb3', '#c2571a', '#2a7f3f', '#8a3ea8', '#a1132d', '#5c6470'];

function svg(width: number, height: number, option: Record<string, unknown>): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, color: COLORS, textStyle: FONT, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

/** Horizontal bars: each model's adjusted win rate under one judge. */
export function winRateBars(rows: LeaderRow[], narrow = false): string {
  const r = [...rows].reverse();
  return svg(narrow ? 360 : 720, 60 + 34 * rows.length, {
    grid: { left: narrow ? 120 : 150, right: narrow ? 40 : 60, top: 20, bottom: 30 },
    xAxis: { type: 'value', min: 0, max: 1, axisLabel: FONT },
    yAxis: { type: 'category', data: r.map((x) => x.model), axisLabel: FONT },
    series: [{ type: 'bar', data: r.map((x) => round(x.winRateAdjusted)), label: { show: true, position: 'right', ...FONT }, barMaxWidth: 22 }],
  });
}

/** Heat map of the pairwise win matrix: row model's adjusted win rate against the column model. */
export function matrixHeatmap(models: string[], cells: MatrixCell[]): string {
  const idx = new Map(models.map((m, k) => [m, k]));
  // white labels on the dark ends of the scale, dark ones in the middle (contrast)
  const data = cells
    .filter((c) => c.winRateAdjusted !== null)
    .map((c) => ({ value: [idx.get(c.opponent)!, idx.get(c.model)!, round(c.winRateAdjusted!)], label: { color: Math.abs(c.winRateAdjusted! - 0.5) > 0.28 ? '#ffffff' : '#1b1b1b' } }));
  const side = 90 + 78 * models.length;
  return svg(side + 160, side, {
    grid: { left: 150, right: 20, top: 20, bottom: 110 },
    xAxis: { type: 'category', data: models, axisLabel: { ...FONT, rotate: 35 }, name: 'opponent', nameLocation: 'middle', nameGap: 90 },
    yAxis: { type: 'category', data: models, inverse: true, axisLabel: FONT },
    visualMap: { show: false, min: 0, max: 1, inRange: { color: ['#b2182b', '#f7f7f7', '#2166ac'] } },
    series: [{ type: 'heatmap', data, label: { show: true, ...FONT } }],
  });
}

/** Lines: each judge's adjusted win rate of the same models (one line per judge). */
export function judgeLines(models: string[], byJudge: { judge: string; rows: LeaderRow[] }[]): string {
  return svg(720, 340, {
    grid: { left: 50, right: 20, top: 40, bottom: 70 },
    legend: { top: 0, textStyle: FONT },
    xAxis: { type: 'category', data: models, axisLabel: { ...FONT, rotate: 20 } },
    yAxis: { type: 'value', min: 0, max: 1, axisLabel: FONT },
    series: byJudge.map((j) => ({ type: 'line', name: j.judge, symbolSize: 8, data: models.map((m) => round(j.rows.find((r) => r.model === m)?.winRateAdjusted ?? null)) })),
  });
}

/** Bars per category for one model. */
export function categoryBars(rows: { category: string; winRateAdjusted: number }[]): string {
  return svg(720, 300, {
    grid: { left: 50, right: 20, top: 20, bottom: 60 },
    xAxis: { type: 'category', data: rows.map((r) => r.category), axisLabel: { ...FONT, rotate: 20 } },
    yAxis: { type: 'value', min: 0, max: 1, axisLabel: FONT },
    series: [{ type: 'bar', data: rows.map((r) => round(r.winRateAdjusted)), label: { show: true, position: 'top', ...FONT }, barMaxWidth: 40 }],
  });
}

/**
 * A checkpoint series (`arena checkpoints report`, the site's /checkpoints): win rate vs the baseline
 * against step, one line per judge, with its 95% interval as a band.
 */
export function checkpointChart(report: { series: string; baseline: string; rows: CheckpointRow[] }, o: { width?: number; height?: number; title?: boolean; narrow?: boolean } = {}): string {
  const judges = [...new Set(report.rows.map((r) => r.judge))];
  // point labels only where they cannot collide with another judge's
  const labels = !o.narrow && judges.length === 1;
  const series = judges.flatMap((j, k) => {
    const rows = report.rows.filter((r) => r.judge === j && r.winRate.n);
    const color = COLORS[k % COLORS.length];
    return [
      { name: `${j} (95% interval)`, type: 'line', stack: `band-${j}`, symbol: 'none', color, lineStyle: { opacity: 0 }, data: rows.map((r) => [r.step, round(r.winRate.lo)]), silent: true },
      { name: `${j} (95% interval)`, type: 'line', stack: `band-${j}`, symbol: 'none', color, lineStyle: { opacity: 0 }, areaStyle: { color, opacity: 0.12 }, data: rows.map((r) => [r.step, round(r.winRate.hi - r.winRate.lo)]), silent: true },
      { name: j, type: 'line', symbol: 'circle', symbolSize: 7, color, lineStyle: { width: 2.5 }, data: rows.map((r) => [r.step, round(r.winRate.mean)]), label: { show: labels, ...FONT, formatter: (p: { value: number[] }) => p.value[1]!.toFixed(2) } },
    ];
  });
  const top = o.title ? 50 : 20;
  return svg(o.width ?? (o.narrow ? 360 : 720), o.height ?? (o.narrow ? 320 : 400), {
    ...(o.title ? { title: { text: `${report.series}: win rate vs ${report.baseline}`, left: 'center', textStyle: { ...FONT, fontSize: 14 } } } : {}),
    legend: { bottom: 0, data: judges, textStyle: FONT, itemGap: 24 },
    grid: { left: o.narrow ? 50 : 60, right: o.narrow ? 15 : 30, top, bottom: 24 + 22 * Math.ceil(judges.length / (o.narrow ? 1 : 3)) + 16 },
    xAxis: { type: 'value', name: 'step', nameLocation: 'middle', nameGap: 26, min: 'dataMin', max: 'dataMax', axisLabel: FONT, nameTextStyle: FONT },
    yAxis: { type: 'value', name: 'win rate (ties ½)', min: 0, max: 1, axisLabel: FONT, nameTextStyle: FONT },
    series,
  });
}

function round(x: number | null): number | null {
  return x === null ? null : Math.round(x * 1000) / 1000;
}
