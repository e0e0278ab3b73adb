// Style control on a small question set: below MIN_QUESTIONS_FOR_INTERVALS questions neither the question
// bootstrap's percentile intervals nor the clustered sandwich's hold (both rest on the questions as clusters),
// so the ratings and coefficients are shown without interval or Rank (UB), with the reason. Pure.
import { intervalsWithheld, type IntervalsWithheld } from './rating-rows.ts';
import { styleControl, type StyleBattle, type StyleGroup, type StyleResult } from './style.ts';

export type StyleOptions = NonNullable<Parameters<typeof styleControl>[2]>;

export interface CheckedStyleResult extends StyleResult {
  /** set when the battles rest on fewer than MIN_QUESTIONS_FOR_INTERVALS questions: no interval, and why */
  intervalsWithheld?: IntervalsWithheld;
}

/** styleControl, with the small-sample rule: on too few questions no bootstrap round is run and no interval shown. */
export function styleControlChecked(
  battles: StyleBattle[],
  groups: StyleGroup[],
  o: StyleOptions = {},
): CheckedStyleResult {
  const withheld = intervalsWithheld(new Set(battles.map((b) => b.cluster)).size);
  if (!withheld) return styleControl(battles, groups, o);
  const r = styleControl(battles, groups, { ...o, rounds: 0 });
  return {
    ...r,
    rows: r.rows.map((row) => ({
      ...row,
      lo: null,
      hi: null,
      rank: null,
      rawLo: null,
      rawHi: null,
      rawRank: null,
    })),
    features: r.features.map((f) => ({ ...f, lo: null, hi: null })),
    intervalsWithheld: withheld,
  };
}
