// What the route modules (src/web/routes/*) share: the site's context and the frame every page is rendered in.
import * as figures from '../core/format.ts';
import type { Context } from 'hono';
import type { SiteData } from '../reports/site/site-data.ts';
import type { Store } from '../storage/store.ts';
import type { ResultCache } from './result-cache.ts';
import { clip } from './clip.ts';
import type { Send } from './http-cache.ts';
import { markdown } from './markdown.ts';
import type { Lookups } from './params.ts';
import { assets, render } from './views.ts';

export interface Site {
  store: Store;
  cache: ResultCache;
  data: SiteData;
  /** the data-dependent parameter checks (404 for names the database does not know) */
  check: Lookups;
  send: Send;
}

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

/** The views' number formats: core/format.ts's, the ones the CLI prints (one spelling per kind of figure). */
const FORMAT = {
  ...figures,
  num: (x: number | null | undefined, d = 0) => (x === null || x === undefined ? '–' : x.toFixed(d)),
  int: figures.count,
};

/** A page: the view `view` (views/<view>.ejs) inside the site's frame (navigation, stylesheet, script). */
export const page = (c: Context, view: string, title: string, d: object): string =>
  render(view, {
    title,
    nav: NAV,
    path: c.req.path,
    css: assets.path('site.css'),
    js: assets.path('site.js'),
    f: FORMAT,
    md: (t: string) => markdown(clip(t)),
    clip,
    ...d,
  });

/** A query string from the given values (empty ones left out): `?a=1&b=x`, or '' when there is none. */
export const qs = (p: Record<string, string | number | undefined>): string => {
  const s = new URLSearchParams(
    Object.entries(p).filter(([, v]) => v !== undefined && v !== '') as [string, string][],
  ).toString();
  return s ? `?${s}` : '';
};

/** Refresh statuses the leaderboard warns about: the numbers below may be stale or incomplete. */
export const ALERT: ReadonlySet<string> = new Set(['degraded', 'budget', 'failed', 'interrupted']);
