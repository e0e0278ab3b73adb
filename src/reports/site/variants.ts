// The rating variants page's data (views/variants.ejs), one stored report per judge (src/reports/rating-variants.ts).
import { ratingVariants, type RatingVariants } from '../rating-variants.ts';
import type { Store } from '../../storage/store.ts';
import type { Memo } from './catalog.ts';
import { judgeReads } from './reads.ts';

export class Variants {
  constructor(
    private readonly store: Store,
    private readonly cache: Memo,
  ) {}

  /** One judge's variants (the length model reads the answers' lengths). */
  of(judge: string): Promise<RatingVariants> {
    return this.cache.get(
      `variants:${judge}`,
      () => ratingVariants(this.store, judge),
      judgeReads(judge, 'answers'),
    );
  }
}

/** The columns of /api/variants, /api/variant-terms and /api/power. */
export const VARIANT_COLUMNS = ['model', 'bt', 'btFastchat', 'raoKupper', 'withPosition', 'note'] as const;
export const VARIANT_TERM_COLUMNS = [
  'term',
  'estimate',
  'se',
  'seIndependent',
  'lo',
  'hi',
  'unit',
  'observations',
  'questions',
  'note',
] as const;
export const POWER_COLUMNS = [
  'model1',
  'model2',
  'questions',
  'matches',
  'winRate',
  'sdPerQuestion',
  'se',
  'separated',
  'gap',
  'questionsNeeded',
  'matchesNeeded',
] as const;
