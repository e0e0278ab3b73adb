// What the site shows, computed from the Store and memoized per data version: one object per family of pages,
// whose methods return plain rows (the pages render them, /api serves them). Shared by the CLI and the site.
import type { Store } from '../../storage/store.ts';
import { Catalog, type Memo, type SiteOptions } from './catalog.ts';
import { Checkpoints } from './checkpoints.ts';
import { HealthAndStyle } from './health-style.ts';
import { JudgeTables } from './judges.ts';
import { Leaderboards } from './leaderboards.ts';
import { Matches } from './matches.ts';
import { RunHistory } from './runs.ts';
import { Variants } from './variants.ts';

export class SiteData {
  /** the judges, questions, models and categories, and one judge's matches: what the others read */
  readonly catalog: Catalog;
  /** the leaderboard, the win matrix and one model's page */
  readonly leaderboards: Leaderboards;
  /** the judges page: judge leaderboard, accuracy, consistency, agreement, position bias */
  readonly judges: JudgeTables;
  /** benchmark health and style control */
  readonly health: HealthAndStyle;
  /** the match browser */
  readonly matches: Matches;
  /** the runs and the refreshes */
  readonly history: RunHistory;
  /** checkpoint series */
  readonly checkpoints: Checkpoints;
  /** the rating variants and the power table */
  readonly variants: Variants;

  constructor(store: Store, cache: Memo, o: SiteOptions) {
    this.catalog = new Catalog(store, cache);
    this.leaderboards = new Leaderboards(store, cache, this.catalog, o);
    this.judges = new JudgeTables(store, cache, this.catalog, o);
    this.health = new HealthAndStyle(store, cache, o);
    this.matches = new Matches(store, cache, this.catalog);
    this.history = new RunHistory(store, cache);
    this.checkpoints = new Checkpoints(store, cache, this.catalog);
    this.variants = new Variants(store, cache);
  }
}
