// What the route modules (src/web/routes/*) share: the site's context and the frame every page is rendered in.
import * as figures from '../core/format.ts';
import type { Context } from 'hono';
import type { SiteData } from '../reports/site/site-data.ts';
import type { StoredReports } from '../reports/site/stored.ts';
import type { Store } from '../storage/store.ts';
import { clip, MAX_PAGE_TEXT, WHOLE_TEXT_JSON } from './clip.ts';
import type { Send } from './send.ts';
import { markdown } from './markdown.ts';
import { canonicalPath, type Lookups } from './params.ts';
import { tableRegions } from './regions.ts';
import { assets, render } from './views.ts';

export interface Site {
  store: Store;
  data: SiteData;
  /** the data-dependent parameter checks (404 for names the database does not know) */
  check: Lookups;
  send: Send;
  /** the stored reports the site's data reads (src/reports/site/stored.ts) */
  reports: StoredReports;
  /** a page in the site's frame, its footer saying when the data last changed and what changed it */
  page(c: Context, view: string, title: string, d: object): Promise<string>;
}

/** What search engines and link previews show for each view. */
const DESCRIPTIONS: Record<string, string> = {
  home: 'Pairwise LLM leaderboard in the manner of MT-Bench: models ranked by rating, with 95% intervals.',
  leaderboard:
    'Pairwise LLM leaderboard in the manner of MT-Bench: win rates and ratings with intervals, per judge.',
  judges:
    'How the LLM judges agree with each other and with human experts, their consistency and position bias.',
  matrix: 'Head-to-head win rates of every pair of models under one judge.',
  model: 'One model under one judge: its opponents, categories and turns.',
  matches: 'Browse one question, two answers and every judgment of them.',
  runs: 'The tournament runs that produced the games on this leaderboard.',
  refreshes:
    'The nightly refreshes of this leaderboard: status, games played and why a refresh was degraded.',
  succession:
    "A judge's succession: the new judge on a bridge of the old one's matches, and how far the board moved.",
  checkpoints: 'Fine-tuning checkpoints compared by pairwise win rate.',
  health: 'Benchmark health: how well each judge separates the models and agrees with the reference.',
  style: 'Style control: ratings with answer length and formatting held equal.',
  variants:
    "Rating variants: FastChat's tie convention, Rao–Kupper ties, position and length terms with clustered errors, and power.",
};
const DEFAULT_DESCRIPTION = 'An MT-Bench-style pairwise tournament and leaderboard of LLMs.';

const NAV = [
  ['/', 'Leaderboard'],
  ['/judges', 'Judges'],
  ['/matrix', 'Win matrix'],
  ['/models', 'Models'],
  ['/matches', 'Matches'],
  ['/runs', 'Runs'],
  ['/refreshes', 'Refreshes'],
  ['/checkpoints', 'Checkpoints'],
  ['/health', 'Health'],
  ['/style', 'Style'],
  ['/variants', 'Variants'],
  ['/api', 'API'],
] as const;

/** The views' number formats: core/format.ts's, the ones the CLI prints (one spelling per kind of figure). */
const FORMAT = {
  ...figures,
  num: (x: number | null | undefined, d = 0) => (x === null || x === undefined ? '–' : x.toFixed(d)),
  int: figures.count,
};

/**
 * A page: views/<view>.ejs inside the site's frame. `siteUrl` makes the canonical link and og:url absolute; never
 * from the request (a Host header would otherwise end up in the cached page).
 */
export const page = (c: Context, view: string, title: string, d: object, siteUrl = ''): string =>
  tableRegions(
    render(view, {
      title,
      description: Object.hasOwn(DESCRIPTIONS, view) ? DESCRIPTIONS[view] : DEFAULT_DESCRIPTION,
      canonical: siteUrl.replace(/\/+$/, '') + canonicalPath(c),
      siteUrl,
      nav: NAV,
      path: c.req.path,
      css: assets.path('site.css'),
      js: assets.path('site.js'),
      f: FORMAT,
      md: (t: string) => markdown(clip(t, MAX_PAGE_TEXT, whole(view))),
      clip: (t: string) => clip(t, MAX_PAGE_TEXT, whole(view)),
      ...d,
    }),
  );

/** What a clipped text says of the rest: the voting page is blind, so it links to no JSON (which names the models). */
const whole = (view: string) =>
  view === 'annotate'
    ? 'the rest of this answer is not shown here: judge what is shown, or skip the match'
    : WHOLE_TEXT_JSON;

/** A query string from the given values (empty ones left out): `?a=1&b=x`, or '' when there is none. */
export const qs = (p: Record<string, string | number | undefined>): string => {
  const s = new URLSearchParams(
    Object.entries(p).filter(([, v]) => v !== undefined && v !== '') as [string, string][],
  ).toString();
  return s ? `?${s}` : '';
};

/** Refresh statuses the leaderboard warns about: the numbers below may be stale or incomplete. */
export const ALERT: ReadonlySet<string> = new Set(['degraded', 'budget', 'failed', 'interrupted']);
