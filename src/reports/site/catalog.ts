// What every page of the site reads first: the judges, questions, models and categories, and one judge's matches.
import { AUTHOR, HUMAN } from '../../core/constants.ts';
import type { MatchOutcome, Question } from '../../core/types.ts';
import type { ReportReads } from '../../storage/report-store.ts';
import type { Store } from '../../storage/store.ts';
import { judgeData, type JudgeData } from '../results.ts';

/** Where the site's data keeps what it computed: a value per key, computed once. */
export interface Memo {
  /** `reads` marks a stored report (stored.ts) and declares what computing it reads (reads.ts) */
  get<T>(key: string, compute: () => Promise<T>, reads?: ReportReads): Promise<T>;
  /** the judges it holds reports of, when only some (the Worker: those of the last publish) */
  judgesWithReports?(): Promise<ReadonlySet<string> | undefined>;
}

export interface Filter {
  turn?: number;
  category?: string;
}

/** The options every family of the site's data shares. */
export interface SiteOptions {
  bootstrapRounds: number;
  intervals?: 'bootstrap' | 'sandwich';
}

/** Judges excluded from leaderboards: the paper's authors voted on a subset only (kept in agreement). */
const NOT_RANKED = new Set([AUTHOR]);

export class Catalog {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
  ) {}

  judges(): Promise<{ judge: string; games: number; votes: number }[]> {
    return this.cache.get('judges', async () => {
      const js = await this.store.games.judges();
      // the human experts first, then the judges by name
      return js.sort((a, b) => (a.judge === HUMAN ? -1 : b.judge === HUMAN ? 1 : a.judge < b.judge ? -1 : 1));
    });
  }

  /** The judges with leaderboards: every judge but the paper's authors (with reports, where only some have). */
  async rankedJudges(): Promise<string[]> {
    const reported = await this.cache.judgesWithReports?.();
    return (await this.judges())
      .filter((j) => !NOT_RANKED.has(j.judge) && (!reported || reported.has(j.judge)))
      .map((j) => j.judge);
  }

  questions(): Promise<Question[]> {
    return this.cache.get('questions', () => this.store.catalog.questions());
  }

  models(): Promise<string[]> {
    return this.cache.get('models', () => this.store.catalog.models());
  }

  async categories(): Promise<string[]> {
    return [...new Set((await this.questions()).map((q) => q.category))].sort();
  }

  judgeData(judge: string): Promise<JudgeData> {
    return this.cache.get(`judgeData:${judge}`, () => judgeData(this.store, judge));
  }

  /** One judge's match outcomes, only those of a turn or a category when the filter names one. */
  async outcomes(judge: string, f: Filter): Promise<MatchOutcome[]> {
    const { outcomes } = await this.judgeData(judge);
    const qs = f.category
      ? new Set((await this.questions()).filter((q) => q.category === f.category).map((q) => q.id))
      : undefined;
    return outcomes.filter(
      (o) => (f.turn === undefined || o.turn === f.turn) && (!qs || qs.has(o.questionId)),
    );
  }
}
