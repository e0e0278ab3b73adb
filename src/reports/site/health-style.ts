// The health and style pages' data: benchmark health (every judge against the experts) and style control, each
// with its own view fragment (views/health-table.ejs, views/style-table.ejs) that any page can include.
import type { HealthRow } from '../../core/stats/benchmark-health.ts';
import type { StyleGroup } from '../../core/stats/style.ts';
import { healthRows } from '../benchmark-health.ts';
import { styleReport, type StyleReport } from '../style.ts';
import type { Store } from '../../storage/store.ts';
import type { Memo, SiteOptions } from './catalog.ts';
import { allReads, judgeReads } from './reads.ts';
import { AUTHOR, HUMAN } from '../../core/constants.ts';

/** Judges never assessed: the experts are the reference, the paper's authors voted on a subset only. */
const NOT_ASSESSED = new Set([HUMAN, AUTHOR]);

/** The style features the site controls for. */
const STYLE_GROUPS_SHOWN: StyleGroup[] = ['length', 'markdown'];

export interface HealthSection {
  reference: string;
  rows: HealthRow[];
  /** judges the reference cannot rate yet (too few votes over their models), with the reason */
  unrated?: { judge: string; why: string }[];
  rounds: number;
}

export class HealthAndStyle {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
    private readonly o: SiteOptions,
  ) {}

  /** Every judge's health against the experts (undefined when the database has no expert votes). */
  health(): Promise<HealthSection | undefined> {
    return this.cache.get(
      'health',
      async () => {
        const judges = (await this.store.games.judges()).map((j) => j.judge);
        if (!judges.includes(HUMAN)) return undefined;
        const assessed = judges.filter((j) => !NOT_ASSESSED.has(j)).sort();
        const { rows, unrated } = assessed.length
          ? await healthRows(this.store, assessed, HUMAN, { rounds: this.o.bootstrapRounds })
          : { rows: [], unrated: [] };
        return { reference: HUMAN, rows, unrated, rounds: this.o.bootstrapRounds };
      },
      allReads(),
    );
  }

  /** One judge's ratings controlled for length and markdown, beside plain Bradley–Terry. */
  style(judge: string): Promise<StyleReport> {
    return this.cache.get(
      `style:${judge}`,
      () => styleReport(this.store, judge, STYLE_GROUPS_SHOWN, { rounds: this.o.bootstrapRounds }),
      // the answers' style: their length and markdown
      judgeReads(judge, 'answers'),
    );
  }
}

/** The rows of /api/health: one per judge, intervals flattened into columns. */
export function healthTableRows(s: HealthSection | undefined): object[] {
  return (s?.rows ?? []).map((r) => {
    const flat: Record<string, unknown> = {
      ...r,
      models: r.models.length,
      spearman: r.spearman.value,
      spearmanLo: nullIfNaN(r.spearman.lo),
      spearmanHi: nullIfNaN(r.spearman.hi),
      kendall: r.kendall.value,
      kendallLo: nullIfNaN(r.kendall.lo),
      kendallHi: nullIfNaN(r.kendall.hi),
      // how stable each separated count is over the bootstrap's own rounds (its Monte-Carlo range)
      separatedMcLo: r.separatedMonteCarlo?.lo,
      separatedMcHi: r.separatedMonteCarlo?.hi,
      referenceSeparatedMcLo: r.referenceSeparatedMonteCarlo?.lo,
      referenceSeparatedMcHi: r.referenceSeparatedMonteCarlo?.hi,
      // on too few questions: why the intervals and the counts made from them are null
      intervalsWithheld: r.intervalsWithheld?.reason,
    };
    return Object.fromEntries(HEALTH_COLUMNS.map((k) => [k, flat[k] ?? null]));
  });
}

export const HEALTH_COLUMNS = [
  'judge',
  'reference',
  'models',
  'pairs',
  'separated',
  'separability',
  'referenceSeparated',
  'referenceSeparability',
  'agreedPairs',
  'opposedPairs',
  'agreementWithConfidence',
  'brier',
  'brierReferenceBootstrap',
  'spearman',
  'spearmanLo',
  'spearmanHi',
  'kendall',
  'kendallLo',
  'kendallHi',
  'level',
  'rounds',
  'separatedMcLo',
  'separatedMcHi',
  'referenceSeparatedMcLo',
  'referenceSeparatedMcHi',
  'intervalsWithheld',
] as const;

const nullIfNaN = (x: number) => (Number.isFinite(x) ? x : null);

export const STYLE_COLUMNS = [
  'model',
  'rating',
  'lo',
  'hi',
  'rank',
  'rawRating',
  'rawLo',
  'rawHi',
  'rawRank',
] as const;
export const STYLE_FEATURE_COLUMNS = ['feature', 'coefficient', 'se', 'lo', 'hi'] as const;
